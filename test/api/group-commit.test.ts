import { describe, expect, it } from 'vitest';
import { type SiteHooks } from '../../src/deps.js';
import { resources } from '../../src/resources/index.js';
import { projectionsOf } from '../../src/resources/manifest.js';
import { postsCollection, revisionsCollection } from '../../src/resources/posts/post.model.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { rebuildProjections } from '../../src/store/projections/projections.js';
import { twoServicesOnOneDatabase } from '../support/test-app.js';

// Commands on one item waiting in a process at once are appended together (group commit). Each
// is still answered as if it had run alone: these drive bursts at one post, through two
// processes racing for its next seq, and hold every answer against the log.
const services = twoServicesOnOneDatabase();

interface EventRow {
  stream: number;
  seq: number;
  type: string;
  actor: number;
  data: string;
}

const send = async (siteUrl: string, route: string, headers: Record<string, string>, json: unknown) => {
  const response = await fetch(`${siteUrl}/cms-json/cms/v2${route}`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as any };
};

const eventsOf = (post: number) =>
  services.app.deps.store.db.collection<EventRow>('events').find({ stream: post }).sort({ stream: 1, seq: 1 }).toArray();

/** The marker an update (its title) or an autosave (its content) carried, read from its event. */
const markerOf = (event: EventRow) => {
  const data = JSON.parse(event.data) as { changes?: { title?: string }; fields?: { content?: string } };
  return event.type === 'autosaved' ? data.fields?.content : data.changes?.title;
};

