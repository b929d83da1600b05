import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeLog } from '../../src/store/change-log.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

type Actor = Awaited<ReturnType<TestApp['asRole']>>;

const ENV = { CMS_WEBHOOKS_ALLOW_ADDRESSES: '127.0.0.1', CMS_WEBHOOKS_POLL_MS: '50', CMS_WEBHOOKS_TIMEOUT_MS: '2000' };

let app: TestApp;
let receiver: WebhookReceiver;
let author: Actor;
let editor: Actor;

beforeAll(async () => {
  app = await createTestApp({ env: ENV });
  receiver = await startReceiver();
  author = await app.asRole('author');
  editor = await app.asRole('editor');
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

/** The last position handed out so far: where a test's own changes start. */
const head = async () => (await changeLog(app.deps.store.db).firstFreePosition()) - 1;

async function createPost(who: Actor, base = 'posts'): Promise<number> {
  const response = await app.api('POST', `/cms/v2/${base}`, { headers: who.headers, json: { title: 'Locked', status: 'draft' } });
  expect(response.status).toBe(201);
  return response.body.id;
}

const take = (who: Actor, path: string, json: Record<string, unknown> = {}) => app.api('POST', `/cms/v2/${path}/lock`, { headers: who.headers, json });
const release = (who: Actor, path: string) => app.api('DELETE', `/cms/v2/${path}/lock`, { headers: who.headers });
const changes = (query: Record<string, string | number | string[]>, headers: Record<string, string> = app.admin) => app.api('GET', '/cms/v2/changes', { query, headers });
type Change = Record<string, any>;
const ofItem = (id: number) => (change: Change) => change.item === id;

describe('lock events in the change feed', () => {
  it('shows a take, a take-over naming the holder before, and a release, in order with the item\'s own changes', async () => {
    const since = await head();
    const id = await createPost(author);
    expect((await take(author, `posts/${id}`)).status).toBe(200);
    // A refresh by the holder is no event.
    expect((await take(author, `posts/${id}`)).status).toBe(200);
    expect((await take(editor, `posts/${id}`, { take_over: true })).status).toBe(200);
    expect((await release(editor, `posts/${id}`)).status).toBe(200);
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: author.headers, json: { title: 'After' } })).status).toBe(200);

    const page = await changes({ since });
    expect(page.status).toBe(200);
    const listed = (page.body.changes as Change[]).filter(ofItem(id));
    expect(listed.map((change) => [change.type, change.item_type, change.author, change.holder, change.previous_holder])).toEqual([
      ['created', 'post', author.id, undefined, undefined],
      ['lock.taken', 'post', author.id, author.id, undefined],
      ['lock.taken_over', 'post', editor.id, editor.id, author.id],
      ['lock.released', 'post', editor.id, editor.id, undefined],
      ['updated', 'post', author.id, undefined, undefined],
    ]);
    const positions = listed.map((change) => change.position as number);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
  });

  it('leaves the item\'s history, version and entity tag as they were', async () => {
    const id = await createPost(author);
    const before = await app.api('GET', `/cms/v2/posts/${id}`, { headers: author.headers, query: { context: 'edit' } });
    expect((await take(author, `posts/${id}`)).status).toBe(200);
    expect((await take(editor, `posts/${id}`, { take_over: true })).status).toBe(200);
    expect((await release(editor, `posts/${id}`)).status).toBe(200);
    const after = await app.api('GET', `/cms/v2/posts/${id}`, { headers: author.headers, query: { context: 'edit' } });
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(after.headers.get('etag')).toBeTruthy();
    const history = await app.api('GET', `/cms/v2/posts/${id}/history`, { headers: author.headers });
    expect((history.body as Change[]).map((entry) => entry.type)).toEqual(['created']);
    const revisions = await app.api('GET', `/cms/v2/posts/${id}/revisions`, { headers: author.headers });
    expect(revisions.body).toEqual([]);
  });

  it('is filtered by item type and by kind, and shown only to who may read the item\'s history', async () => {
    const since = await head();
    const post = await createPost(author);
    const page = await createPost(editor, 'pages');
    expect((await take(author, `posts/${post}`)).status).toBe(200);
    expect((await take(editor, `pages/${page}`)).status).toBe(200);

    const pages = (await changes({ since, types: ['page'] })).body.changes as Change[];
    expect(pages.filter((change) => change.type.startsWith('lock.')).map((change) => change.item)).toEqual([page]);
    const takes = (await changes({ since, subtypes: ['lock.taken'] })).body.changes as Change[];
    expect(takes.map((change) => [change.item, change.type])).toEqual([
      [post, 'lock.taken'],
      [page, 'lock.taken'],
    ]);
    expect(((await changes({ since, subtypes: ['created'] })).body.changes as Change[]).some((change) => change.type.startsWith('lock.'))).toBe(false);
    // The author may not read the editor's draft page's history, and no one anonymous sees who edits what.
    const asAuthor = (await changes({ since }, author.headers)).body.changes as Change[];
    expect(asAuthor.filter((change) => change.type.startsWith('lock.')).map((change) => change.item)).toEqual([post]);
    const anonymous = (await changes({ since }, {})).body.changes as Change[];
    expect(anonymous.filter((change) => change.type.startsWith('lock.'))).toEqual([]);
  });

  it('wakes a long poll', async () => {
    const id = await createPost(author);
    const since = await head();
    const polled = changes({ since, feed: 'longpoll', timeout: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    expect((await take(author, `posts/${id}`)).status).toBe(200);
    const page = await polled;
    expect(performance.now() - started).toBeLessThan(10_000);
    expect((page.body.changes as Change[]).map((change) => [change.item, change.type])).toEqual([[id, 'lock.taken']]);
  });

  it('is delivered to webhooks subscribed to it, naming the item and the holders', async () => {
    const hook = await app.api('POST', '/cms/v2/webhooks', { headers: app.admin, json: { url: receiver.url, events: ['lock.taken_over'] } });
    expect(hook.status, hook.text).toBe(201);
    try {
      const id = await createPost(author);
      expect((await take(author, `posts/${id}`)).status).toBe(200);
      expect((await take(editor, `posts/${id}`, { take_over: true })).status).toBe(200);
      const [delivered] = await receiver.waitFor((request) => request.json.data.item?.id === id);
      expect(delivered.json).toMatchObject({
        type: 'lock.taken_over',
        data: { item: { id, type: 'post', href: `${app.apiRoot}/cms/v2/posts/${id}` }, holder: editor.id, previous_holder: author.id },
      });
      // Subscribed to take-overs only: the take before it was not sent.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received.filter((request) => request.json.data.item?.id === id).map((request) => request.json.type)).toEqual(['lock.taken_over']);
    } finally {
      await app.api('DELETE', `/cms/v2/webhooks/${hook.body.id}`, { headers: app.admin, query: { force: true } });
    }
  });
});

