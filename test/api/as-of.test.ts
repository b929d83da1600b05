import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
let editor: Awaited<ReturnType<TestApp['asRole']>>;
let author: Awaited<ReturnType<TestApp['asRole']>>;

beforeAll(async () => {
  app = await createTestApp();
  editor = await app.asRole('editor');
  author = await app.asRole('author');
});
afterAll(() => app?.stop());

/** The position of the last event stored so far: what a client would have read from a response header or the history. */
async function lastPosition(): Promise<number> {
  const [row] = await app.deps.store.db.collection<{ position: number }>('events').find({ position: { $exists: true } }).sort({ position: -1 }).limit(1).toArray();
  return row.position;
}

async function create(route: string, json: Record<string, unknown>, headers = app.admin): Promise<Record<string, any>> {
  const response = await app.api('POST', `/cms/v2/${route}`, { headers, json });
  expect(response.status).toBe(201);
  return response.body;
}

async function update(route: string, json: Record<string, unknown>, headers = app.admin): Promise<Record<string, any>> {
  const response = await app.api('POST', `/cms/v2/${route}`, { headers, json });
  expect(response.status).toBe(200);
  return response.body;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /posts/<id> as of a point', () => {
  it('answers the item as it stood at a position, through the same serializer, and names the position', async () => {
    const post = await create('posts', { title: 'First title', content: 'First words', status: 'draft' });
    const afterCreate = await lastPosition();
    await update(`posts/${post.id}`, { title: 'Second title', status: 'publish' });
    const afterUpdate = await lastPosition();
    await update(`posts/${post.id}`, { title: 'Third title' });

    const then = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of_position: afterCreate, context: 'edit' } });
    expect(then.status).toBe(200);
    expect(then.body.title.raw).toBe('First title');
    expect(then.body.status).toBe('draft');
    expect(then.headers.get('x-cms-as-of-position')).toBe(String(afterCreate));
    expect(then.headers.get('cache-control')).toContain('immutable');
    expect(then.headers.get('etag')).toMatch(/^"[^"]+"$/);

    const middle = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of_position: afterUpdate, _fields: 'id,title,status' } });
    expect(middle.body).toEqual({ id: post.id, title: { rendered: 'Second title' }, status: 'publish' });

    const live = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin });
    expect(live.body.title.rendered).toBe('Third title');
    expect(live.headers.get('x-cms-as-of-position')).toBeNull();
    expect(live.headers.get('cache-control') ?? '').not.toContain('immutable');
  });

  it('reads a time as the position the log had reached then', async () => {
    const post = await create('posts', { title: 'Before', status: 'publish' });
    await pause(30);
    const between = new Date().toISOString();
    await pause(30);
    await update(`posts/${post.id}`, { title: 'After' });
    const response = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of: between } });
    expect(response.status).toBe(200);
    expect(response.body.title.rendered).toBe('Before');
    const position = Number(response.headers.get('x-cms-as-of-position'));
    const byPosition = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of_position: position } });
    expect(byPosition.body.title.rendered).toBe('Before');
    const next = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of_position: position + 1 } });
    expect(next.body.title.rendered).toBe('After');
  });

  it('answers 404 for an item that did not exist yet, and 400 for a point off the log', async () => {
    const before = await lastPosition();
    const post = await create('posts', { title: 'Newcomer', status: 'publish' });
    const missing = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of_position: before } });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('rest_post_invalid_id');

    const future = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of: new Date(Date.now() + 3_600_000).toISOString() } });
    expect(future.status).toBe(400);
    expect(future.body.code).toBe('rest_invalid_param');
    expect(Object.keys(future.body.data.params)).toEqual(['as_of']);
    const ancient = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of: '1999-01-01T00:00:00Z' } });
    expect(ancient.status).toBe(400);
    expect(ancient.body.data.params.as_of).toMatch(/before/);
    const beyond = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of_position: (await lastPosition()) + 1000 } });
    expect(beyond.status).toBe(400);
    expect(Object.keys(beyond.body.data.params)).toEqual(['as_of_position']);
    const both = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of_position: before, as_of: new Date().toISOString() } });
    expect(both.status).toBe(400);
    const noOffset = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of: '2024-01-01T00:00:00' } });
    expect(noOffset.status).toBe(400);
    expect(noOffset.body.data.params.as_of).toBeDefined();
  });

  it('takes the rights reading the revisions takes: not anonymous, not an author on another\'s item', async () => {
    const post = await create('posts', { title: 'Guarded', status: 'publish' });
    const position = await lastPosition();
    const anonymous = await app.api('GET', `/cms/v2/posts/${post.id}`, { query: { as_of_position: position } });
    expect(anonymous.status).toBe(401);
    const other = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: author.headers, query: { as_of_position: position } });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('rest_cannot_read');
    const own = await create('posts', { title: 'Mine', status: 'publish' }, author.headers);
    const mine = await app.api('GET', `/cms/v2/posts/${own.id}`, { headers: author.headers, query: { as_of_position: await lastPosition() } });
    expect(mine.status).toBe(200);
    const editors = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: editor.headers, query: { as_of_position: position } });
    expect(editors.status).toBe(200);
  });

  it('never brings back erased content: a deleted revision stays blank, a force-deleted item is gone', async () => {
    const post = await create('posts', { title: 'Public one', status: 'publish' });
    await update(`posts/${post.id}`, { title: 'Secret two' });
    const atSecret = await lastPosition();
    await update(`posts/${post.id}`, { title: 'Public three' });
    const revisions = await app.api('GET', `/cms/v2/posts/${post.id}/revisions`, { headers: app.admin });
    const secret = (revisions.body as Record<string, any>[]).find((revision) => revision.title.rendered === 'Secret two');
    expect(secret).toBeDefined();
    const erased = await app.api('DELETE', `/cms/v2/posts/${post.id}/revisions/${secret!.id}`, { headers: app.admin, query: { force: true } });
    expect(erased.status).toBe(200);
    const then = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of_position: atSecret, context: 'edit' } });
    expect(then.status).toBe(200);
    expect(then.body.title.raw).not.toContain('Secret');

    const doomed = await create('posts', { title: 'Doomed words', status: 'publish' });
    const atDoomed = await lastPosition();
    expect((await app.api('DELETE', `/cms/v2/posts/${doomed.id}`, { headers: app.admin, query: { force: true } })).status).toBe(200);
    const gone = await app.api('GET', `/cms/v2/posts/${doomed.id}`, { headers: app.admin, query: { as_of_position: atDoomed } });
    expect(gone.status).toBe(404);
    const listed = await app.api('GET', '/cms/v2/posts', { headers: app.admin, query: { as_of_position: atDoomed, per_page: 100 } });
    expect((listed.body as Record<string, any>[]).map((item) => item.id)).not.toContain(doomed.id);
  });

  it('pins links to history items to the position, so that _embed reads the same point', async () => {
    const parent = await create('pages', { title: 'Parent then', status: 'publish' });
    const child = await create('pages', { title: 'Child', status: 'publish', parent: parent.id });
    const position = await lastPosition();
    await update(`pages/${parent.id}`, { title: 'Parent now' });
    const response = await app.api('GET', `/cms/v2/pages/${child.id}`, { headers: app.admin, query: { as_of_position: position, _embed: 'up' } });
    expect(response.status).toBe(200);
    expect(response.body._links.up[0].href).toContain(`as_of_position=${position}`);
    expect(response.body._embedded.up[0].title.rendered).toBe('Parent then');
  });
});

