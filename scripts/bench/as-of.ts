/**
 * `npm run bench:as-of`: what an as-of read costs, on a small site and on a grown one seeded as
 * bench:scale seeds them (`scale-seed.ts`), each on a fresh embedded database.
 *
 *   npm run bench:as-of [-- --posts 10000 --revisions 100000 --events 200000 --probe-revisions 2000 --changed 50]
 *
 * On each site the point read is the log's last position once seeded; then `--changed` posts (the
 * probe among them) and the menu's items are updated over HTTP, so that an as-of list has that
 * many items changed since its point to fold. Each workload is answered 15 times in turn (after
 * two warm-up requests): median latency, and database commands per request, beside the live read.
 */
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { psql } from '../../src/store/database/postgresql.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { benchSites, MENU_ITEMS, seedSite, SITE_SIZE_OPTIONS, SMALL_POSTS } from './scale-seed.js';
import { benchDatabase, median, send, settle, startCountedService, type CountedService } from './service.js';

if (process.env.MONGODB_URI) {
  console.error('bench:as-of seeds two fresh embedded databases, one a site: unset MONGODB_URI.');
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    ...SITE_SIZE_OPTIONS,
    changed: { type: 'string', default: '50' },
  },
});
const changedPosts = Number(values.changed);
const ROUNDS = 15;
const WARM_UP = 2;
const grownPosts = Number(values.posts);
const probeRevisions = Number(values['probe-revisions']);
const sizes = benchSites({ posts: grownPosts, revisions: Number(values.revisions), events: Number(values.events), probeRevisions });

async function measure(service: CountedService, route: string): Promise<{ median: number; commands: number }> {
  for (let i = 0; i < WARM_UP; i++) await (await send(service.url, 'GET', route)).arrayBuffer();
  await settle(service);
  const before = await service.commands();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await (await send(service.url, 'GET', route)).arrayBuffer();
    samples.push(performance.now() - started);
  }
  return { median: median(samples), commands: ((await service.commands()) - before) / ROUNDS };
}

interface Row {
  name: string;
  small?: { median: number; commands: number };
  grown?: { median: number; commands: number };
}
const rows = new Map<string, Row>();
const cell = (result?: { median: number; commands: number }) => (result ? `${result.median.toFixed(1)} ms, ${result.commands.toFixed(1)} cmds` : '-');
const record = (label: string, name: string, result: { median: number; commands: number }) => {
  const row = rows.get(name) ?? { name };
  row[label as 'small' | 'grown'] = result;
  rows.set(name, row);
};

for (const size of sizes) {
  const { database, uri, stop } = await benchDatabase();
  try {
    const site = await seedSite(uri, size, { verifyReplay: false });
    if (database.postgres) await psql(database.postgres, 'ANALYZE;');
    const client = new MongoClient(uri);
    const point = (await changeLog(client.db()).firstFreePosition()) - 1;
    const pointTime = new Date(Date.now() + 1).toISOString();
    // A grown site's first start reads every stream's length: on a busy machine one round trip may take long.
    const service = await startCountedService(uri, { CMS_DATABASE_TIMEOUT_MS: '60000' });
    try {
      // Changes after the point: the probe, `--changed` other posts (the hot one first), every menu item once.
      const listed = (await (await send(service.url, 'GET', `/posts?per_page=100&context=edit&_fields=id`)).json()) as { id: number }[];
      const changed = [site.probe, site.hot, ...listed.map((post) => post.id).filter((id) => id !== site.probe && id !== site.hot)].slice(0, changedPosts);
      for (const id of changed) await send(service.url, 'POST', `/posts/${id}`, { title: `Changed after the point ${id}` });
      const items = (await (await send(service.url, 'GET', `/menu-items?menus=${site.menu}&per_page=100`)).json()) as { id: number }[];
      for (const item of items) await send(service.url, 'POST', `/menu-items/${item.id}`, { title: `Item changed ${item.id}` });
      const unchanged = listed.map((post) => post.id).find((id) => !changed.includes(id))!;
      const at = `as_of_position=${point}`;
      const workloads: [string, string][] = [
        ['live item GET /posts/<hot>?context=edit', `/posts/${site.hot}?context=edit`],
        ['as-of item, changed since (a few events to fold)', `/posts/${site.hot}?context=edit&${at}`],
        ['as-of item, unchanged since (its document)', `/posts/${unchanged}?context=edit&${at}`],
        [`as-of item, the probe (${probeRevisions} revisions to fold)`, `/posts/${site.probe}?context=edit&${at}`],
        ['as-of item by time (as_of=, binary search)', `/posts/${site.hot}?context=edit&as_of=${encodeURIComponent(pointTime)}`],
        ['live list GET /posts?context=edit&per_page=20', '/posts?context=edit&per_page=20'],
        [`as-of list, page 1 (${changed.length} posts changed since)`, `/posts?context=edit&per_page=20&${at}`],
        ['as-of list, page 5', `/posts?context=edit&per_page=20&page=5&${at}`],
        [`live menu items ?menus=<id> (${MENU_ITEMS})`, `/menu-items?menus=${site.menu}&per_page=100`],
        [`as-of menu items ?menus=<id> (all ${MENU_ITEMS} changed since)`, `/menu-items?menus=${site.menu}&per_page=100&${at}`],
      ];
      console.log(`${size.label} site: ${site.events} events seeded in ${site.seconds.toFixed(0)} s; read at position ${point}`);
      for (const [name, route] of workloads) {
        const result = await measure(service, route);
        record(size.label, name, result);
        console.log(`  ${name}: ${cell(result)}`);
      }
    } finally {
      await service.stop();
      await client.close();
    }
  } finally {
    await stop();
  }
}

console.log(`\n| workload | small (${SMALL_POSTS} posts) | grown (${grownPosts} posts) |\n| --- | --- | --- |`);
for (const row of rows.values()) console.log(`| ${row.name} | ${cell(row.small)} | ${cell(row.grown)} |`);
