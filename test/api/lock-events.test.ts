import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources as serviceResources } from '../../src/resources/index.js';
import { startScheduler } from '../../src/resources/posts/post.scheduler.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { createTestApp, startServiceOn, type TestApp } from '../support/test-app.js';
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

  it('finds a lock whose event was stored but whose documents were not (its taker stopped between)', async () => {
    const id = await createPost(author);
    expect((await take(editor, `posts/${id}`)).status).toBe(200);
    await app.deps.store.db.collection('edit_locks').deleteMany({ item: `post:${id}` });
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: author.headers, json: { title: 'Written under a lock' } })).status).toBe(200);
    const history = await app.api('GET', `/cms/v2/posts/${id}/history`, { headers: author.headers });
    expect((history.body as Change[]).map((entry) => [entry.type, entry.locked_by])).toEqual([
      ['created', undefined],
      ['updated', editor.id],
    ]);
  });

  it('reads the locks once for an item never locked: its head, then its first lock event', async () => {
    let lockReads = 0;
    const writer = await startServiceOn(app.databaseName, {
      env: ENV,
      onCommand: (event) => {
        if (event.commandName === 'find' && event.command.find === 'edit_locks') lockReads++;
      },
    });
    try {
      const id = await createPost(author);
      lockReads = 0;
      const answer = await fetch(`${writer.siteUrl}/cms-json/cms/v2/posts/${id}`, { method: 'POST', headers: { ...author.headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'Never locked' }) });
      expect(answer.status).toBe(200);
    } finally {
      await writer.stop();
    }
    expect(lockReads).toBe(1);
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

describe('a lock that lapses', () => {
  // A short window, reached by moving the service's clock, never by waiting; the service's own
  // scheduler records the lapse, with no request but the feed's reads.
  const WINDOW_SECONDS = 30;
  let lapsing: TestApp;
  let holder: Actor;
  let other: Actor;
  /** How far ahead of the wall clock the service's clock runs. */
  let aheadMs = 0;
  /** The reads of the locks collection the service has sent. */
  let lockReads = 0;

  beforeAll(async () => {
    lapsing = await createTestApp({
      clock: () => new Date(Date.now() + aheadMs),
      env: { ...ENV, CMS_LOCK_WINDOW_SECONDS: String(WINDOW_SECONDS) },
      onCommand: (event) => {
        if (event.commandName === 'find' && event.command.find === 'edit_locks') lockReads++;
      },
    });
    holder = await lapsing.asRole('author');
    other = await lapsing.asRole('editor');
  });
  afterAll(async () => {
    await lapsing?.stop();
  });

  const lastPosition = async () => (await changeLog(lapsing.deps.store.db).firstFreePosition()) - 1;
  const lockChangesOf = async (id: number, since: number) => {
    const page = await lapsing.api('GET', '/cms/v2/changes', { query: { since, subtypes: ['lock.taken', 'lock.taken_over', 'lock.released', 'lock.lapsed'] }, headers: lapsing.admin });
    expect(page.status).toBe(200);
    return (page.body.changes as Change[]).filter(ofItem(id));
  };
  async function lockedPost(): Promise<{ id: number; lapses: string }> {
    const created = await lapsing.api('POST', '/cms/v2/posts', { headers: holder.headers, json: { title: 'Left open', status: 'draft' } });
    expect(created.status).toBe(201);
    const taken = await lapsing.api('POST', `/cms/v2/posts/${created.body.id}/lock`, { headers: holder.headers, json: {} });
    expect(taken.status).toBe(200);
    return { id: created.body.id, lapses: taken.body.lapses };
  }

  it('is recorded once as lock.lapsed, naming the item and the holder, with nobody on the site', async () => {
    const since = await lastPosition();
    const { id, lapses } = await lockedPost();
    aheadMs += (WINDOW_SECONDS + 1) * 1000;
    await expect.poll(async () => (await lockChangesOf(id, since)).map((change) => change.type), { timeout: 5000, interval: 100 }).toEqual(['lock.taken', 'lock.lapsed']);
    // Several of the scheduler's turns later, still once.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const [taken, lapsed] = await lockChangesOf(id, since);
    expect(lapsed).toMatchObject({ item: id, item_type: 'post', type: 'lock.lapsed', seq: taken.seq + 1, holder: holder.id, author: holder.id, lapses });
    expect(lapsed.position).toBeGreaterThan(taken.position);
    // Stamped when it was recorded, at or after the lapse.
    expect(Date.parse(`${lapsed.date_gmt}Z`)).toBeGreaterThanOrEqual(Date.parse(`${lapses}Z`) - 1000);
    expect((await lockChangesOf(id, since)).length).toBe(2);

    // The next take follows it, with nothing more before it.
    expect((await lapsing.api('POST', `/cms/v2/posts/${id}/lock`, { headers: other.headers, json: {} })).status).toBe(200);
    expect((await lockChangesOf(id, since)).map((change) => [change.type, change.holder])).toEqual([
      ['lock.taken', holder.id],
      ['lock.lapsed', holder.id],
      ['lock.taken', other.id],
    ]);
  });

  it('refreshed in time: no lapse', async () => {
    const since = await lastPosition();
    const { id } = await lockedPost();
    aheadMs += (WINDOW_SECONDS - 5) * 1000;
    expect((await lapsing.api('POST', `/cms/v2/posts/${id}/lock`, { headers: holder.headers, json: {} })).status).toBe(200);
    aheadMs += 10_000;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await lockChangesOf(id, since)).map((change) => change.type)).toEqual(['lock.taken']);
  });

  it('is delivered to webhooks subscribed to lock.*', async () => {
    const receiving = await startReceiver();
    const hook = await lapsing.api('POST', '/cms/v2/webhooks', { headers: lapsing.admin, json: { url: receiving.url, events: ['lock.*'] } });
    expect(hook.status, hook.text).toBe(201);
    try {
      const { id, lapses } = await lockedPost();
      aheadMs += (WINDOW_SECONDS + 1) * 1000;
      const delivered = await receiving.waitFor((request) => request.json.data.item?.id === id && request.json.type === 'lock.lapsed');
      expect(delivered[0].json).toMatchObject({ type: 'lock.lapsed', data: { item: { id, type: 'post' }, holder: holder.id } });
      // The moment it lapsed, to the millisecond (the lock's answer gives it to the second).
      expect((delivered[0].json.data as { lapses?: string }).lapses?.slice(0, 19)).toBe(lapses);
      expect(receiving.received.filter((request) => request.json.data.item?.id === id).map((request) => request.json.type)).toEqual(['lock.taken', 'lock.lapsed']);
    } finally {
      await lapsing.api('DELETE', `/cms/v2/webhooks/${hook.body.id}`, { headers: lapsing.admin, query: { force: true } });
      await receiving.close();
    }
  });

  it('costs an idle site no read of the locks, an open one held or not', async () => {
    await lockedPost();
    // Settled after the take: the scheduler has read when the lock lapses.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const before = lockReads;
    // Past the scheduler's rescan of scheduled items (5 s), which reads no locks.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(lockReads - before).toBe(0);
  });
});

