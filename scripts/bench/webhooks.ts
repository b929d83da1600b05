/**
 * `npm run bench:webhooks [-- --items 200 --events 2000 --live-seconds 10 --rate 50 --workers 2]`:
 * webhook delivery to a receiver on this machine. The service (as `npm start` runs it, on a fresh
 * embedded database or MONGODB_URI) with one endpoint for every event:
 * 1. backlog: `--events` updates spread over `--items` posts are written while the endpoint is
 *    inactive, then it is made active, and the time until the receiver has every event gives the
 *    delivery rate (queueing from the log and sending, in order per item);
 * 2. live: `--rate` updates a second for `--live-seconds`, each delivery's latency measured from
 *    the write's answer to the receiver's request.
 * One table of figures; the receiver answers 204 at once.
 */
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { basic, benchDatabase, BENCH_ADMIN_PASSWORD, startBenchService } from './service.js';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '200' },
    events: { type: 'string', default: '2000' },
    'live-seconds': { type: 'string', default: '10' },
    rate: { type: 'string', default: '50' },
    workers: { type: 'string', default: '2' },
  },
});
const items = Number(values.items);
const events = Number(values.events);
const liveSeconds = Number(values['live-seconds']);
const rate = Number(values.rate);
const admin = { ...basic('admin', BENCH_ADMIN_PASSWORD), 'Content-Type': 'application/json' };

/** Counts requests by item and version, and when each first came. */
const arrivals = new Map<string, number>();
let requests = 0;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    requests++;
    const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { item: { id: number }; version: number } };
    const key = `${data.item.id}:${data.version}`;
    if (!arrivals.has(key)) arrivals.set(key, performance.now());
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const db = await benchDatabase();
const service = await startBenchService(db.uri, { CMS_WORKERS: values.workers!, CMS_WEBHOOKS_ALLOW_ADDRESSES: '127.0.0.1', CMS_WEBHOOKS_POLL_MS: '100' });
const api = async (method: string, route: string, body?: unknown) => {
  const response = await fetch(`${service.url}/cms-json/cms/v2${route}`, { method, headers: admin, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
};
/** Runs `work(i)` for i < count, `concurrency` at a time. */
const inParallel = async (count: number, concurrency: number, work: (i: number) => Promise<void>) => {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await work(next++);
  }));
};
const waitForArrivals = async (count: number, timeoutMs: number) => {
  const deadline = performance.now() + timeoutMs;
  while (arrivals.size < count && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return arrivals.size >= count;
};

try {
  const hook = await api('POST', '/webhooks', { url: receiverUrl, active: false });
  const posts: number[] = [];
  await inParallel(items, 8, async () => {
    posts.push(Number((await api('POST', '/posts', { title: 'Bench', status: 'draft' })).id));
  });
  const versions = new Map<number, number>(posts.map((id) => [id, 1]));
  await inParallel(events - items, 8, async (i) => {
    const id = posts[i % posts.length];
    await api('POST', `/posts/${id}`, { title: `Bench ${i}` });
    versions.set(id, (versions.get(id) ?? 1) + 1);
  });

  // 1. The backlog, sent once the endpoint is active.
  const started = performance.now();
  await api('POST', `/webhooks/${hook.id}`, { active: true });
  const drained = await waitForArrivals(events, 600_000);
  const backlogSeconds = (performance.now() - started) / 1000;

  // 2. Live: writes at a steady rate, each delivery timed from the write's answer.
  const written = new Map<string, number>();
  const liveStart = performance.now();
  const total = Math.round(rate * liveSeconds);
  await inParallel(total, 8, async (i) => {
    const due = liveStart + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const id = posts[i % posts.length];
    const answer = await api('POST', `/posts/${id}`, { title: `Live ${i}` });
    void answer;
    const version = (versions.get(id) ?? 1) + 1;
    versions.set(id, version);
    written.set(`${id}:${version}`, performance.now());
  });
  await waitForArrivals(events + total, 120_000);
  const latencies = [...written].map(([key, at]) => (arrivals.get(key) ?? Number.NaN) - at).filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b);
  const percentile = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN);

  console.log('');
  console.log(`webhook delivery to a local receiver (${values.workers} service processes, ${items} items)`);
  console.log(`  backlog: ${events} events delivered in ${backlogSeconds.toFixed(1)} s: ${Math.round(events / backlogSeconds)} deliveries/s${drained ? '' : ' (NOT all delivered)'}`);
  console.log(`  live: ${total} writes at ${rate}/s, ${latencies.length} delivered; write answered -> receiver: p50 ${percentile(50)} ms, p99 ${percentile(99)} ms, max ${Math.round(latencies.at(-1) ?? Number.NaN)} ms`);
  console.log(`  requests received ${requests} for ${arrivals.size} distinct events`);
} finally {
  await service.stop();
  await db.stop();
  receiver.close();
}
