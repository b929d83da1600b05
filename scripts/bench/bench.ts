/**
 * `npm run bench`: the service on a fresh database (`MONGODB_URI`, or the embedded one), seeded
 * through the API, under autocannon's load workload by workload, beside a bare Node `http`
 * server answering a small JSON body as the reference. Prints one table (req/s, p50, p99,
 * non-2xx, database commands per request, the ratio to the reference, the service's peak RSS).
 *
 *   npm run bench [-- --seconds 10] [--connections 32] [--revisions 10000] [--workers N] [--json FILE]
 *
 * `--workers` sets CMS_WORKERS (default: as the service, one per core); commands are counted
 * and peak RSS reported over every process.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BENCH_ADMIN_PASSWORD, basic, benchDatabase, settle as settleService, startCountedService } from './service.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    revisions: { type: 'string', default: '10000' },
    workers: { type: 'string' },
    json: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const manyRevisions = Number(values.revisions);
const admin = basic('admin', BENCH_ADMIN_PASSWORD);
const JSON_HEADERS = { ...admin, 'Content-Type': 'application/json' };

interface Row {
  workload: string;
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  commandsPerRequest: number | null;
  ratio: number | null;
}

/** The reference: a bare Node server answering a small JSON body, in its own process. */
async function startReference(): Promise<{ url: string; stop: () => void }> {
  const server = `require('node:http').createServer((q, s) => { s.setHeader('Content-Type', 'application/json'); s.end('{"ok":true}'); })
    .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', server], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10))));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}/cms-json/cms/v2${path}`, { method, headers: JSON_HEADERS, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** 200 published posts of about 2 KB with categories and tags, a menu of 50 items, a post with 500 revisions and one with `manyRevisions`. */
async function seed(url: string): Promise<{ post: number; fiveHundred: number; many: number; autosaved: number; menu: number }> {
  const categories: number[] = [];
  const tags: number[] = [];
  for (let i = 0; i < 5; i++) categories.push((await api(url, 'POST', '/categories', { name: `Category ${i}` })).id);
  for (let i = 0; i < 10; i++) tags.push((await api(url, 'POST', '/tags', { name: `Tag ${i}` })).id);
  const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. ';
  const posts: number[] = [];
  for (let batch = 0; batch < 200; batch += 20) {
    posts.push(...(await Promise.all(Array.from({ length: 20 }, async (_, i) => (await api(url, 'POST', '/posts', {
      title: `Post ${batch + i}`,
      content: `<!-- wp:paragraph --><p>${paragraph.repeat(20)}</p><!-- /wp:paragraph -->`,
      status: 'publish',
      categories: [categories[(batch + i) % 5]],
      tags: [tags[(batch + i) % 10], tags[(batch + i + 3) % 10]],
    })).id))));
  }
  const menu = (await api(url, 'POST', '/menus', { name: 'Main', locations: ['primary'] })).id;
  for (let i = 0; i < 50; i++) {
    const item = i % 2 ? { type: 'post_type', object_id: posts[i] } : { title: `Link ${i}`, url: `https://example.org/${i}` };
    await api(url, 'POST', '/menu-items', { ...item, menus: menu, menu_order: i + 1 });
  }
  const revised = async (count: number) => {
    const id = (await api(url, 'POST', '/posts', { title: `Revised ${count}`, content: 'version 0', status: 'publish' })).id;
    for (let i = 1; i <= count; i++) await api(url, 'POST', `/posts/${id}`, { content: `version ${i}` });
    return id;
  };
  const started = performance.now();
  const fiveHundred = await revised(500);
  const many = await revised(manyRevisions);
  console.log(`seeded 200 posts, and ${500 + manyRevisions} revisions in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return { post: posts[0], fiveHundred, many, autosaved: posts[1], menu };
}

async function run(url: string, options: Omit<autocannon.Options, 'url' | 'connections' | 'duration'> & { path: string }): Promise<autocannon.Result> {
  return autocannon({ url: `${url}${options.path}`, connections, duration: seconds, ...options });
}

const database = process.env.MONGODB_URI
  ? { uri: process.env.MONGODB_URI.replace(/\/[^/?]*(\?|$)/, `/bench_${Date.now()}$1`), description: 'MONGODB_URI', stop: async () => {} }
  : await benchDatabase().then((bench) => ({ uri: bench.uri, description: bench.database.description, stop: bench.stop }));
const service = await startCountedService(database.uri, values.workers === undefined ? {} : { CMS_WORKERS: values.workers });
const reference = await startReference();
const rows: Row[] = [];
try {
  console.log(`database: ${database.description}; ${connections} connections, ${seconds} s a workload`);
  const ids = await seed(service.url);
  const base = '/cms-json/cms/v2';
  let counter = 0;
  const changing = (field: string) => () => JSON.stringify({ [field]: `changed ${++counter} ${Math.random()}` });
  const workloads: [string, string, Omit<autocannon.Options, 'url' | 'connections' | 'duration'> & { path: string }][] = [
    ['reference: bare Node http', 'reference', { path: '/' }],
    ['GET /posts?per_page=10 (anonymous)', 'service', { path: `${base}/posts?per_page=10` }],
    ['GET /posts/<id>?context=edit (Basic)', 'service', { path: `${base}/posts/${ids.post}?context=edit`, headers: admin }],
    ['GET revisions per_page=10 (500 revisions)', 'service', { path: `${base}/posts/${ids.fiveHundred}/revisions?per_page=10`, headers: admin }],
    [`GET revisions per_page=10 (${manyRevisions} revisions)`, 'service', { path: `${base}/posts/${ids.many}/revisions?per_page=10`, headers: admin }],
    ['GET all 500 revisions', 'service', { path: `${base}/posts/${ids.fiveHundred}/revisions`, headers: admin }],
    ['POST autosaves (changing content)', 'service', { path: `${base}/posts/${ids.autosaved}/autosaves`, method: 'POST', headers: JSON_HEADERS, requests: [{ setupRequest: (request) => ({ ...request, body: changing('content')() }) }] }],
    ['POST /posts/<id> updates', 'service', { path: `${base}/posts/${ids.post}`, method: 'POST', headers: JSON_HEADERS, requests: [{ setupRequest: (request) => ({ ...request, body: changing('content')() }) }] }],
    ['GET /menu-items?menus=<id> (50 items, Basic)', 'service', { path: `${base}/menu-items?menus=${ids.menu}`, headers: admin }],
    ['GET /posts?per_page=10&_embed (anonymous)', 'service', { path: `${base}/posts?per_page=10&_embed` }],
    ['GET /settings (Basic)', 'service', { path: `${base}/settings`, headers: admin }],
  ];
  let referenceRate = 0;
  // The service may still be working through requests a workload left in flight: the next
  // workload starts once it is quiet.
  const settle = () => settleService(service);
  await settle();
  for (const [name, target, options] of workloads) {
    const before = target === 'service' ? await service.commands() : 0;
    const result = await run(target === 'service' ? service.url : reference.url, options);
    if (target === 'service') await settle();
    const after = target === 'service' ? await service.commands() : 0;
    const answered = result.requests.total;
    if (target === 'reference') referenceRate = result.requests.average;
    rows.push({
      workload: name,
      perSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx + result.errors + result.timeouts,
      commandsPerRequest: target === 'service' && answered ? (after - before) / answered : null,
      ratio: target === 'service' && referenceRate ? result.requests.average / referenceRate : null,
    });
    console.log(`  ${name}: ${result.requests.average.toFixed(0)} req/s`);
  }
  const exportStarted = performance.now();
  const exported = spawnSync(process.execPath, ['dist/scripts/export-timeline.js', '--out', '/dev/null'], { env: { ...process.env, MONGODB_URI: database.uri }, encoding: 'utf8' });
  const exportSeconds = (performance.now() - exportStarted) / 1000;
  const events = 200 + 50 + 2 + 500 + manyRevisions + counter;
  if (exported.status !== 0) throw new Error(`export:timeline failed: ${exported.stderr}`);
  rows.push({ workload: `export:timeline (about ${events} events, events/s)`, perSecond: events / exportSeconds, p50: Number.NaN, p99: Number.NaN, non2xx: 0, commandsPerRequest: null, ratio: null });

  await settle();
  const rss = (await service.count()).peakRssMiB;
  const cell = (value: number | null, digits = 0) => (value === null || Number.isNaN(value) ? '-' : value.toFixed(digits));
  console.log(`\n| workload | req/s | p50 ms | p99 ms | non-2xx | db commands/request | ratio to bare Node |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |`);
  for (const row of rows) {
    console.log(`| ${row.workload} | ${cell(row.perSecond)} | ${cell(row.p50, 1)} | ${cell(row.p99, 1)} | ${row.non2xx} | ${cell(row.commandsPerRequest, 1)} | ${cell(row.ratio, 3)} |`);
  }
  console.log(`\nservice peak RSS: ${rss.map((mib) => mib.toFixed(0)).join(' + ')} MiB (${rss.length === 1 ? 'one process' : 'primary + workers'})`);
  if (values.json) await fs.writeFile(values.json, JSON.stringify({ database: database.description, connections, seconds, rows, peakRssMiB: rss }, null, 2));
} finally {
  await service.stop();
  reference.stop();
  await database.stop();
}
// autocannon's agents may keep the loop alive.
process.exit(0);
