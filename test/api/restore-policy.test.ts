import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

// A restore writes an item's fields from its past, and passes the same input policy as an update
// of those fields by the same caller: a right the caller lacks refuses the whole restore with the
// update's own error, and what the past names that no longer exists is refused as an update's is.

type Caller = Awaited<ReturnType<TestApp['asRole']>>;

let app: TestApp;
let contributor: Caller;
let author: Caller;

beforeAll(async () => {
  app = await createTestApp();
  contributor = await app.asRole('contributor');
  author = await app.asRole('author');
});
afterAll(() => app?.stop());

async function lastPosition(): Promise<number> {
  const [row] = await app.deps.store.db.collection<{ position: number }>('events').find({ position: { $exists: true } }).sort({ position: -1 }).limit(1).toArray();
  return row.position;
}

async function write(method: string, route: string, json: Record<string, unknown>, headers = app.admin, status = 200): Promise<Record<string, any>> {
  const response = await app.api(method, `/cms/v2/${route}`, { headers, json });
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body;
}

const eventsOf = (id: number) => app.deps.store.db.collection('events').countDocuments({ stream: id });

/** A restore the policy refuses: answered with `code`, and nothing appended to the item's log. */
async function expectRefused(route: string, id: number, position: number, caller: Caller, status: number, code: string): Promise<void> {
  const before = await eventsOf(id);
  const refused = await app.api('POST', `/cms/v2/${route}`, { headers: caller.headers, query: { as_of_position: position } });
  expect(refused.status, JSON.stringify(refused.body)).toBe(status);
  expect(refused.body.code).toBe(code);
  expect(await eventsOf(id)).toBe(before);
}

/** A draft by `owner` that an administrator once published (`published`), then sent back to draft. */
async function draftOnceEdited(owner: Caller, edit: Record<string, unknown>): Promise<{ id: number; then: number }> {
  const post = await write('POST', 'posts', { title: 'Once edited', content: 'Words', status: 'draft' }, owner.headers, 201);
  await write('POST', `posts/${post.id}`, edit);
  const then = await lastPosition();
  await write('POST', `posts/${post.id}`, { status: 'draft', sticky: false, title: 'Back to draft' });
  return { id: post.id, then };
}

describe('POST /posts/<id>/restore as of a point, by a contributor', () => {
  it('refuses a point where the post was published, as an update to publish is', async () => {
    const { id, then } = await draftOnceEdited(contributor, { status: 'publish' });
    const update = await app.api('POST', `/cms/v2/posts/${id}`, { headers: contributor.headers, json: { status: 'publish' } });
    expect(update.body.code).toBe('rest_cannot_publish');
    await expectRefused(`posts/${id}/restore`, id, then, contributor, 403, 'rest_cannot_publish');
    const anonymous = await app.api('GET', `/cms/v2/posts/${id}`);
    expect(anonymous.status).toBe(401);
  });

  it('refuses a point where the post was private', async () => {
    const { id, then } = await draftOnceEdited(contributor, { status: 'private' });
    await expectRefused(`posts/${id}/restore`, id, then, contributor, 403, 'rest_cannot_publish');
  });

  it('refuses a point where the post was sticky', async () => {
    const { id, then } = await draftOnceEdited(contributor, { sticky: true });
    await expectRefused(`posts/${id}/restore`, id, then, contributor, 403, 'rest_cannot_assign_sticky');
  });

  it('refuses a point where the post was another user\'s', async () => {
    const post = await write('POST', 'posts', { title: 'Handed over', status: 'draft', author: author.id }, app.admin, 201);
    const then = await lastPosition();
    await write('POST', `posts/${post.id}`, { author: contributor.id });
    await expectRefused(`posts/${post.id}/restore`, post.id, then, contributor, 403, 'rest_cannot_edit_others');
  });

  it('restores what needs no right it lacks: the text of an earlier point of its own draft', async () => {
    const post = await write('POST', 'posts', { title: 'Own words', content: 'First', status: 'draft' }, contributor.headers, 201);
    const then = await lastPosition();
    await write('POST', `posts/${post.id}`, { content: 'Second' }, contributor.headers);
    const restored = await app.api('POST', `/cms/v2/posts/${post.id}/restore`, { headers: contributor.headers, query: { as_of_position: then } });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.content.raw).toBe('First');
    expect(restored.body.status).toBe('draft');
  });
});

