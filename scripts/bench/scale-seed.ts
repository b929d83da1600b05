/**
 * The sites of `npm run bench:scale`, seeded in bulk through the service's own code. The API
 * writes the first items (the probe post, one update and one autosave of it, a menu of 50
 * items); their events are the templates every generated event copies, and the read models are
 * written by the posts projection's own `rebuildStream`, as `npm run projections:rebuild` would.
 */
import { isDeepStrictEqual } from 'node:util';
import cliProgress from 'cli-progress';
import { MongoClient, type Db } from 'mongodb';
import { formatRestDate, formatSiteDate } from '../../src/lib/site-dates.js';
import { sanitizeSlug } from '../../src/lib/slugs.js';
import { resources } from '../../src/resources/index.js';
import { projectionsOf } from '../../src/resources/manifest.js';
import { menuItemsCollection } from '../../src/resources/menu-items/menu-item.model.js';
import { type PostAutosaved, type PostChanged, type PostCreated } from '../../src/resources/posts/post.events.js';
import { postsCollection, revisionsCollection, type PostFields } from '../../src/resources/posts/post.model.js';
import { postsProjection } from '../../src/resources/posts/post.projection.js';
import { siteTimezone } from '../../src/resources/settings/index.js';
import { keepTermCountsFrom } from '../../src/resources/terms/index.js';
import { atPosition, changeLog, eventBlock, type StoredEvent } from '../../src/store/log/change-log.js';
import { rebuildProjections } from '../../src/store/projections/projections.js';
import { claimKey } from '../../src/store/coordination/sequences.js';
import { basic, BENCH_ADMIN_PASSWORD, startBenchService } from './service.js';

export interface SiteSize {
  label: string;
  /** Posts, the probe included. */
  posts: number;
  /** Revisions of the probe post (its HTTP update included). */
  probeRevisions: number;
  /** Revisions and further events (autosaves) of each other post, on average. */
  revisionsPerPost: number;
  fillerPerPost: number;
}

export interface SeededSite {
  probe: number;
  menu: number;
  /** A published post other than the probe: the load's target. */
  hot: number;
  /** What the hot post's revisions route lists: its revisions and its one autosave, if any (as WordPress's does). */
  hotRevisions: number;
  published: number;
  events: number;
  revisions: number;
  probeEvents: number;
  /** The highest content id the seed used: the service's next one must be above it. */
  lastSeededId: number;
  seconds: number;
}

export const MENU_ITEMS = 50;
/** The command-line options that size a bench's grown site (parseArgs), the goal by default. */
export const SITE_SIZE_OPTIONS = {
  posts: { type: 'string', default: '10000' },
  revisions: { type: 'string', default: '100000' },
  events: { type: 'string', default: '200000' },
  'probe-revisions': { type: 'string', default: '2000' },
} as const;

/** The small site's posts, whatever the grown site's size. */
export const SMALL_POSTS = 100;

/**
 * The two sites of a bench from its size options: a small one of 100 posts and a grown one of
 * `posts`, each other post getting the grown site's share of revisions and further events on both.
 */
export function benchSites(options: { posts: number; revisions: number; events: number; probeRevisions: number }): SiteSize[] {
  const others = options.posts - 1;
  const revisionsPerPost = Math.max(0, options.revisions - options.probeRevisions) / others;
  const fillerPerPost = Math.max(0, options.events - (options.posts + MENU_ITEMS + options.revisions + 1)) / others;
  const probeRevisions = options.probeRevisions;
  return [
    { label: 'small', posts: SMALL_POSTS, probeRevisions, revisionsPerPost, fillerPerPost },
    { label: 'grown', posts: options.posts, probeRevisions, revisionsPerPost, fillerPerPost },
  ];
}
const ADMIN_JSON = { ...basic('admin', BENCH_ADMIN_PASSWORD), 'Content-Type': 'application/json' };
const YEAR_MS = 365 * 24 * 3600_000;
const EVENT_BATCH = 1000;
const POSTS_PER_CHUNK = 100;
const REBUILD_CONCURRENCY = 4;
const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua enim minim veniam quis nostrud exercitation ullamco laboris nisi aliquip commodo consequat'.split(' ');