describe('writes to one post in bursts, through two processes', () => {
  it('follows each committed update with the after-write hooks once, with the post just before and after its event, also when they went in together, and a refused one not at all', async () => {
    const { app } = services;
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Followed', status: 'publish' } });
    const post = created.body.id as number;
    const hooks = app.deps.hooks as { -readonly [K in keyof SiteHooks]: SiteHooks[K] };
    const afterPostWrite = hooks.afterPostWrite;
    const seen: { before: number | undefined; after: number | undefined }[] = [];
    hooks.afterPostWrite = async (deps, write) => {
      const version = (item: unknown) => (item as { version?: number } | null)?.version;
      if ((write.after ?? write.before)?._id === post) seen.push({ before: version(write.before), after: version(write.after) });
      await afterPostWrite(deps, write);
    };
    try {
      const answers = await Promise.all(Array.from({ length: 16 }, (_, n) => send(app.siteUrl, `/posts/${post}`, app.admin, { title: `Followed ${n}` })));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      // Refused: nothing committed, nothing followed.
      const stale = await send(app.siteUrl, `/posts/${post}`, { ...app.admin, 'If-Match': '"1"' }, { title: 'Refused' });
      expect(stale.status).toBe(412);
    } finally {
      hooks.afterPostWrite = afterPostWrite;
    }
    const updates = (await eventsOf(post)).filter((event) => event.type === 'updated').map((event) => event.seq);
    expect(updates).toHaveLength(16);
    // Once per event, each from the version before it: a batch is followed command by command.
    expect(seen.sort((a, b) => a.after! - b.after!)).toEqual(updates.map((seq) => ({ before: seq - 1, after: seq })));
  });

  it('answers each autosave and update as the log holds it: every 2xx once and in order, no error written', async () => {
    const { app, other } = services;
    const sites = [app.siteUrl, other.siteUrl];
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Hot', content: 'Start', status: 'publish' } });
    const post = created.body.id as number;

    const answers: { marker: string; status: number; body: any }[] = [];
    for (let round = 0; round < 4; round++) {
      // An update first makes the post busy, so the autosaves queue behind it and go in together.
      const burst = Array.from({ length: 16 }, (_, n) => {
        const update = n % 8 === 0;
        const marker = `round ${round} ${update ? 'update' : 'autosave'} ${n}`;
        const request = update
          ? send(sites[n % 2], `/posts/${post}`, app.admin, { title: marker })
          : send(sites[n % 2], `/posts/${post}/autosaves`, app.admin, { title: 'Hot', content: marker });
        return request.then(({ status, body }) => answers.push({ marker, status, body }));
      });
      await Promise.all(burst);
    }

    const events = (await eventsOf(post)).slice(1);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 2));
    const logged = events.map(markerOf);
    for (const answer of answers) {
      const times = logged.filter((marker) => marker === answer.marker).length;
      expect(times, answer.marker).toBe(answer.status < 300 ? 1 : 0);
      if (answer.status >= 300) continue;
      // Each answer is the item (or autosave) as its own event left it.
      if (answer.marker.includes('update')) expect(answer.body.title.raw).toBe(answer.marker);
      else expect(answer.body.content.raw).toBe(answer.marker);
    }
    expect(answers.filter((answer) => answer.status < 300).length).toBeGreaterThanOrEqual(answers.length - 2);

    // One autosave per user, holding the last one logged; the post as the last update left it.
    const autosaves = await app.api('GET', `/cms/v2/posts/${post}/autosaves`, { headers: app.admin, query: { context: 'edit' } });
    expect(autosaves.body).toHaveLength(1);
    expect(autosaves.body[0].content.raw).toBe(markerOf(events.filter((event) => event.type === 'autosaved').at(-1)!));
    const item = await app.api('GET', `/cms/v2/posts/${post}`, { headers: app.admin, query: { context: 'edit' } });
    expect(item.body.title.raw).toBe(markerOf(events.filter((event) => event.type === 'updated').at(-1)!));
    const revisions = await app.api('GET', `/cms/v2/posts/${post}/revisions`, { headers: app.admin, query: { per_page: 100 } });
    // Every update changed the title, so each made a revision; the autosave is listed with them.
    expect(revisions.body).toHaveLength(events.filter((event) => event.type === 'updated').length + 1);
  });

  it("keeps one autosave per user when the user's first autosaves of a post go in together", async () => {
    const { app, other } = services;
    for (let trial = 0; trial < 4; trial++) {
      const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: `Fresh ${trial}`, status: 'publish' } });
      const post = created.body.id as number;
      // An update sent to each process first makes the post busy there, so the autosaves queue behind it.
      const statuses = await Promise.all([
        ...[app.siteUrl, other.siteUrl].map((site) => send(site, `/posts/${post}`, app.admin, { title: `Busy ${trial} ${site}` }).then((answer) => answer.status)),
        ...Array.from({ length: 12 }, (_, n) =>
          send([app.siteUrl, other.siteUrl][n % 2], `/posts/${post}/autosaves`, app.admin, { title: 'Fresh', content: `first autosaves ${n}` }).then((answer) => answer.status)),
      ]);
      expect(statuses.every((status) => status < 300)).toBe(true);
      const autosaves = await app.api('GET', `/cms/v2/posts/${post}/autosaves`, { headers: app.admin });
      expect(autosaves.body).toHaveLength(1);
      const revisions = await app.api('GET', `/cms/v2/posts/${post}/revisions`, { headers: app.admin });
      expect(revisions.body).toHaveLength(3);
    }
  });

  // Last: it rebuilds every projection of the database.
  it('projects what went in together exactly as a replay of the log does', { timeout: 120_000 }, async () => {
    const { app, other } = services;
    const editor = await app.asRole('editor');
    const posts: number[] = [];
    for (const title of ['One', 'Two', 'Three']) posts.push((await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title, status: 'draft' } })).body.id);
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    for (let round = 0; round < 12; round++) {
      const post = pick(posts);
      const burst = Array.from({ length: 2 + Math.floor(next() * 6) }, (_, n) => {
        const site = pick([app.siteUrl, other.siteUrl]);
        const headers = pick([app.admin, editor.headers]);
        const words = `round ${round} change ${n}`;
        if (next() < 0.5) return send(site, `/posts/${post}/autosaves`, headers, { title: pick(['One', 'Two', words]), content: words });
        const changes: Record<string, unknown> = { title: pick(['One', 'Two', words]) };
        if (next() < 0.5) changes.content = pick(['', words]);
        if (next() < 0.3) changes.excerpt = words;
        if (next() < 0.2) changes.status = pick(['draft', 'publish', 'pending']);
        return send(site, `/posts/${post}`, headers, changes);
      });
      await Promise.all(burst);
    }
    const db = app.deps.store.db;
    const readModels = async () => ({
      posts: await postsCollection(db).find({ _id: { $in: posts } }).sort({ _id: 1 }).toArray(),
      revisions: await revisionsCollection(db).find({ parent: { $in: posts } }).sort({ _id: 1 }).toArray(),
    });
    const live = await readModels();
    expect(live.revisions.some((row) => row.kind === 'autosave')).toBe(true);
    await rebuildProjections(db, changeLog(db), projectionsOf(resources));
    expect(await readModels()).toEqual(live);
  });
});