describe('GET /posts as of a point', () => {
  it('lists the items as they stood: filters, order and total at that point, page links that keep it', async () => {
    const tag = `list-${Date.now()}`;
    const first = await create('posts', { title: `${tag} a`, status: 'publish', slug: `${tag}-a` });
    const second = await create('posts', { title: `${tag} b`, status: 'draft', slug: `${tag}-b` });
    const third = await create('posts', { title: `${tag} c`, status: 'publish', slug: `${tag}-c` });
    const position = await lastPosition();
    await update(`posts/${second.id}`, { status: 'publish' });
    await update(`posts/${first.id}`, { status: 'draft' });
    await create('posts', { title: `${tag} d`, status: 'publish', slug: `${tag}-d` });
    const include = [first.id, second.id, third.id];

    const then = await app.api('GET', '/cms/v2/posts', { headers: app.admin, query: { as_of_position: position, include, orderby: 'id', order: 'asc', per_page: 1 } });
    expect(then.status).toBe(200);
    expect(then.headers.get('x-wp-total')).toBe('2');
    expect((then.body as Record<string, any>[]).map((item) => item.id)).toEqual([first.id]);
    expect(then.headers.get('x-cms-as-of-position')).toBe(String(position));
    expect(then.headers.get('cache-control')).toContain('immutable');
    const link = then.headers.get('link')!;
    expect(link).toContain(`as_of_position=${position}`);
    const next = link.match(/<([^>]+)>; rel="next"/)![1];
    const page2 = await app.site('GET', next.slice(app.siteUrl.length), { headers: app.admin });
    expect((page2.body as Record<string, any>[]).map((item) => item.id)).toEqual([third.id]);

    const drafts = await app.api('GET', '/cms/v2/posts', { headers: app.admin, query: { as_of_position: position, include, status: 'draft' } });
    expect((drafts.body as Record<string, any>[]).map((item) => item.id)).toEqual([second.id]);
    const live = await app.api('GET', '/cms/v2/posts', { headers: app.admin, query: { include, orderby: 'id', order: 'asc' } });
    expect((live.body as Record<string, any>[]).map((item) => item.id)).toEqual([second.id, third.id]);

    const allStatuses = await app.api('GET', '/cms/v2/posts', { headers: app.admin, query: { as_of_position: position, slug: [`${tag}-a`, `${tag}-b`, `${tag}-c`, `${tag}-d`], status: ['publish', 'draft'] } });
    expect(allStatuses.headers.get('x-wp-total')).toBe('3');
  });

  it('shows an author only the items they may read the revisions of', async () => {
    const tag = `mine-${Date.now()}`;
    const own = await create('posts', { title: `${tag} own`, status: 'publish', slug: `${tag}-own` }, author.headers);
    await create('posts', { title: `${tag} theirs`, status: 'publish', slug: `${tag}-theirs` });
    const position = await lastPosition();
    const listed = await app.api('GET', '/cms/v2/posts', { headers: author.headers, query: { as_of_position: position, search: tag } });
    expect(listed.status).toBe(200);
    expect((listed.body as Record<string, any>[]).map((item) => item.id)).toEqual([own.id]);
    const anonymous = await app.api('GET', '/cms/v2/posts', { query: { as_of_position: position } });
    expect(anonymous.status).toBe(401);
    const subscriber = await app.asRole('subscriber');
    expect((await app.api('GET', '/cms/v2/posts', { headers: subscriber.headers, query: { as_of_position: position } })).status).toBe(403);
  });
});