/** A small seeded generator (mulberry32): the same site on every run. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function paragraph(random: () => number, chars: number): string {
  const words: string[] = [];
  for (let length = 0; length < chars; length += words.at(-1)!.length + 1) words.push(WORDS[Math.floor(random() * WORDS.length)]);
  const text = words.join(' ');
  return `<!-- wp:paragraph -->\n<p>${text[0].toUpperCase()}${text.slice(1)}.</p>\n<!-- /wp:paragraph -->`;
}

/** Block content of about `bytes`: a heading and paragraphs of about 450 characters. */
function blockContent(random: () => number, bytes: number): string {
  const blocks = ['<!-- wp:heading -->\n<h2 class="wp-block-heading">Introduction</h2>\n<!-- /wp:heading -->'];
  while (blocks.join('\n\n').length < bytes - 450) blocks.push(paragraph(random, 400));
  return blocks.join('\n\n');
}

const edited = (content: string, edit: number) => `${content}\n\n<!-- wp:paragraph -->\n<p>Edited (${edit}).</p>\n<!-- /wp:paragraph -->`;

async function api(url: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/cms-json/cms/v2${path}`, { method, headers: ADMIN_JSON, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`seeding: ${method} ${path} answered ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** What the API writes first: the probe post (created, updated once, autosaved once) and the menu. */
async function seedThroughApi(uri: string): Promise<{ probe: number; menu: number }> {
  const service = await startBenchService(uri, { CMS_WORKERS: '1' });
  try {
    const random = randomFrom(1);
    const probe = Number(
      (await api(service.url, 'POST', '/posts', {
        title: 'Probe post',
        content: blockContent(random, 2048),
        status: 'publish',
        categories: [1],
        date: formatRestDate(new Date(Date.now() - 3 * YEAR_MS)),
      })).id,
    );
    await api(service.url, 'POST', `/posts/${probe}`, { title: 'Probe post, revised' });
    await api(service.url, 'POST', `/posts/${probe}/autosaves`, { title: 'Probe post, revised', content: 'An autosave of the probe.', excerpt: '' });
    const menu = Number((await api(service.url, 'POST', '/menus', { name: 'Main', locations: ['primary'] })).id);
    for (let i = 1; i <= MENU_ITEMS; i++) {
      const item = i % 2 ? { title: `Link ${i}`, url: `https://example.org/${i}` } : { type: 'post_type', object: 'post', object_id: probe };
      await api(service.url, 'POST', '/menu-items', { ...item, menus: menu, menu_order: i });
    }
    return { probe, menu };
  } finally {
    await service.stop();
  }
}

const REVISIONED = new Set(['title', 'content', 'excerpt']);
const shapeOf = (data: Record<string, unknown>, nested: string) =>
  `${Object.keys(data).sort().join(',')} / ${Object.keys(data[nested] as object).filter((key) => !REVISIONED.has(key)).sort().join(',')}`;

/** Fails when generated event data is not shaped as the API's event of that type (its revisioned fields aside). */
function assertShapedAs(learned: StoredEvent, generated: object, nested: string): void {
  const [want, got] = [shapeOf(learned.data, nested), shapeOf(generated as Record<string, unknown>, nested)];
  if (want !== got) throw new Error(`seeding: a generated ${learned.type} event (${got}) is not shaped as the API's (${want})`);
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

interface EventRow {
  stream: number;
  streamType: string;
  type: string;
  at: Date;
  actor: number;
  data: string;
  seq: number;
  block: string;
  position: number;
  positionBlock: number;
}

/** Seeds `size` on the database at `uri`: the API first, then everything else in bulk. */
export async function seedSite(uri: string, size: SiteSize, options: { verifyReplay: boolean }): Promise<SeededSite> {
  const started = performance.now();
  const { probe, menu } = await seedThroughApi(uri);
  const client = new MongoClient(uri);
  try {
    const db = client.db();
    const seeded = await seedInBulk(db, size, probe, menu);
    if (options.verifyReplay) await assertReplayReproduces(db);
    return { ...seeded, seconds: (performance.now() - started) / 1000 };
  } finally {
    await client.close();
  }
}

async function seedInBulk(db: Db, size: SiteSize, probe: number, menu: number): Promise<Omit<SeededSite, 'seconds'>> {
  const log = changeLog(db);
  const probeLog = await log.readStream(probe);
  const learned = {
    created: probeLog.find((event) => event.type === 'created')!,
    updated: probeLog.find((event) => event.type === 'updated')!,
    autosaved: probeLog.find((event) => event.type === 'autosaved')!,
  };
  const template = (learned.created.data as unknown as PostCreated).fields;
  const admin = learned.created.actor;
  const timezone = await siteTimezone({ store: { db } });
  const top = await db.collection<{ _id: string }>('id_claims').find({ _id: { $gte: 'content:', $lt: 'content;' } }).sort({ _id: -1 }).limit(1).next();
  let lastId = Number(top!._id.slice('content:'.length));
  const claims: { _id: string }[] = [];
  const nextId = () => {
    claims.push({ _id: claimKey('content', ++lastId) });
    return lastId;
  };
  const siteDates = (at: Date) => ({ local: formatSiteDate(at, timezone)!, gmt: formatRestDate(at)! });

  const others = size.posts - 1;
  const updatesOf = (k: number) => Math.floor((k + 1) * size.revisionsPerPost) - Math.floor(k * size.revisionsPerPost);
  const autosavesOf = (k: number) => Math.floor((k + 1) * size.fillerPerPost) - Math.floor(k * size.fillerPerPost);
  let total = 0;
  for (let k = 0; k < others; k++) total += 1 + updatesOf(k) + autosavesOf(k);
  total += size.probeRevisions - 1;
  const bar = new cliProgress.SingleBar(
    { noTTYOutput: true, notTTYSchedule: 5000, format: `seeding ${size.label} [{bar}] {percentage}% | {value}/{total} events | ETA {eta}s` },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);

  const rows: EventRow[] = [];
  const streams: StoredEvent[][] = [];
  // Positions as the service gives them, so that the grown site has nothing to upgrade.
  let position = (await log.firstFreePosition()) - 1;
  const append = (stream: StoredEvent[], id: number, type: string, at: Date, data: object) => {
    const seq = stream.length + 1;
    const row: EventRow = { stream: id, streamType: 'post', type, at, actor: admin, data: JSON.stringify(data), seq, block: eventBlock(id, seq), ...atPosition(++position) };
    // As the log reads it back (`change-log.ts`): the data parsed from its stored JSON.
    stream.push({ stream: row.stream, streamType: row.streamType, seq: row.seq, type, at, actor: admin, data: JSON.parse(row.data) as Record<string, unknown>, position: row.position });
    rows.push(row);
  };
  const flush = async () => {
    for (let start = 0; start < rows.length; start += EVENT_BATCH) await db.collection<EventRow>('events').insertMany(rows.slice(start, start + EVENT_BATCH));
    for (let start = 0; start < claims.length; start += EVENT_BATCH) await db.collection<{ _id: string }>('id_claims').insertMany(claims.slice(start, start + EVENT_BATCH));
    let next = 0;
    const rebuild = async () => {
      while (next < streams.length) await postsProjection.rebuildStream!(db, streams[next++]);
    };
    await Promise.all(Array.from({ length: REBUILD_CONCURRENCY }, rebuild));
    bar.increment(rows.length);
    rows.length = 0;
    claims.length = 0;
    streams.length = 0;
  };

  // The probe: its updates carry on from the API's, each an edit of its content, a millisecond apart.
  const probeStream = [...probeLog];
  const probeContent = (learned.created.data as unknown as PostCreated).fields.content;
  const firstAt = probeLog.at(-1)!.at.getTime();
  for (let edit = 1; edit < size.probeRevisions; edit++) {
    const at = new Date(firstAt + edit);
    const dates = siteDates(at);
    const data: PostChanged = { changes: { content: edited(probeContent, edit), modified: dates.local, modifiedGmt: dates.gmt }, revisionId: nextId() };
    assertShapedAs(learned.updated, data, 'changes');
    append(probeStream, probe, 'updated', at, data);
  }
  // Its read model is written again from the whole stream, as a rebuild writes it.
  await postsCollection(db).deleteOne({ _id: probe });
  await revisionsCollection(db).deleteMany({ parent: probe });
  streams.push(probeStream);
  await flush();

  const random = randomFrom(2);
  const now = Date.now();
  let published = 1;
  let revisions = size.probeRevisions;
  let hot = 0;
  let hotRevisions = 0;
  for (let k = 0; k < others; k++) {
    const id = nextId();
    const status = k % 50 < 4 ? 'draft' : k % 50 === 4 ? 'private' : 'publish';
    const createdAt = new Date(now - 24 * 3600_000 - Math.floor(random() * 5 * YEAR_MS));
    const created = siteDates(createdAt);
    const title = `Post ${k + 1}: ${WORDS[k % WORDS.length]} ${WORDS[(k * 7) % WORDS.length]}`;
    const content = blockContent(random, 1024);
    const fields: PostFields = {
      ...template,
      status,
      title,
      content,
      slug: status === 'draft' ? '' : sanitizeSlug(title),
      date: created.local,
      dateGmt: status === 'draft' ? null : created.gmt,
      modified: created.local,
      modifiedGmt: created.gmt,
      guid: template.guid.replace(/\d+$/, String(id)),
    };
    const stream: StoredEvent[] = [];
    append(stream, id, 'created', createdAt, { fields } satisfies PostCreated);

    const updates = updatesOf(k);
    const kinds = shuffle([...Array<string>(updates).fill('updated'), ...Array<string>(autosavesOf(k)).fill('autosaved')], random);
    const times = kinds.map(() => createdAt.getTime() + Math.floor(random() * (now - 60_000 - createdAt.getTime()))).sort((a, b) => a - b);
    let current = content;
    let autosaveId = 0;
    kinds.forEach((kind, n) => {
      const at = new Date(times[n]);
      const dates = siteDates(at);
      let data: PostChanged | PostAutosaved;
      if (kind === 'updated') {
        current = edited(content, n + 1);
        data = { changes: { content: current, modified: dates.local, modifiedGmt: dates.gmt }, revisionId: nextId() } satisfies PostChanged;
        assertShapedAs(learned.updated, data, 'changes');
      } else if (status === 'draft') {
        // A draft's own author autosaves into the draft itself.
        data = { inPlace: true, changes: { title, content: `${current}\n<!-- autosave ${n + 1} -->`, modified: dates.local, modifiedGmt: dates.gmt } } satisfies PostAutosaved;
      } else {
        const isNew = autosaveId === 0;
        if (isNew) autosaveId = nextId();
        data = { inPlace: false, autosaveId, isNew, fields: { title, content: `${current}\n<!-- autosave ${n + 1} -->`, excerpt: '' }, date: dates.local, dateGmt: dates.gmt } satisfies PostAutosaved;
        assertShapedAs(learned.autosaved, data, 'fields');
      }
      append(stream, id, kind, at, data);
    });
    streams.push(stream);
    revisions += updates;
    if (status === 'publish') {
      published++;
      if (!hot) [hot, hotRevisions] = [id, updates + (autosaveId ? 1 : 0)];
    }
    if (streams.length === POSTS_PER_CHUNK) await flush();
  }
  await flush();
  bar.stop();

  // Term counts as the service keeps them, begun again from the items written in bulk.
  await keepTermCountsFrom(db, new Date(), { replace: true });
  const events = await db.collection('events').countDocuments({});
  return { probe, menu, hot, hotRevisions, published, events, revisions, probeEvents: probeStream.length, lastSeededId: lastId };
}

/** Replays the log into fresh read models (`npm run projections:rebuild`) and fails unless they equal the seeded ones. */
async function assertReplayReproduces(db: Db): Promise<void> {
  const snapshot = async () => ({
    posts: await postsCollection(db).find({ type: 'post' }).sort({ _id: 1 }).toArray(),
    revisions: await revisionsCollection(db).find({}).sort({ _id: 1 }).toArray(),
    menuItems: await menuItemsCollection(db).find({}).sort({ _id: 1 }).toArray(),
  });
  const seeded = await snapshot();
  await rebuildProjections(db, changeLog(db), projectionsOf(resources));
  const replayed = await snapshot();
  for (const name of ['posts', 'revisions', 'menuItems'] as const) {
    const differing = seeded[name].findIndex((doc, i) => !isDeepStrictEqual(doc, replayed[name][i]));
    if (differing >= 0 || seeded[name].length !== replayed[name].length) {
      throw new Error(`seeding: a replay of the log does not reproduce the seeded ${name} (first difference: ${JSON.stringify(seeded[name][differing])?.slice(0, 300)})`);
    }
  }
  console.log(`replay check: projections:rebuild reproduces the seeded posts, revisions and menu items (${seeded.posts.length} posts, ${seeded.revisions.length} revisions)`);
}
