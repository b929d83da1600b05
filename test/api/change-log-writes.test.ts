// Writes through the change-log kernel are all or nothing: a write answered with an error left
// nothing in the log, a write answered with success is in the log and in the projection.
import { describe, expect, it } from 'vitest';
import { resources } from '../../src/resources/index.js';
import { projectionsOf } from '../../src/resources/manifest.js';
import { postsCollection, revisionsCollection } from '../../src/resources/posts/post.model.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { runCommand } from '../../src/store/history/kernel.js';
import { postHistory } from '../../src/resources/posts/post.history.js';
import { type PostEvent } from '../../src/resources/posts/post.events.js';
import { rebuildProjections } from '../../src/store/projections/projections.js';
import { startServiceOn, testAppForFile, type TestApp } from '../support/test-app.js';

// A test app, and so a database, of its own for each describe: FerretDB scans a collection for
// most reads, and the 10 MB items of one group would slow every read of the next.

const db = (app: TestApp) => app.deps.store.db;
const log = (app: TestApp) => changeLog(db(app));
const MB = 1024 * 1024;
const text = (bytes: number, letter: string) => letter.repeat(bytes);

async function createPost(app: TestApp, headers: Record<string, string>, json: Record<string, unknown>): Promise<number> {
  const created = await app.api('POST', '/cms/v2/posts', { headers, json });
  expect(created.status, created.text.slice(0, 300)).toBe(201);
  return created.body.id as number;
}

