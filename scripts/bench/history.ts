// Revisions and history at scale, in one run on one machine:
// - update and autosave throughput (HTTP, concurrent clients, each on its own post);
// - latency of the first page of revisions and of the version-history count for a post with
//   10 revisions and one with 10,000, with the query plans behind them;
// - the timeline export rate and its peak memory for 100,000 events.
//   npm run bench:history [-- --revisions 10000 --events 100000 --seconds 8 --concurrency 8]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { basic, BENCH_ADMIN_PASSWORD, benchDatabase, scriptEnv, startBenchService } from './service.js';

const { values } = parseArgs({
  options: {
    revisions: { type: 'string', default: '10000' },
    events: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '8' },
  },
});
const manyRevisions = Number(values.revisions);
const targetEvents = Number(values.events);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const admin = { ...basic('admin', BENCH_ADMIN_PASSWORD), 'Content-Type': 'application/json' };

const { database, uri, stop: stopDatabase } = await benchDatabase();
const service = await startBenchService(uri);
const api = async (method: string, route: string, body?: unknown, headers: Record<string, string> = admin) => {
  const response = await fetch(`${service.url}/cms-json${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** `workers` clients, each on its own post, doing `operation` as fast as answered for `seconds`. */
async function throughput(name: string, operation: (post: number, n: number) => Promise<unknown>, posts: number[]): Promise<void> {
  let count = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(posts.map(async (post) => {
    for (let n = 0; performance.now() < deadline; n++) {
      await operation(post, n);
      count++;
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  console.log(`${name.padEnd(60)} ${(count / elapsed).toFixed(0).padStart(6)} /s  (${count} in ${elapsed.toFixed(1)} s, ${posts.length} clients)`);
}

async function latency(route: string, headers: Record<string, string> = admin, rounds = 200): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const response = await fetch(`${service.url}/cms-json${route}`, { headers });
    await response.arrayBuffer();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

try {
  console.log(`database: ${database.description}; node ${process.version}, ${os.cpus().length} cores`);
  const editor = await api('POST', '/cms/v2/users', { username: 'bench-editor', email: 'editor@bench.test', password: 'bench-editor-pw', roles: ['editor'] });
  const editorHeaders = { ...basic('bench-editor', 'bench-editor-pw'), 'Content-Type': 'application/json' };
  void editor;

  const workers = await Promise.all(Array.from({ length: concurrency }, (_, i) => api('POST', '/cms/v2/posts', { title: `Worker ${i}`, content: 'start', status: 'publish' })));
  const workerIds = workers.map((post) => Number(post.id));
  await throughput('update (POST /posts/<id>, new content each time)', (post, n) => api('POST', `/cms/v2/posts/${post}`, { content: `update ${n}` }), workerIds);
  await throughput('autosave (POST /posts/<id>/autosaves by another user)', (post, n) => api('POST', `/cms/v2/posts/${post}/autosaves`, { content: `autosave ${n}` }, editorHeaders), workerIds);

  const small = Number((await api('POST', '/cms/v2/posts', { title: 'Few revisions', content: 'v0', status: 'publish' })).id);
  for (let n = 1; n <= 10; n++) await api('POST', `/cms/v2/posts/${small}`, { content: `v${n}` });
  const large = Number((await api('POST', '/cms/v2/posts', { title: 'Many revisions', content: 'v0', status: 'publish' })).id);
  const started = performance.now();
  for (let n = 1; n <= manyRevisions; n++) await api('POST', `/cms/v2/posts/${large}`, { content: `v${n}` });
  console.log(`built a post with ${manyRevisions} revisions in ${((performance.now() - started) / 1000).toFixed(1)} s (sequential updates)`);

  for (const [label, id, count] of [['10 revisions', small, 10], [`${manyRevisions} revisions`, large, manyRevisions]] as const) {
    const page = await latency(`/cms/v2/posts/${id}/revisions?per_page=10`);
    const history = await latency(`/cms/v2/posts/${id}?_fields=id,_links`);
    console.log(`${label.padEnd(18)} first revisions page: median ${page.toFixed(2)} ms; version-history count: median ${history.toFixed(2)} ms (count ${count})`);
  }

  const client = new MongoClient(uri);
  const plan = await client.db().collection('revisions').find({ parent: large }).sort({ date: -1, _id: -1 }).limit(10).explain('executionStats');
  console.log('query plan, first revisions page:', JSON.stringify(plan.queryPlanner?.winningPlan ?? plan).slice(0, 600));
  const countPlan = await client.db().command({ explain: { count: 'revisions', query: { parent: large } }, verbosity: 'executionStats' });
  console.log('query plan, revision count:', JSON.stringify(countPlan.queryPlanner?.winningPlan ?? countPlan).slice(0, 400));

  // Top the log up to the target with synthetic streams, so the export reads that many events.
  const events = client.db().collection('events');
  const have = await events.countDocuments();
  const missing = Math.max(0, targetEvents - have);
  for (let offset = 0; offset < missing; offset += 5000) {
    const rows = Array.from({ length: Math.min(5000, missing - offset) }, (_, i) => {
      const n = offset + i;
      const created = n % 50 === 0;
      const data = created ? { fields: { type: 'post', status: 'draft', title: `synthetic ${n}`, content: '' } } : { changes: { content: `synthetic ${n}` } };
      return { stream: 10_000_000 + Math.floor(n / 50), seq: (n % 50) + 1, type: created ? 'created' : 'updated', at: new Date(), actor: 1, data: JSON.stringify(data) };
    });
    await events.insertMany(rows);
  }
  const total = await events.countDocuments();
  await client.close();

  const out = path.join(os.tmpdir(), `timeline-${process.pid}.ndjson`);
  const run = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, 'dist/scripts/export-timeline.js', '--format', 'ndjson', '--out', out], {
    env: scriptEnv(database, uri),
    encoding: 'utf8',
  });
  const [elapsed, maxKb] = (run.stderr.trim().split('\n').pop() ?? '0 0').split(' ').map(Number);
  const lines = (await fs.readFile(out, 'utf8')).split('\n').filter(Boolean).length;
  await fs.rm(out, { force: true });
  console.log(`export:timeline of ${total} events: ${lines} lines in ${elapsed.toFixed(2)} s = ${(lines / elapsed).toFixed(0)} events/s, peak RSS ${(maxKb / 1024).toFixed(0)} MiB (process total, start-up included)`);

  const streamStart = performance.now();
  const ndjson = await fetch(`${service.url}/cms-json/cms/v2/posts/${large}/history`, { headers: { ...admin, Accept: 'application/x-ndjson' } });
  const streamed = (await ndjson.text()).split('\n').filter(Boolean).length;
  console.log(`GET /posts/<id>/history as NDJSON: ${streamed} events in ${((performance.now() - streamStart) / 1000).toFixed(2)} s`);
} finally {
  await service.stop();
  await stopDatabase();
}