describe('POST /posts/<id>/restore as of a point, by an author', () => {
  it('restores a published point, as an author may publish', async () => {
    const { id, then } = await draftOnceEdited(author, { status: 'publish' });
    const restored = await app.api('POST', `/cms/v2/posts/${id}/restore`, { headers: author.headers, query: { as_of_position: then } });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.status).toBe('publish');
  });

  it('refuses a point where the post was another user\'s', async () => {
    const post = await write('POST', 'posts', { title: 'Handed over', status: 'draft', author: contributor.id }, app.admin, 201);
    const then = await lastPosition();
    await write('POST', `posts/${post.id}`, { author: author.id });
    await expectRefused(`posts/${post.id}/restore`, post.id, then, author, 403, 'rest_cannot_edit_others');
  });

  it('refuses a point whose category was deleted since, as an update naming it is', async () => {
    const category = await write('POST', 'categories', { name: `Gone since ${Date.now()}` }, app.admin, 201);
    const post = await write('POST', 'posts', { title: 'Filed', status: 'draft', categories: [category.id] }, author.headers, 201);
    const then = await lastPosition();
    await write('POST', `posts/${post.id}`, { categories: [1] }, author.headers);
    await write('DELETE', `categories/${category.id}?force=true`, {});
    await expectRefused(`posts/${post.id}/restore`, post.id, then, author, 400, 'rest_invalid_term_id');
  });

  it('gives a restored slug another item took since a free one, as a sent slug gets', async () => {
    const slug = `taken-since-${Date.now()}`;
    const post = await write('POST', 'posts', { title: 'Slugged', slug, status: 'draft' }, author.headers, 201);
    const then = await lastPosition();
    await write('POST', `posts/${post.id}`, { slug: `${slug}-moved` }, author.headers);
    await write('POST', 'posts', { title: 'Taker', slug, status: 'draft' }, author.headers, 201);
    const restored = await app.api('POST', `/cms/v2/posts/${post.id}/restore`, { headers: author.headers, query: { as_of_position: then } });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.slug).toBe(`${slug}-2`);
  });
});

describe('POST /pages/<id>/restore as of a point', () => {
  it('refuses a point whose parent page was deleted since', async () => {
    const parent = await write('POST', 'pages', { title: 'Parent', status: 'publish' }, app.admin, 201);
    const page = await write('POST', 'pages', { title: 'Child', status: 'publish', parent: parent.id }, app.admin, 201);
    const then = await lastPosition();
    await write('POST', `pages/${page.id}`, { parent: 0 });
    await write('DELETE', `pages/${parent.id}?force=true`, {});
    await expectRefused(`pages/${page.id}/restore`, page.id, then, { headers: app.admin } as Caller, 400, 'rest_post_invalid_id');
  });
});

describe('POST /posts/<id>/revisions/<id>/restore', () => {
  it('restores a contributor\'s own revision: its text needs no right the contributor lacks', async () => {
    const post = await write('POST', 'posts', { title: 'Revised', content: 'One', status: 'draft' }, contributor.headers, 201);
    await write('POST', `posts/${post.id}`, { content: 'Two' }, contributor.headers);
    await write('POST', `posts/${post.id}`, { content: 'Three' }, contributor.headers);
    const revisions = await app.api('GET', `/cms/v2/posts/${post.id}/revisions`, { headers: contributor.headers, query: { context: 'edit' } });
    const two = (revisions.body as Record<string, any>[]).find((revision) => revision.content.raw === 'Two')!;
    const restored = await app.api('POST', `/cms/v2/posts/${post.id}/revisions/${two.id}/restore`, { headers: contributor.headers });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.content.raw).toBe('Two');
    expect(restored.body.status).toBe('draft');
  });
});

