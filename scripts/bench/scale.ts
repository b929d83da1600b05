/**
 * `npm run bench:scale`: what a request costs on a grown site against a small one, each on a
 * fresh embedded database (`benchDatabase()`: FerretDB on PostgreSQL on these machines).
 *
 *   npm run bench:scale [-- --posts 10000 --revisions 100000 --events 200000 --probe-revisions 2000 --seconds 10 --json FILE]
 *                       [--site small|grown] [--only update,autosave,...] [--commands]
 *
 * Two sites, one after the other, each seeded in bulk (`scale-seed.ts`): a small one of 100 posts
 * and a grown one of `--posts`, both with a probe post of about 2 KB and `--probe-revisions`
 * revisions and a menu of 50 items, the other posts with about 1 KB of content and their share of
 * `--revisions`, the log filled to `--events` with autosaves. On each, the service (two
 * processes, counting database commands) answers each workload 15 times in turn (median
 * latency; among them three writes that change term counts: a draft created, a post published
 * with a category and two tags, a tag assigned), then autocannon's 32 connections update one hot post for `--seconds`, then autosave
 * it, and the log is checked against the answers (`scale-load.ts`). Then the grown site's whole
 * log is exported with `export:timeline`. One table, beside WordPress 6.1's figures.
 *
 * To look at one thing: `--site` runs one site, `--only` the steps named (the workloads' keys,
 * `load` and `export`), and `--commands` lists each workload's database commands per request by
 * kind (command, collection, the fields its filter names).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadHotPost, type LoadRow } from './scale-load.js';
import { printReport, type Latency, type SiteResult, type TimelineExport } from './scale-report.js';
import { benchSites, MENU_ITEMS, seedSite, SITE_SIZE_OPTIONS, SMALL_POSTS, type SeededSite, type SiteSize } from './scale-seed.js';
import { psql } from '../../src/store/database/postgresql.js';
import { BENCH_ADMIN_JSON as ADMIN_JSON, benchDatabase, embeddedPostgresEnv, median, scriptEnv, send, settle, startCountedService, type CountedService } from './service.js';
import { type DatabaseServer } from '../../src/store/database/wire-server.js';

if (process.env.MONGODB_URI) {
  console.error('bench:scale seeds two fresh embedded databases, one a site: unset MONGODB_URI.');
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    ...SITE_SIZE_OPTIONS,
    seconds: { type: 'string', default: '10' },
    json: { type: 'string' },
    site: { type: 'string' },
    only: { type: 'string' },
    commands: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
const STEPS = ['item', 'list', 'list50', 'revisions', 'history', 'menu', 'update', 'autosave', 'create', 'publish', 'assign', 'load', 'export'] as const;
const only = values.only?.split(',').filter(Boolean);
const unknownStep = only?.find((step) => !(STEPS as readonly string[]).includes(step));
if (values.help || unknownStep || (values.site && !['small', 'grown'].includes(values.site))) {
  if (unknownStep) console.error(`--only: no step ${unknownStep}`);
  console.error(`npm run bench:scale [-- --posts N --revisions N --events N --probe-revisions N --seconds S --json FILE --site small|grown --only ${STEPS.join(',')} --commands]`);
  process.exit(values.help ? 0 : 2);
}
const runs = (step: (typeof STEPS)[number]) => !only || only.includes(step);
const seconds = Number(values.seconds);
const CONNECTIONS = 32;
const ROUNDS = 15;
const WARM_UP = 2;
const grownPosts = Number(values.posts);
const probeRevisions = Number(values['probe-revisions']);
const sizes = benchSites({ posts: grownPosts, revisions: Number(values.revisions), events: Number(values.events), probeRevisions });

const total = async (url: string, route: string) => Number((await send(url, 'GET', route)).headers.get('x-wp-total'));

/** Facts the seeded site must show over HTTP; the run stops at the first that does not hold. */
async function assertConsistent(url: string, site: SeededSite, label: string): Promise<void> {
  const expect = (what: string, got: unknown, want: unknown) => {
    if (got !== want) throw new Error(`the ${label} site is not consistent: ${what} is ${String(got)}, expected ${String(want)}`);
  };
  const anonymous = await fetch(`${url}/cms-json/cms/v2/posts?per_page=1`);
  expect('X-WP-Total of /posts', Number(anonymous.headers.get('x-wp-total')), site.published);
  const revisions = await send(url, 'GET', `/posts/${site.probe}/revisions?per_page=10`);
  // The probe's revisions and its one autosave, which WordPress's revisions route lists too.
  expect("X-WP-Total of the probe's revisions", Number(revisions.headers.get('x-wp-total')), probeRevisions + 1);
  expect("the probe's first page of revisions", ((await revisions.json()) as unknown[]).length, 10);
  expect("X-WP-Total of the probe's history", await total(url, `/posts/${site.probe}/history?per_page=1`), site.probeEvents);
  expect("the hot post's revisions", await total(url, `/posts/${site.hot}/revisions?per_page=1`), site.hotRevisions);
  expect('items of the menu', ((await (await send(url, 'GET', `/menu-items?menus=${site.menu}&per_page=100`)).json()) as unknown[]).length, MENU_ITEMS);
  expect("category 1's count", ((await (await send(url, 'GET', '/categories/1')).json()) as { count: number }).count, site.published);
}