describe('a write while another holds the lock', () => {
  it('goes through, and its history entry and feed change name the holder', async () => {
    const id = await createPost(author);
    const since = await head();
    expect((await take(editor, `posts/${id}`, { take_over: true })).status).toBe(200);
    const written = await app.api('POST', `/cms/v2/posts/${id}`, { headers: author.headers, json: { title: 'Written anyway' } });
    expect(written.status).toBe(200);
    expect(written.body.title.raw).toBe('Written anyway');
    // The holder's own write records nothing.
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: editor.headers, json: { title: 'By the holder' } })).status).toBe(200);

    const history = await app.api('GET', `/cms/v2/posts/${id}/history`, { headers: author.headers });
    expect((history.body as Change[]).map((entry) => [entry.type, entry.author, entry.locked_by])).toEqual([
      ['created', author.id, undefined],
      ['updated', author.id, editor.id],
      ['updated', editor.id, undefined],
    ]);
    const feed = (await changes({ since, subtypes: ['updated'] })).body.changes as Change[];
    expect(feed.filter(ofItem(id)).map((change) => [change.author, change.locked_by])).toEqual([
      [author.id, editor.id],
      [editor.id, undefined],
    ]);
  });

  it('records the holder on a menu item\'s change too', async () => {
    const menu = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: `Locked menu ${Date.now()}` } });
    expect(menu.status, menu.text).toBe(201);
    const item = await app.api('POST', '/cms/v2/menu-items', { headers: app.admin, json: { title: 'Home', url: 'https://example.com/', menus: menu.body.id } });
    expect(item.status, item.text).toBe(201);
    const id = item.body.id as number;
    // Menu items are edited by who may edit the theme's options: another administrator.
    const other = await app.asRole('administrator');
    expect((await take(other, `menu-items/${id}`)).status).toBe(200);
    expect((await app.api('POST', `/cms/v2/menu-items/${id}`, { headers: app.admin, json: { title: 'Start' } })).status).toBe(200);
    const history = await app.api('GET', `/cms/v2/menu-items/${id}/history`, { headers: app.admin });
    expect((history.body as Change[]).map((entry) => [entry.type, entry.locked_by])).toEqual([
      ['created', undefined],
      ['updated', other.id],
    ]);
  });

  it('records the holder on a template\'s change too', async () => {
    const other = await app.asRole('administrator');
    const path = 'templates/cornerstone//archive';
    // Customized first: a theme's file, never customized, has no lock.
    expect((await app.api('POST', `/cms/v2/${path}`, { headers: app.admin, json: { content: 'customized' } })).status).toBe(200);
    expect((await take(other, path)).status).toBe(200);
    expect((await app.api('POST', `/cms/v2/${path}`, { headers: app.admin, json: { content: 'customized again' } })).status).toBe(200);
    const history = await app.api('GET', `/cms/v2/${path}/history`, { headers: app.admin });
    expect((history.body as Change[]).map((entry) => [entry.type, entry.locked_by])).toEqual([
      ['created', undefined],
      ['updated', other.id],
    ]);
  });

  it('fails before anything is stored when the lock cannot be read: the lock is part of the write\'s decision', async () => {
    const id = await createPost(author);
    // A lock the service cannot read (its lapse is no date): reading it throws, as a database gone away would.
    const now = new Date();
    await app.deps.store.db
      .collection('edit_locks')
      .insertOne({ _id: `post:${id}` as never, item: `post:${id}`, generation: 1, user: editor.id, since: now, refreshedAt: now, lapsesAt: 'unreadable' });
    const written = await app.api('POST', `/cms/v2/posts/${id}`, { headers: author.headers, json: { title: 'Not stored' } });
    expect(written.status).toBeGreaterThanOrEqual(500);
    const history = await app.api('GET', `/cms/v2/posts/${id}/history`, { headers: author.headers });
    expect((history.body as Change[]).map((entry) => entry.type)).toEqual(['created']);
    expect((await app.api('GET', `/cms/v2/posts/${id}`, { headers: author.headers })).body.title.rendered).toBe('Locked');
  });
});