describe('a lapsed lock taken with no lapse recorded yet', () => {
  // No scheduler runs here (a site whose scheduler is down, or a take just before it looks):
  // the take finds the lapse unrecorded, and records it first.
  const WINDOW_SECONDS = 30;
  let unscheduled: TestApp;
  let aheadMs = 0;
  beforeAll(async () => {
    unscheduled = await createTestApp({
      clock: () => new Date(Date.now() + aheadMs),
      env: { CMS_LOCK_WINDOW_SECONDS: String(WINDOW_SECONDS) },
      resources: serviceResources.map((resource) => (resource.background === startScheduler ? { ...resource, background: undefined } : resource)),
    });
  });
  afterAll(async () => {
    await unscheduled?.stop();
  });

  it('records the lapse, then the take, in order', async () => {
    const holder = await unscheduled.asRole('author');
    const other = await unscheduled.asRole('editor');
    const since = (await changeLog(unscheduled.deps.store.db).firstFreePosition()) - 1;
    const created = await unscheduled.api('POST', '/cms/v2/posts', { headers: holder.headers, json: { title: 'Left open', status: 'draft' } });
    const id = created.body.id as number;
    expect((await unscheduled.api('POST', `/cms/v2/posts/${id}/lock`, { headers: holder.headers, json: {} })).status).toBe(200);
    aheadMs += (WINDOW_SECONDS + 1) * 1000;
    // Nothing records a lapse here on its own.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const lockChanges = async () => ((await unscheduled.api('GET', '/cms/v2/changes', { query: { since }, headers: unscheduled.admin })).body.changes as Change[]).filter(ofItem(id));
    expect((await lockChanges()).map((change) => change.type)).toEqual(['created', 'lock.taken']);
    expect((await unscheduled.api('POST', `/cms/v2/posts/${id}/lock`, { headers: other.headers, json: {} })).status).toBe(200);
    expect((await lockChanges()).map((change) => [change.type, change.holder, change.seq])).toEqual([
      ['created', undefined, 1],
      ['lock.taken', holder.id, 1],
      ['lock.lapsed', holder.id, 2],
      ['lock.taken', other.id, 3],
    ]);
  });
});