/** After the workloads' updates: each made a revision, under an id the seed did not use. */
async function assertFreshIds(url: string, site: SeededSite): Promise<void> {
  const response = await send(url, 'GET', `/posts/${site.probe}/revisions?per_page=5`);
  const made = WARM_UP + ROUNDS;
  if (Number(response.headers.get('x-wp-total')) !== probeRevisions + 1 + made) throw new Error(`the probe lists ${response.headers.get('x-wp-total')} revisions after ${made} updates`);
  const newest = ((await response.json()) as { id: number; slug: string }[]).find((revision) => !revision.slug.includes('autosave'))!;
  if (!(newest.id > site.lastSeededId)) throw new Error(`the service handed out revision id ${newest.id}, not above the seeded ids (up to ${site.lastSeededId})`);
}

/** After the publish workload: its category counts each post it published, as WordPress's `count` does. */
async function assertTermCounts(url: string, terms: BenchTerms): Promise<void> {
  const count = ((await (await send(url, 'GET', `/categories/${terms.category}`)).json()) as { count: number }).count;
  if (count !== WARM_UP + ROUNDS) throw new Error(`the bench category counts ${count} posts after ${WARM_UP + ROUNDS} were published in it`);
}

interface Workload {
  key: (typeof STEPS)[number];
  name: string;
  /** WordPress 6.1 at +5,000 posts, measured separately on this machine kind (ms). */
  wordpress?: number;
  request: (n: number) => Promise<Response>;
}

/** The terms the create, publish and assign workloads give posts: a category and two tags of their own. */
interface BenchTerms {
  category: number;
  tags: [number, number];
}

async function createBenchTerms(url: string): Promise<BenchTerms> {
  const make = async (route: string, name: string) => ((await (await send(url, 'POST', route, { name })).json()) as { id: number }).id;
  return { category: await make('/categories', 'Bench category'), tags: [await make('/tags', 'bench-tag-a'), await make('/tags', 'bench-tag-b')] };
}

function workloads(url: string, site: SeededSite, lastFullPage: number, probeContent: string, terms: BenchTerms): Workload[] {
  const get = (route: string) => () => send(url, 'GET', route);
  return [
    { key: 'item', name: 'item GET /posts/<probe>?context=edit', wordpress: 31.8, request: get(`/posts/${site.probe}?context=edit`) },
    { key: 'list', name: 'editor list GET /posts?context=edit&per_page=20, page 1', wordpress: 51.2, request: get('/posts?context=edit&per_page=20') },
    // A small site has no page 50: its last full page reads as many items.
    { key: 'list50', name: `editor list, page 50${lastFullPage < 50 ? ` (here the last full one, ${lastFullPage})` : ''}`, request: get(`/posts?context=edit&per_page=20&page=${Math.min(50, lastFullPage)}`) },
    { key: 'revisions', name: 'revision page GET /posts/<probe>/revisions?per_page=10', wordpress: 29.9, request: get(`/posts/${site.probe}/revisions?per_page=10`) },
    { key: 'history', name: 'history GET /posts/<probe>/history, first page', request: get(`/posts/${site.probe}/history`) },
    { key: 'menu', name: `menu items GET /menu-items?menus=<id>&per_page=100 (${MENU_ITEMS})`, request: get(`/menu-items?menus=${site.menu}&per_page=100`) },
    { key: 'update', name: 'update POST /posts/<probe> (title)', wordpress: 55.6, request: (n) => send(url, 'POST', `/posts/${site.probe}`, { title: `Probe post, edit ${n}` }) },
    {
      key: 'autosave',
      name: 'autosave POST /posts/<probe>/autosaves',
      wordpress: 30.9,
      request: (n) => send(url, 'POST', `/posts/${site.probe}/autosaves`, { title: 'Probe post', content: `${probeContent}\n<!-- autosave ${n} -->`, excerpt: '' }),
    },
    // Each gives a post terms: a draft its default category, a published post a category and two
    // tags, and the hot post (published) one of two tags in turn, so every request changes a count.
    { key: 'create', name: 'create a draft POST /posts (default category)', request: (n) => send(url, 'POST', '/posts', { title: `Bench draft ${n}`, content: `<p>Draft ${n}</p>` }) },
    {
      key: 'publish',
      name: 'publish POST /posts (status publish, a category, two tags)',
      request: (n) => send(url, 'POST', '/posts', { title: `Bench post ${n}`, content: `<p>Post ${n}</p>`, status: 'publish', categories: [terms.category], tags: terms.tags }),
    },
    { key: 'assign', name: 'assign a term POST /posts/<hot> (tags, published)', request: (n) => send(url, 'POST', `/posts/${site.hot}`, { tags: [terms.tags[n % 2]] }) },
  ];
}