describe('menu item restores', () => {
  async function menuWithItems(): Promise<{ menu: number; parent: number; child: number }> {
    const menu = await write('POST', 'menus', { name: `Restored menu ${Date.now()}` }, app.admin, 201);
    const parent = await write('POST', 'menu-items', { title: 'Parent', url: 'https://example.test/p', menus: menu.id }, app.admin, 201);
    const child = await write('POST', 'menu-items', { title: 'Child', url: 'https://example.test/c', menus: menu.id, parent: parent.id }, app.admin, 201);
    return { menu: menu.id, parent: parent.id, child: child.id };
  }

  it('refuses an item\'s point whose parent was deleted since, as an update naming it is', async () => {
    const { parent, child } = await menuWithItems();
    const then = await lastPosition();
    await write('DELETE', `menu-items/${parent}?force=true`, {});
    const update = await app.api('POST', `/cms/v2/menu-items/${child}`, { headers: app.admin, json: { parent } });
    expect(update.body.code).toBe('invalid_menu_item_parent');
    await expectRefused(`menu-items/${child}/restore`, child, then, { headers: app.admin } as Caller, 400, 'invalid_menu_item_parent');
  });

  it('refuses a revision whose parent was deleted since', async () => {
    const { parent, child } = await menuWithItems();
    await write('POST', `menu-items/${child}`, { title: 'Child, renamed' });
    await write('POST', `menu-items/${child}`, { title: 'Child, renamed again' });
    const revisions = await app.api('GET', `/cms/v2/menu-items/${child}/revisions`, { headers: app.admin, query: { context: 'edit' } });
    const kept = (revisions.body as Record<string, any>[]).find((revision) => revision.title.raw === 'Child, renamed')!;
    await write('DELETE', `menu-items/${parent}?force=true`, {});
    const before = await eventsOf(child);
    const refused = await app.api('POST', `/cms/v2/menu-items/${child}/revisions/${kept.id}/restore`, { headers: app.admin });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.code).toBe('invalid_menu_item_parent');
    expect(await eventsOf(child)).toBe(before);
  });

  it("refuses a whole menu's restore that would return an item to a menu deleted since, as the item's own restore is refused, writing nothing", async () => {
    const { menu, child } = await menuWithItems();
    const elsewhere = await write('POST', 'menus', { name: `Deleted since ${Date.now()}` }, app.admin, 201);
    const moved = await write('POST', 'menu-items', { title: 'Moved', url: 'https://example.test/m', menus: elsewhere.id }, app.admin, 201);
    const then = await lastPosition();
    await write('POST', `menu-items/${moved.id}`, { menus: menu });
    await write('POST', `menu-items/${child}`, { title: 'Child, renamed' });
    await write('DELETE', `menus/${elsewhere.id}?force=true`, {});
    await expectRefused(`menu-items/${moved.id}/restore`, moved.id, then, { headers: app.admin } as Caller, 400, 'invalid_menu_id');
    const childEvents = await eventsOf(child);
    await expectRefused(`menus/${menu}/restore`, moved.id, then, { headers: app.admin } as Caller, 400, 'invalid_menu_id');
    expect(await eventsOf(child)).toBe(childEvents);
  });

  it('refuses every menu restore to a contributor and an author, who may not edit menus', async () => {
    const { menu, child } = await menuWithItems();
    const then = await lastPosition();
    for (const caller of [contributor, author]) {
      await expectRefused(`menu-items/${child}/restore`, child, then, caller, 403, 'rest_cannot_edit');
      const whole = await app.api('POST', `/cms/v2/menus/${menu}/restore`, { headers: caller.headers, query: { as_of_position: then } });
      expect(whole.status).toBe(403);
    }
  });
});