describe('a write the database could not store', () => {
  const app = testAppForFile();

  it('is refused with 413 before anything is appended, leaving the post intact and writable (5 MB title, 5 MB content, then a 7 MB excerpt)', { timeout: 120_000 }, async () => {
    const contributor = await app.asRole('contributor');
    const id = await createPost(app, contributor.headers, { title: text(5 * MB, 't'), content: text(5 * MB, 'c') });
    const events = await log(app).countStream(id);

    const update = await app.api('POST', `/cms/v2/posts/${id}`, { headers: contributor.headers, json: { excerpt: text(7 * MB, 'e') } });
    expect(update.status).toBe(413);
    expect(update.body).toMatchObject({ code: 'rest_item_too_large', data: { status: 413 } });
    expect(await log(app).countStream(id)).toBe(events);

    const post = await app.api('GET', `/cms/v2/posts/${id}`, { headers: contributor.headers, query: { context: 'edit', _fields: 'excerpt,title' } });
    expect(post.status).toBe(200);
    expect(post.body.excerpt.raw).toBe('');
    expect(post.body.title.raw).toHaveLength(5 * MB);

    const small = await app.api('POST', `/cms/v2/posts/${id}`, { headers: contributor.headers, json: { excerpt: 'A short excerpt.' }, query: { _fields: 'excerpt' } });
    expect(small.status).toBe(200);
    expect(small.body.excerpt.raw).toBe('A short excerpt.');
    const deleted = await app.api('DELETE', `/cms/v2/posts/${id}`, { headers: contributor.headers, query: { _fields: 'status' } });
    expect(deleted.status).toBe(200);
  });

  it('refuses a number JSON cannot carry with 400, and stores nothing that would read back as null', async () => {
    const before = await db(app).collection('events').countDocuments();
    const response = await app.api('POST', '/cms/v2/pages', {
      headers: app.admin,
      raw: { body: '{"title":"inf","menu_order":1e400}', contentType: 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.data.status).toBe(400);
    expect(await db(app).collection('events').countDocuments()).toBe(before);
    expect(await postsCollection(db(app)).countDocuments({ title: 'inf' })).toBe(0);
  });
});

describe('a decision that is not one of its history type\'s events', () => {
  const app = testAppForFile();

  it('is refused before anything is appended: the fold would pass over it, leaving the item as it was', async () => {
    const id = await createPost(app, app.admin, { title: 'Typed' });
    const events = await log(app).countStream(id);
    const foreign = { type: 'template_saved', data: { title: 'Not a post event' } } as unknown as PostEvent;
    await expect(runCommand(app.deps, postHistory, id, 1, async () => foreign)).rejects.toThrow(/template_saved event is not one of its history type's/);
    expect(await log(app).countStream(id)).toBe(events);
  });
});

describe('concurrent writers', () => {
  const app = testAppForFile();

  it('eight clients updating two posts at once: no 5xx, every 2xx in the log and the projection, every error absent', { timeout: 180_000 }, async () => {
    const ids = [await createPost(app, app.admin, { title: 'Contended A' }), await createPost(app, app.admin, { title: 'Contended B' })];
    const editors = await Promise.all(Array.from({ length: 8 }, () => app.asRole('editor')));
    const outcomes: { id: number; title: string; status: number }[] = [];
    await Promise.all(
      editors.map(async (editor, client) => {
        for (let round = 0; round < 10; round++) {
          const id = ids[(client + round) % 2];
          const title = `client ${client} round ${round}`;
          const response = await app.api('POST', `/cms/v2/posts/${id}`, { headers: editor.headers, json: { title, content: `${title} content` }, query: { _fields: 'id' } });
          outcomes.push({ id, title, status: response.status });
        }
      }),
    );

    expect(outcomes.filter((outcome) => outcome.status >= 500)).toEqual([]);
    for (const id of ids) {
      const events = await log(app).readStream<{ changes?: { title?: string } }>(id);
      const logged = new Set(events.map((event) => event.data.changes?.title));
      for (const outcome of outcomes.filter((candidate) => candidate.id === id)) {
        expect(logged.has(outcome.title), `${outcome.title} answered ${outcome.status}`).toBe(outcome.status < 300);
      }
      const doc = (await postsCollection(db(app)).findOne({ _id: id }))!;
      expect(doc.version).toBe(events.length);
      expect(doc.title).toBe(events.at(-1)!.data.changes!.title);
      expect(doc.revisionCount).toBe(await revisionsCollection(db(app)).countDocuments({ parent: id }));
    }
    const before = await postsCollection(db(app)).find({ _id: { $in: ids } }).sort({ _id: 1 }).toArray();
    const revisions = await revisionsCollection(db(app)).find({ parent: { $in: ids } }).sort({ _id: 1 }).toArray();
    await rebuildProjections(db(app), log(app), projectionsOf(resources));
    expect(await postsCollection(db(app)).find({ _id: { $in: ids } }).sort({ _id: 1 }).toArray()).toEqual(before);
    expect(await revisionsCollection(db(app)).find({ parent: { $in: ids } }).sort({ _id: 1 }).toArray()).toEqual(revisions);
  });
});

describe('a stream of the change log that cannot be projected', () => {
  const app = testAppForFile();

  it('does not stop a restart: /readyz reports it, its item answers an error and takes no write, the rest is served', { timeout: 120_000 }, async () => {
    const healthy = await createPost(app, app.admin, { title: 'Unaffected', status: 'publish' });
    const broken = await createPost(app, app.admin, { title: text(5 * MB, 't'), content: text(5 * MB, 'c'), status: 'publish' });
    // An event stored before sizes were checked: its projection (17 MB) cannot be stored.
    const version = await log(app).countStream(broken);
    await log(app).append({ stream: broken, streamType: 'post', type: 'updated', at: new Date(), actor: 1, data: { changes: { excerpt: text(7 * MB, 'e') } } }, version);

    const restarted = await startServiceOn(app.databaseName);
    try {
      const health = await fetch(`${restarted.siteUrl}/readyz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'degraded', faults: [{ stream: broken, streamType: 'post', seq: version + 1 }] });

      const item = await fetch(`${restarted.siteUrl}/cms-json/cms/v2/posts/${broken}?_fields=id`);
      expect(item.status).toBe(500);
      expect(await item.json()).toMatchObject({ code: 'rest_item_unavailable', data: { status: 500 } });
      const write = await app.api('POST', `/cms/v2/posts/${broken}`, { headers: app.admin, json: { title: 'Fixed?' } });
      expect(write.body).toMatchObject({ code: 'rest_item_unavailable' });
      expect(await log(app).countStream(broken)).toBe(version + 1);

      const other = await fetch(`${restarted.siteUrl}/cms-json/cms/v2/posts/${healthy}?_fields=id,title`);
      expect(other.status).toBe(200);
      const list = await fetch(`${restarted.siteUrl}/cms-json/cms/v2/posts?_fields=id&per_page=100`);
      expect(list.status).toBe(200);
    } finally {
      await restarted.stop();
    }
  });
});