async function newMenu(name: string): Promise<number> {
  const response = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: `${name} ${Date.now()}` } });
  expect(response.status).toBe(201);
  return response.body.id;
}

async function menuItem(menu: number, title: string, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return create('menu-items', { menus: menu, title, url: `https://example.org/${encodeURIComponent(title)}`, status: 'publish', ...extra });
}

const summary = (items: Record<string, any>[]) => items.map((item) => [item.title.raw ?? item.title.rendered, item.menu_order, item.parent]);

describe('menu items as of a point', () => {
  it('reads an item and the items of a menu as they stood, with the total at that point', async () => {
    const menu = await newMenu('As of');
    const first = await menuItem(menu, 'One', { menu_order: 1 });
    const second = await menuItem(menu, 'Two', { menu_order: 2 });
    const position = await lastPosition();
    await update(`menu-items/${first.id}`, { title: 'One renamed', menu_order: 3 });
    await app.api('DELETE', `/cms/v2/menu-items/${second.id}`, { headers: app.admin, query: { force: true } });
    await menuItem(menu, 'Three', { menu_order: 4 });

    const item = await app.api('GET', `/cms/v2/menu-items/${first.id}`, { headers: app.admin, query: { as_of_position: position } });
    expect(item.status).toBe(200);
    expect(item.body.title.rendered).toBe('One');
    expect(item.headers.get('x-cms-as-of-position')).toBe(String(position));

    const listed = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus: menu, as_of_position: position, orderby: 'menu_order', order: 'asc' } });
    expect(listed.status).toBe(200);
    // The deleted item's content was erased with it: it is not shown as of any point.
    expect((listed.body as Record<string, any>[]).map((entry) => [entry.id, entry.title.rendered, entry.menu_order])).toEqual([[first.id, 'One', 1]]);
    expect(listed.headers.get('x-wp-total')).toBe('1');
    expect(listed.headers.get('cache-control')).toContain('immutable');
    const anonymous = await app.api('GET', `/cms/v2/menu-items/${first.id}`, { query: { as_of_position: position } });
    expect(anonymous.status).toBe(401);
  });
});