/** Median latency of `ROUNDS` requests one after another (after a warm-up of each process), and database commands per request. */
async function measure(service: CountedService, workload: Workload): Promise<Pick<Latency, 'median' | 'commandsPerRequest'>> {
  let n = 0;
  for (let i = 0; i < WARM_UP; i++) await (await workload.request(++n)).arrayBuffer();
  await settle(service);
  const before = await service.count();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await (await workload.request(++n)).arrayBuffer();
    samples.push(performance.now() - started);
  }
  const after = await service.count();
  if (values.commands) {
    const kinds = Object.entries(after.byKind).map(([kind, count]) => [kind, (count - (before.byKind[kind] ?? 0)) / ROUNDS] as const);
    for (const [kind, perRequest] of kinds.filter(([, perRequest]) => perRequest > 0).sort((a, b) => b[1] - a[1])) console.log(`      ${perRequest.toFixed(2)}  ${kind}`);
  }
  return { median: median(samples), commandsPerRequest: (after.commands - before.commands) / ROUNDS };
}

/** `export:timeline` over the whole log, as its own process: events written per second. */
async function measureExport(database: DatabaseServer, uri: string): Promise<TimelineExport> {
  const out = path.join(os.tmpdir(), `scale-timeline-${process.pid}.ndjson`);
  const started = performance.now();
  const run = spawnSync(process.execPath, ['dist/scripts/export-timeline.js', '--format', 'ndjson', '--out', out], {
    env: scriptEnv(database, uri),
    encoding: 'utf8',
  });
  const elapsed = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`export:timeline failed: ${run.stderr}`);
  const events = (await fs.readFile(out, 'utf8')).split('\n').filter(Boolean).length;
  await fs.rm(out, { force: true });
  return { events, seconds: elapsed, perSecond: events / elapsed };
}

async function runSite(size: SiteSize): Promise<SiteResult> {
  const { database, uri, stop: stopDatabase } = await benchDatabase();
  try {
    console.log(`\n${size.label} site: ${size.posts} posts on ${database.description}`);
    const seeded = await seedSite(uri, size, { verifyReplay: size.posts <= SMALL_POSTS });
    console.log(`seeded the ${size.label} site in ${seeded.seconds.toFixed(0)} s: ${seeded.events} events, ${seeded.revisions} revisions, ${seeded.published} published posts`);
    // A site that grew over time has its tables' statistics (autovacuum keeps them); one seeded a
    // moment ago has those of its empty tables until autovacuum comes by.
    if (database.postgres) await psql(database.postgres, 'ANALYZE;');
    const starting = performance.now();
    const service = await startCountedService(uri, { CMS_WORKERS: '2', ...embeddedPostgresEnv(database) });
    const startSeconds = (performance.now() - starting) / 1000;
    let stopped = false;
    try {
      const peakRssByPhase: SiteResult['peakRssByPhase'] = { started: (await service.count()).peakRssMiB, sequential: [] };
      await assertConsistent(service.url, seeded, size.label);
      const lastFullPage = Math.floor(Number((await send(service.url, 'GET', '/posts?context=edit&per_page=20')).headers.get('x-wp-total')) / 20);
      const probe = (await (await send(service.url, 'GET', `/posts/${seeded.probe}?context=edit`)).json()) as { content: { raw: string } };
      const terms = await createBenchTerms(service.url);
      const latencies: Latency[] = [];
      for (const workload of workloads(service.url, seeded, lastFullPage, probe.content.raw, terms).filter((each) => runs(each.key))) {
        latencies.push({ workload: workload.name, wordpress: workload.wordpress, ...(await measure(service, workload)) });
        console.log(`  ${workload.name}: median ${latencies.at(-1)!.median.toFixed(1)} ms`);
      }
      if (runs('update')) await assertFreshIds(service.url, seeded);
      if (runs('publish')) await assertTermCounts(service.url, terms);
      peakRssByPhase.sequential = (await service.count()).peakRssMiB;

      const load: LoadRow[] = [];
      for (const workload of runs('load') ? (['update', 'autosave'] as const) : []) {
        load.push(await loadHotPost(service, uri, { hot: seeded.hot, workload, connections: CONNECTIONS, seconds, headers: ADMIN_JSON, site: size.label }));
        console.log(`  load, ${workload}s: ${load.at(-1)!.perSecond.toFixed(1)} req/s, checks held`);
      }
      const { peakRssMiB } = await service.count();
      await service.stop();
      stopped = true;
      const timelineExport = size.label === 'grown' && runs('export') ? await measureExport(database, uri) : undefined;
      return { size, seeded, startSeconds, latencies, load, peakRssMiB, peakRssByPhase, timelineExport };
    } finally {
      if (!stopped) await service.stop();
    }
  } finally {
    await stopDatabase();
  }
}

const started = performance.now();
console.log(`bench:scale: node ${process.version}, ${os.cpus().length} cores; ${ROUNDS} requests a workload (median), ${CONNECTIONS} connections under load for ${seconds} s`);
const results = [];
for (const size of sizes.filter((each) => !values.site || each.label === values.site)) results.push(await runSite(size));
const report = printReport(results, (performance.now() - started) / 1000);
if (values.json) await fs.writeFile(values.json, JSON.stringify(report, null, 2));
// autocannon's agents may keep the loop alive.
process.exit(0);
