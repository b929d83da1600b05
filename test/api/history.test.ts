import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revisionsCollection } from '../../src/resources/posts/post.model.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { autosaveItem, createItem, deleteItem, deleteRevisionOf, restoreRevisionOf, revisionsOf, updateItem } from '../support/http-posts.js';
import { givenTitleChanges } from '../support/post-fixtures.js';

let app: TestApp;
let editor: Awaited<ReturnType<TestApp['asRole']>>;
let contributor: Awaited<ReturnType<TestApp['asRole']>>;

beforeAll(async () => {
  app = await createTestApp();
  editor = await app.asRole('editor');
  contributor = await app.asRole('contributor');
});
afterAll(() => app?.stop());

const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

describe('GET /posts/<id>/history', () => {
  it('lists every change oldest first: who, when, what kind, which fields, which revision', async () => {
    const started = Date.now();
    // Another item's event first: positions count across the log, seqs within an item.
    await createItem(app, { title: 'Earlier' });
    const post = await createItem(app, { title: 'First', slug: 'first' });
    await updateItem(app, post.id, { title: 'Second' });
    // So that restoring the oldest revision (of 'Second') changes the item.
    await updateItem(app, post.id, { title: 'Third' });
    const autosave = await autosaveItem(app, post.id, { content: '<p>Draft by the editor.</p>' }, editor.headers);
    await deleteItem(app, post.id);
    await updateItem(app, post.id, { status: 'draft' });
    const oldest = (await revisionsOf(app, post.id)).at(-1)!;
    await restoreRevisionOf(app, post.id, oldest.id, { headers: editor.headers });

    const response = await app.api('GET', `/cms/v2/posts/${post.id}/history`, { headers: app.admin });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-wp-total')).toBe('7');
    expect(response.headers.get('x-wp-totalpages')).toBe('1');
    const entries = response.body as Record<string, any>[];
    expect(entries.map((entry) => [entry.seq, entry.type, entry.author])).toEqual([
      [1, 'created', 1],
      [2, 'updated', 1],
      [3, 'updated', 1],
      [4, 'autosaved', editor.id],
      [5, 'trashed', 1],
      [6, 'untrashed', 1],
      [7, 'restored', editor.id],
    ]);
    for (const entry of entries) {
      expect(entry.date_gmt).toMatch(DATE);
      expect(Date.parse(`${entry.date_gmt}Z`)).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
      expect(entry.redacted).toEqual([]);
      expect(entry._links.up).toEqual([{ href: `${app.apiRoot}/cms/v2/posts/${post.id}`, embeddable: true }]);
    }

    // Each entry's position on the log's one clock, as stored: rising with the item's seqs.
    const stored = await app.deps.store.db.collection<{ stream: number; seq: number; position: number }>('events').find({ stream: post.id }).sort({ stream: 1, seq: 1 }).toArray();
    expect(entries.map((entry) => entry.position)).toEqual(stored.map((row) => row.position));
    expect(entries.every((entry, index) => Number.isInteger(entry.position) && (index === 0 || entry.position > entries[index - 1].position))).toBe(true);

    const [created, updated, , autosaved, trashed, untrashed, restored] = entries;
    expect(created.fields).toEqual(expect.arrayContaining(['title', 'content', 'status', 'slug', 'date_gmt', 'modified_gmt', 'trashed_from', 'meta', 'categories', 'tags']));
    expect(created.fields).not.toContain('terms');
    expect(created.revision).toBeNull();
    expect(created._links).not.toHaveProperty('wp:revision');

    expect(updated.fields).toEqual(['title']);
    expect(updated.revision).toBe(oldest.id);
    expect(updated._links['wp:revision']).toEqual([{ href: `${app.apiRoot}/cms/v2/posts/${post.id}/revisions/${oldest.id}` }]);
    expect(updated._links.curies).toEqual([{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }]);

    // Not the author's: a revision of its own, not the draft changed in place.
    expect(autosave.id).not.toBe(post.id);
    // Only what the autosave was sent: it keeps a title and an excerpt too, empty, which it did not set.
    expect(autosaved.fields).toEqual(['content']);
    expect(autosaved.revision).toBe(autosave.id);
    expect(autosaved._links['wp:revision'][0].href).toBe(`${app.apiRoot}/cms/v2/posts/${post.id}/autosaves/${autosaved.revision}`);

    expect(trashed.fields.sort()).toEqual(['slug', 'status', 'trashed_from']);
    expect(untrashed.fields.sort()).toEqual(['slug', 'status', 'trashed_from']);
    expect(restored.fields.sort()).toEqual(['content', 'excerpt', 'title']);
    expect(typeof restored.revision).toBe('number');
  });

  it("names on an autosave's entries the fields each save was sent, and an autosave logged before they were recorded as setting all", async () => {
    const post = await createItem(app, { title: 'Carried', content: '<p>Body</p>', excerpt: 'Short', status: 'publish' });
    const first = await autosaveItem(app, post.id, { content: '<p>Body, autosaved</p>' }, editor.headers);
    await autosaveItem(app, post.id, { title: 'Carried, retitled', content: '<p>Body, autosaved again</p>' }, editor.headers);
    const route = `/cms/v2/posts/${post.id}/history`;
    const autosaves = async () => (await app.api('GET', route, { headers: app.admin })).body.filter((entry: { type: string }) => entry.type === 'autosaved');
    expect((await autosaves()).map((entry: { fields: string[]; revision: number }) => [entry.revision, entry.fields])).toEqual([
      [first.id, ['content']],
      [first.id, ['title', 'content']],
    ]);
    const events = app.deps.store.db.collection<{ _id: unknown; data: string }>('events');
    const stored = await events.find({ stream: post.id, type: 'autosaved' }).sort({ seq: 1 }).toArray();
    expect(JSON.parse(stored[0].data)).toMatchObject({ sent: ['content'], fields: { title: '', content: '<p>Body, autosaved</p>', excerpt: '' } });

    // As an event stored before autosaves recorded what they were sent reads: every field it keeps.
    for (const event of stored) {
      const { sent, ...data } = JSON.parse(event.data);
      expect(sent).toBeDefined();
      await events.updateOne({ _id: event._id }, { $set: { data: JSON.stringify(data) } });
    }
    expect((await autosaves()).map((entry: { fields: string[] }) => entry.fields)).toEqual([
      ['title', 'content', 'excerpt'],
      ['title', 'content', 'excerpt'],
    ]);
  });

  it('shows deletions of revisions, what they erased, and no link to a revision that is gone', async () => {
    const post = await createItem(app, { title: 'Kept' });
    await updateItem(app, post.id, { title: 'Soon forgotten' });
    await updateItem(app, post.id, { title: 'Kept again' });
    const forgotten = (await revisionsOf(app, post.id)).find((revision) => revision.title.raw === 'Soon forgotten')!;
    await deleteRevisionOf(app, post.id, forgotten.id);

    const { body } = await app.api('GET', `/cms/v2/posts/${post.id}/history`, { headers: app.admin });
    expect(body.map((entry: { type: string }) => entry.type)).toEqual(['created', 'updated', 'updated', 'revision_deleted']);
    expect(body[1]).toMatchObject({ revision: forgotten.id, redacted: ['title'], fields: ['title'] });
    expect(body[1]._links).not.toHaveProperty('wp:revision');
    expect(body[2]._links).toHaveProperty('wp:revision');
    expect(body[3]).toMatchObject({ fields: [], revision: null, redacted: [] });
  });

  it('serves pages under /pages, and each type only under its own route', async () => {
    const page = await createItem(app, { title: 'About' }, { type: 'page' });
    const post = await createItem(app);
    const pageHistory = await app.api('GET', `/cms/v2/pages/${page.id}/history`, { headers: app.admin });
    expect(pageHistory.status).toBe(200);
    expect(pageHistory.body[0]._links.up[0].href).toBe(`${app.apiRoot}/cms/v2/pages/${page.id}`);
    expect(pageHistory.body[0].fields).not.toContain('categories');

    for (const route of [`/cms/v2/posts/${page.id}/history`, `/cms/v2/pages/${post.id}/history`, '/cms/v2/posts/987654321/history']) {
      const response = await app.api('GET', route, { headers: app.admin });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ code: 'rest_post_invalid_id', message: 'Invalid post ID.', data: { status: 404 } });
    }
  });

  it('answers 404 for an item deleted for good, even though its log remains', async () => {
    const post = await createItem(app);
    await deleteItem(app, post.id, { force: true });
    const response = await app.api('GET', `/cms/v2/posts/${post.id}/history`, { headers: app.admin });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('rest_post_invalid_id');
  });

  it('is for those who may edit the item', async () => {
    const adminsPost = await createItem(app, { status: 'publish' });
    const own = await createItem(app, {}, { headers: contributor.headers });
    const route = (id: number) => `/cms/v2/posts/${id}/history`;
    const message = 'Sorry, you are not allowed to view the history of this post.';

    const anonymous = await app.api('GET', route(adminsPost.id));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ code: 'rest_cannot_read', message, data: { status: 401 } });

    const others = await app.api('GET', route(adminsPost.id), { headers: contributor.headers });
    expect(others.status).toBe(403);
    expect(others.body).toEqual({ code: 'rest_cannot_read', message, data: { status: 403 } });

    expect((await app.api('GET', route(own.id), { headers: contributor.headers })).status).toBe(200);
    expect((await app.api('GET', route(adminsPost.id), { headers: editor.headers })).status).toBe(200);
    // Unknown items are 404 before any permission question, as in WordPress's revisions controller.
    expect((await app.api('GET', route(987654321))).status).toBe(404);
  });

  it('pages with page and per_page (default 100) and the collection headers', async () => {
    const post = await createItem(app);
    await givenTitleChanges(app.deps, post.id, 24);
    const route = `/cms/v2/posts/${post.id}/history`;

    const all = await app.api('GET', route, { headers: app.admin });
    expect(all.body).toHaveLength(25);

    const first = await app.api('GET', route, { headers: app.admin, query: { per_page: 10 } });
    expect(first.body.map((entry: { seq: number }) => entry.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(first.headers.get('x-wp-total')).toBe('25');
    expect(first.headers.get('x-wp-totalpages')).toBe('3');
    expect(first.headers.get('link')).toContain(`<${app.apiRoot}${route}?per_page=10&page=2>; rel="next"`);
    expect(first.headers.get('link')).not.toContain('rel="prev"');

    const last = await app.api('GET', route, { headers: app.admin, query: { per_page: 10, page: 3 } });
    expect(last.body.map((entry: { seq: number }) => entry.seq)).toEqual([21, 22, 23, 24, 25]);
    expect(last.body[4]).toMatchObject({ type: 'updated', fields: ['title'], revision: null });
    expect(last.headers.get('link')).toContain(`<${app.apiRoot}${route}?per_page=10&page=2>; rel="prev"`);
    expect(last.headers.get('link')).not.toContain('rel="next"');

    const past = await app.api('GET', route, { headers: app.admin, query: { per_page: 10, page: 4 } });
    expect(past.status).toBe(400);
    expect(past.body).toEqual({
      code: 'rest_post_invalid_page_number',
      message: 'The page number requested is larger than the number of pages available.',
      data: { status: 400 },
    });

    const tooMany = await app.api('GET', route, { headers: app.admin, query: { per_page: 101 } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe('rest_invalid_param');
  });

  it('streams every event as NDJSON with Accept: application/x-ndjson, the same entries as the pages', { timeout: 120_000 }, async () => {
    const post = await createItem(app, { title: 'Streamed' });
    await updateItem(app, post.id, { title: 'Streamed, revised' });
    await autosaveItem(app, post.id, { title: 'An editor was here' }, editor.headers);
    await givenTitleChanges(app.deps, post.id, 2997, { project: false });
    const route = `/cms/v2/posts/${post.id}/history`;

    const streamed = await app.api('GET', route, { headers: { ...app.admin, Accept: 'application/x-ndjson' } });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(streamed.headers.get('x-wp-total')).toBeNull();
    expect(streamed.text.endsWith('\n')).toBe(true);
    const lines = streamed.text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(3000);
    const entries = lines.map((line) => JSON.parse(line));
    entries.forEach((entry, index) => {
      expect(entry.seq).toBe(index + 1);
      expect(entry.date_gmt).toMatch(DATE);
      expect(entry.author).toBe(index === 2 ? editor.id : 1);
    });
    expect(entries.slice(0, 3).map((entry) => entry.type)).toEqual(['created', 'updated', 'autosaved']);
    expect(entries.slice(3).every((entry) => entry.type === 'updated' && entry.fields.join() === 'title')).toBe(true);
    expect(entries[1]._links['wp:revision']).toHaveLength(1);
    expect(entries[2]._links['wp:revision'][0].href).toContain('/autosaves/');

    // Line for line what the paginated route returns (its first pages and its last).
    for (const page of [1, 2, 30]) {
      const response = await app.api('GET', route, { headers: app.admin, query: { page } });
      expect(response.body).toHaveLength(100);
      expect(entries.slice((page - 1) * 100, page * 100)).toEqual(response.body);
    }
  });

  it('describes itself to OPTIONS: the entry schema and the paging arguments', async () => {
    const post = await createItem(app);
    const { status, body } = await app.api('OPTIONS', `/cms/v2/posts/${post.id}/history`, { headers: app.admin });
    expect(status).toBe(200);
    expect(body.schema.title).toBe('history');
    expect(Object.keys(body.schema.properties)).toEqual(['seq', 'type', 'date_gmt', 'author', 'fields', 'revision', 'redacted', 'position', 'locked_by', 'scheduled_change']);
    expect(body.endpoints[0].args.per_page).toMatchObject({ default: 100, minimum: 1, maximum: 100 });
  });

  it('still refuses and 404s when streaming', async () => {
    const post = await createItem(app);
    const stream = { Accept: 'application/x-ndjson' };
    const anonymous = await app.api('GET', `/cms/v2/posts/${post.id}/history`, { headers: stream });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_cannot_read');
    const missing = await app.api('GET', '/cms/v2/posts/987654321/history', { headers: { ...app.admin, ...stream } });
    expect(missing.status).toBe(404);
  });
});

describe('history pages read their events by block of the log', () => {
  it('read the same from events stored before events kept their block, and from revision rows that moved on', async () => {
    const post = await createItem(app, { title: 'Blocked' });
    for (let change = 1; change <= 12; change++) await updateItem(app, post.id, { content: `<p>Change ${change}</p>` });
    await autosaveItem(app, post.id, { title: 'An editor, early' }, editor.headers);
    await givenTitleChanges(app.deps, post.id, 60);
    // The editor's autosave written again later: its row is in a later block than its first event.
    await autosaveItem(app, post.id, { title: 'An editor, later' }, editor.headers);
    const route = `/cms/v2/posts/${post.id}/history`;
    const pages = async () => Promise.all([1, 2, 3].map(async (page) => (await app.api('GET', route, { headers: app.admin, query: { page, per_page: 30 } })).body));
    const withBlocks = await pages();
    expect(withBlocks.flat()).toHaveLength(75);
    expect(withBlocks.flat().map((entry: { seq: number }) => entry.seq)).toEqual(Array.from({ length: 75 }, (_, index) => index + 1));
    const revisionLinks = withBlocks.flat().filter((entry: { _links: Record<string, unknown> }) => entry._links['wp:revision']);
    expect(revisionLinks.length).toBeGreaterThanOrEqual(14);

    await app.deps.store.db.collection('events').updateMany({ stream: post.id }, { $unset: { block: '' } });
    await revisionsCollection(app.deps.store.db).updateMany({ parent: post.id }, { $unset: { block: '' } });
    expect(await pages()).toEqual(withBlocks);
  });
});