describe('POST .../restore as of a point', () => {
  it('returns a post to its fields then, by one restored command recorded with the position', async () => {
    const post = await create('posts', { title: 'Kept title', content: 'Kept words', status: 'draft' });
    const position = await lastPosition();
    const changed = await update(`posts/${post.id}`, { title: 'Changed title', content: 'Changed words', status: 'publish' });
    const restored = await app.api('POST', `/cms/v2/posts/${post.id}/restore`, { headers: app.admin, query: { as_of_position: position } });
    expect(restored.status).toBe(200);
    expect(restored.body.title.raw).toBe('Kept title');
    expect(restored.body.content.raw).toBe('Kept words');
    expect(restored.body.status).toBe('draft');
    expect(restored.headers.get('etag')).toMatch(/^"\d+"$/);
    const history = await app.api('GET', `/cms/v2/posts/${post.id}/history`, { headers: app.admin });
    const last = (history.body as Record<string, any>[]).at(-1)!;
    expect(last.type).toBe('restored');
    const [event] = await app.deps.store.db.collection<{ stream: number; seq: number; data: string }>('events').find({ stream: post.id, seq: last.seq }).toArray();
    expect(JSON.parse(event.data).fromPosition).toBe(position);
    expect(changed.id).toBe(post.id);
  });

  it('refuses a stale If-Match, a missing point and an author on another\'s item, changing nothing', async () => {
    const post = await create('posts', { title: 'Guarded restore', status: 'publish' });
    const position = await lastPosition();
    await update(`posts/${post.id}`, { title: 'Newer' });
    const eventsBefore = await app.deps.store.db.collection('events').countDocuments({ stream: post.id });
    const stale = await app.api('POST', `/cms/v2/posts/${post.id}/restore`, { headers: { ...app.admin, 'If-Match': '"1"' }, query: { as_of_position: position } });
    expect(stale.status).toBe(412);
    const missing = await app.api('POST', `/cms/v2/posts/${post.id}/restore`, { headers: app.admin });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('rest_missing_callback_param');
    const future = await app.api('POST', `/cms/v2/posts/${post.id}/restore`, { headers: app.admin, query: { as_of: new Date(Date.now() + 60_000).toISOString() } });
    expect(future.status).toBe(400);
    const other = await app.api('POST', `/cms/v2/posts/${post.id}/restore`, { headers: author.headers, query: { as_of_position: position } });
    expect(other.status).toBe(403);
    expect(await app.deps.store.db.collection('events').countDocuments({ stream: post.id })).toBe(eventsBefore);
    expect((await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin })).body.title.rendered).toBe('Newer');
  });

  it('returns a menu item to its fields then', async () => {
    const menu = await newMenu('Item restore');
    const item = await menuItem(menu, 'Original', { menu_order: 1 });
    const position = await lastPosition();
    await update(`menu-items/${item.id}`, { title: 'Edited', menu_order: 5 });
    const restored = await app.api('POST', `/cms/v2/menu-items/${item.id}/restore`, { headers: app.admin, query: { as_of_position: position } });
    expect(restored.status).toBe(200);
    expect(restored.body.title.raw).toBe('Original');
    expect(restored.body.menu_order).toBe(1);
  });

  it('returns every item of a menu to its state then: added ones deleted, deleted ones re-created, order restored', async () => {
    const menu = await newMenu('Menu restore');
    const other = await newMenu('Elsewhere');
    const home = await menuItem(menu, 'Home', { menu_order: 1 });
    const about = await menuItem(menu, 'About', { menu_order: 2 });
    const team = await menuItem(menu, 'Team', { menu_order: 3, parent: about.id });
    const visitor = await menuItem(other, 'Visitor', { menu_order: 1 });
    const position = await lastPosition();

    await update(`menu-items/${home.id}`, { title: 'Home renamed', menu_order: 9 });
    await app.api('DELETE', `/cms/v2/menu-items/${about.id}`, { headers: app.admin, query: { force: true } });
    await menuItem(menu, 'Added later', { menu_order: 4 });
    await update(`menu-items/${visitor.id}`, { menus: menu, menu_order: 5 });

    const live = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus: menu } });
    const tag = live.headers.get('etag')!;
    expect(tag).toMatch(/^"menu-/);

    const stale = await app.api('POST', `/cms/v2/menus/${menu}/restore`, { headers: { ...app.admin, 'If-Match': '"menu-stale"' }, query: { as_of_position: position } });
    expect(stale.status).toBe(412);
    const unchanged = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus: menu } });
    expect(unchanged.headers.get('etag')).toBe(tag);

    const restored = await app.api('POST', `/cms/v2/menus/${menu}/restore`, { headers: { ...app.admin, 'If-Match': tag }, query: { as_of_position: position } });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    const items = restored.body as Record<string, any>[];
    // About was force-deleted: re-created under a new id, its erased words blank, Team under it again.
    const recreated = items.find((entry) => entry.menu_order === 2)!;
    expect(recreated.id).not.toBe(about.id);
    expect(summary(items)).toEqual([
      ['Home', 1, 0],
      [recreated.title.raw, 2, 0],
      ['Team', 3, recreated.id],
    ]);
    expect(items.map((entry) => entry.id)).toEqual([home.id, recreated.id, team.id]);
    const visitorNow = await app.api('GET', `/cms/v2/menu-items/${visitor.id}`, { headers: app.admin });
    expect(visitorNow.body.menus).toBe(other);
    expect(restored.headers.get('etag')).not.toBe(tag);

    const again = await app.api('POST', `/cms/v2/menus/${menu}/restore`, { headers: { ...app.admin, 'If-Match': tag }, query: { as_of_position: position } });
    expect(again.status).toBe(412);
    const missingMenu = await app.api('POST', '/cms/v2/menus/999999/restore', { headers: app.admin, query: { as_of_position: position } });
    expect(missingMenu.status).toBe(404);
    const editorRefused = await app.api('POST', `/cms/v2/menus/${menu}/restore`, { headers: author.headers, query: { as_of_position: position } });
    expect(editorRefused.status).toBe(403);
  });
});

describe('the point an answer is read at', () => {
  it('is final: a missing position just below it (an append in flight) is waited for, then voided, before the answer', async () => {
    const post = await create('posts', { title: 'Settled', status: 'publish' });
    const events = app.deps.store.db.collection<{ stream: number; seq: number; position: number; type: string; at: Date; actor: number; data: string }>('events');
    const last = await lastPosition();
    // A row two past the end: the one between is what an append still in flight would look like.
    await events.insertOne({ stream: 0, seq: -(last + 2), position: last + 2, type: 'void', at: new Date(), actor: 0, data: 'null' });
    const response = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: app.admin, query: { as_of_position: last + 2 } });
    expect(response.status).toBe(200);
    // Nothing can land there any more: whatever holds the position now holds it for good.
    expect(await events.findOne({ position: last + 1 })).toMatchObject({ stream: 0, type: 'void' });
  });
});
