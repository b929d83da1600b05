import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, startServiceOn, type TestApp } from '../support/test-app.js';

type Actor = Awaited<ReturnType<TestApp['asRole']>>;

// A short window, so that a lapse is reached by moving the service's clock 31 s, never by waiting.
const WINDOW_SECONDS = 30;

let app: TestApp;
let editor: Actor;
let author: Actor;
let otherAuthor: Actor;
let contributor: Actor;
/** How far ahead of the wall clock the service's clock runs. */
let aheadMs = 0;

beforeAll(async () => {
  app = await createTestApp({ clock: () => new Date(Date.now() + aheadMs), env: { CMS_LOCK_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
  editor = await app.asRole('editor', { name: 'Eddie Editor' });
  author = await app.asRole('author', { name: 'Ada Author' });
  otherAuthor = await app.asRole('author');
  contributor = await app.asRole('contributor');
});
afterAll(async () => {
  await app?.stop();
});

async function createPost(headers: Record<string, string>, base = 'posts'): Promise<number> {
  const response = await app.api('POST', `/cms/v2/${base}`, { headers, json: { title: 'Locked', status: 'draft' } });
  expect(response.status).toBe(201);
  return response.body.id;
}

const lockOf = (who: Actor, path: string) => app.api('GET', `/cms/v2/${path}/lock`, { headers: who.headers });
const take = (who: Actor, path: string, json: Record<string, unknown> = {}) => app.api('POST', `/cms/v2/${path}/lock`, { headers: who.headers, json });
const release = (who: Actor, path: string) => app.api('DELETE', `/cms/v2/${path}/lock`, { headers: who.headers });

const seconds = (gmt: string) => Date.parse(`${gmt}Z`) / 1000;
const GMT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;

describe('edit locks', () => {
  it('is seen at once through another process, which keeps what it read of locks only until a lock changes', async () => {
    const id = await createPost(author.headers);
    const other = await startServiceOn(app.databaseName, { env: { CMS_LOCK_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
    try {
      const readThroughOther = async () => {
        const response = await fetch(`${other.siteUrl}/cms-json/cms/v2/posts/${id}?context=edit`, { headers: editor.headers });
        return ((await response.json()) as { lock: unknown }).lock;
      };
      expect(await readThroughOther()).toBeNull();
      const taken = await take(author, `posts/${id}`);
      expect(await readThroughOther()).toMatchObject({ user: author.id, since: taken.body.since });
      expect((await release(author, `posts/${id}`)).status).toBe(200);
      expect(await readThroughOther()).toBeNull();
    } finally {
      await other.stop();
    }
  });

  it('is free at first: GET answers 404 rest_not_locked', async () => {
    const id = await createPost(author.headers);
    const response = await lockOf(author, `posts/${id}`);
    expect({ status: response.status, body: response.body }).toEqual({
      status: 404,
      body: { code: 'rest_not_locked', message: 'The item is not locked.', data: { status: 404 } },
    });
  });

  it('is taken by the caller, shown to editors of the item, and lapses a window after it was taken', async () => {
    const id = await createPost(author.headers);
    const taken = await take(author, `posts/${id}`);
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ user: author.id, since: expect.stringMatching(GMT), refreshed: taken.body.since });
    expect(seconds(taken.body.lapses) - seconds(taken.body.refreshed)).toBe(WINDOW_SECONDS);
    expect(taken.body._links.self[0].href).toBe(`${app.apiRoot}/cms/v2/posts/${id}/lock`);
    expect(taken.body._links.up[0]).toEqual({ href: `${app.apiRoot}/cms/v2/posts/${id}`, embeddable: true });
    expect(taken.body._links.author[0]).toEqual({ href: `${app.apiRoot}/cms/v2/users/${author.id}`, embeddable: true });

    const read = await lockOf(editor, `posts/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(taken.body);
    const embedded = await app.api('GET', `/cms/v2/posts/${id}/lock`, { headers: app.admin, query: { _embed: 'author' } });
    expect(embedded.body._embedded.author[0]).toMatchObject({ id: author.id, name: 'Ada Author' });
  });

  it('is refreshed by its holder: `since` stays, `refreshed` and `lapses` move on', async () => {
    const id = await createPost(author.headers);
    const first = await take(author, `posts/${id}`);
    aheadMs += 10_000;
    const refreshed = await take(author, `posts/${id}`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.since).toBe(first.body.since);
    expect(seconds(refreshed.body.refreshed) - seconds(first.body.refreshed)).toBeGreaterThanOrEqual(10);
    expect(seconds(refreshed.body.lapses) - seconds(refreshed.body.refreshed)).toBe(WINDOW_SECONDS);
    // Refreshed 10 s later, it holds 25 s after it was first taken (past the first window's end, less 5 s).
    aheadMs += WINDOW_SECONDS * 1000 - 5_000;
    expect((await lockOf(author, `posts/${id}`)).body.user).toBe(author.id);
    expect((await take(editor, `posts/${id}`)).status).toBe(409);
  });

  it('refuses another editor with 409 rest_post_locked naming the holder, unless they take it over', async () => {
    const id = await createPost(author.headers);
    const held = await take(author, `posts/${id}`);
    const refused = await take(editor, `posts/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      code: 'rest_post_locked',
      message: 'Ada Author is currently editing this item.',
      data: { status: 409, user: author.id, name: 'Ada Author', lapses: held.body.lapses },
    });
    expect((await lockOf(editor, `posts/${id}`)).body.user).toBe(author.id);

    const takenOver = await take(editor, `posts/${id}`, { take_over: true });
    expect(takenOver.status).toBe(200);
    expect(takenOver.body.user).toBe(editor.id);
    expect(takenOver.body.since).not.toBe(undefined);
    expect((await lockOf(author, `posts/${id}`)).body.user).toBe(editor.id);
    // The author, who was taken over, is now refused in turn.
    expect((await take(author, `posts/${id}`)).body.code).toBe('rest_post_locked');
  });

  it('lapses the window after its last refresh: GET answers 404 and anyone allowed to edit takes it without take_over', async () => {
    const id = await createPost(author.headers);
    await take(author, `posts/${id}`);
    aheadMs += (WINDOW_SECONDS - 1) * 1000;
    expect((await take(editor, `posts/${id}`)).status).toBe(409);
    aheadMs += 2_000;
    expect((await lockOf(editor, `posts/${id}`)).body.code).toBe('rest_not_locked');
    const taken = await take(editor, `posts/${id}`);
    expect(taken.status).toBe(200);
    expect(taken.body.user).toBe(editor.id);
  });

  it('is released by its holder, and then free', async () => {
    const id = await createPost(author.headers);
    const held = await take(author, `posts/${id}`);
    const released = await release(author, `posts/${id}`);
    expect(released.status).toBe(200);
    expect(released.body).toEqual({ deleted: true, previous: held.body });
    expect((await lockOf(author, `posts/${id}`)).status).toBe(404);
    expect((await release(author, `posts/${id}`)).body.code).toBe('rest_not_locked');
    expect((await take(editor, `posts/${id}`)).status).toBe(200);
  });

  it("is not released by an author who does not hold it, but is by an editor (who may edit others' items)", async () => {
    const id = await createPost(author.headers);
    await take(editor, `posts/${id}`);
    const refused = await release(otherAuthor, `posts/${id}`);
    // Another author may not edit the post at all: the update's 403.
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('rest_cannot_edit');
    const byAuthor = await release(author, `posts/${id}`);
    expect(byAuthor.status).toBe(403);
    expect(byAuthor.body).toEqual({
      code: 'rest_cannot_unlock',
      message: 'Sorry, you are not allowed to release the lock someone else holds on this item.',
      data: { status: 403 },
    });
    expect((await lockOf(author, `posts/${id}`)).body.user).toBe(editor.id);

    // The author, allowed to edit their own post, takes it over from the editor, who releases it anyway.
    await take(author, `posts/${id}`, { take_over: true });
    const byEditor = await release(editor, `posts/${id}`);
    expect(byEditor.status).toBe(200);
    expect(byEditor.body.previous.user).toBe(author.id);
    expect((await lockOf(author, `posts/${id}`)).status).toBe(404);
  });

  it('is for those allowed to edit the item: the errors an update gives, and the 404 of a GET of the item', async () => {
    const id = await createPost(editor.headers);
    const anonymous = await app.api('POST', `/cms/v2/posts/${id}/lock`, {});
    expect({ status: anonymous.status, code: anonymous.body.code }).toEqual({ status: 401, code: 'rest_cannot_edit' });
    const update = await app.api('POST', `/cms/v2/posts/${id}`, { headers: contributor.headers, json: { title: 'x' } });
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await app.api(method, `/cms/v2/posts/${id}/lock`, { headers: contributor.headers });
      expect({ status: response.status, body: response.body }).toEqual({ status: update.status, body: update.body });
    }
    const missing = await app.api('GET', '/cms/v2/posts/999999');
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await app.api(method, '/cms/v2/posts/999999/lock', { headers: editor.headers });
      expect({ status: response.status, body: response.body }).toEqual({ status: 404, body: missing.body });
    }
    // A page is not a post: its lock is not found under /posts.
    const page = await createPost(editor.headers, 'pages');
    expect((await take(editor, `posts/${page}`)).status).toBe(404);
    expect((await take(editor, `pages/${page}`)).status).toBe(200);
  });

  it('is carried by the item in edit context (null when free), and not in view context', async () => {
    const id = await createPost(author.headers);
    const editContext = (who: Actor) => app.api('GET', `/cms/v2/posts/${id}`, { headers: who.headers, query: { context: 'edit' } });
    expect((await editContext(editor)).body.lock).toBeNull();
    const held = await take(author, `posts/${id}`);
    const read = await editContext(editor);
    expect(read.body.lock).toEqual({ user: author.id, since: held.body.since, refreshed: held.body.refreshed, lapses: held.body.lapses });
    const list = await app.api('GET', '/cms/v2/posts', { headers: editor.headers, query: { context: 'edit', include: [id], status: 'draft' } });
    expect(list.body[0].lock.user).toBe(author.id);
    const view = await app.api('GET', `/cms/v2/posts/${id}`, { headers: editor.headers });
    expect(view.body).not.toHaveProperty('lock');
    // `_embed` carries it too, in any context, for those who may edit the item.
    const embedded = await app.api('GET', `/cms/v2/posts/${id}`, { headers: editor.headers, query: { _embed: 'lock' } });
    expect(embedded.body._links.lock).toEqual([{ href: `${app.apiRoot}/cms/v2/posts/${id}/lock`, embeddable: true }]);
    expect(embedded.body._embedded.lock[0]).toMatchObject({ user: author.id, since: held.body.since, lapses: held.body.lapses });
    const published = await app.api('POST', `/cms/v2/posts/${id}`, { headers: author.headers, json: { status: 'publish' } });
    expect(published.status).toBe(200);
    // Anonymous readers of the published post are not shown the lock's link.
    expect((await app.api('GET', `/cms/v2/posts/${id}`)).body._links).not.toHaveProperty('lock');
    aheadMs += (WINDOW_SECONDS + 1) * 1000;
    expect((await editContext(editor)).body.lock).toBeNull();
  });

  it('is advisory: a write by someone other than its holder is not refused', async () => {
    const id = await createPost(author.headers);
    await take(author, `posts/${id}`);
    const update = await app.api('POST', `/cms/v2/posts/${id}`, { headers: editor.headers, json: { title: 'Edited meanwhile' } });
    expect(update.status).toBe(200);
    expect(update.body.title.raw).toBe('Edited meanwhile');
    expect((await lockOf(author, `posts/${id}`)).body.user).toBe(author.id);
  });

  it("keeps what its previous holder autosaves after a take-over as their own autosave, even of their own draft (as WordPress)", async () => {
    const id = await createPost(author.headers);
    const autosave = (who: Actor, content: string) => app.api('POST', `/cms/v2/posts/${id}/autosaves`, { headers: who.headers, json: { content } });
    await take(author, `posts/${id}`);
    // Holding the lock, the author's autosave of their own draft goes into the draft.
    expect((await autosave(author, 'Before the take-over')).body.id).toBe(id);

    await take(editor, `posts/${id}`, { take_over: true });
    await app.api('POST', `/cms/v2/posts/${id}`, { headers: editor.headers, json: { content: 'The new holder saved this' } });
    // The author's editor, not yet told, autosaves again: beside the draft, not over the new holder's save.
    const kept = await autosave(author, 'Typed after the take-over');
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ parent: id, author: author.id, content: { raw: 'Typed after the take-over' } });
    expect(kept.body.id).not.toBe(id);
    const post = await app.api('GET', `/cms/v2/posts/${id}?context=edit`, { headers: editor.headers });
    expect(post.body.content.raw).toBe('The new holder saved this');
    const autosaves = await app.api('GET', `/cms/v2/posts/${id}/autosaves?context=edit`, { headers: author.headers });
    expect(autosaves.body.map((row: { author: number; content: { raw: string } }) => [row.author, row.content.raw])).toEqual([[author.id, 'Typed after the take-over']]);
  });

  it("keeps a menu item's previous holder's autosave of their own draft beside it after a take-over", async () => {
    const owner = await app.asRole('administrator');
    const menu = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Taken over' } });
    const item = await app.api('POST', '/cms/v2/menu-items', { headers: owner.headers, json: { title: 'Mine', url: 'https://example.org/', menus: menu.body.id, status: 'draft' } });
    expect(item.body.status).toBe('draft');
    const path = `menu-items/${item.body.id}`;
    await take(owner, path);
    await app.api('POST', `/cms/v2/${path}/lock`, { headers: app.admin, json: { take_over: true } });
    const kept = await app.api('POST', `/cms/v2/${path}/autosaves`, { headers: owner.headers, json: { title: 'Typed after the take-over' } });
    expect(kept.status).toBe(200);
    expect(kept.body.id).not.toBe(item.body.id);
    expect((await app.api('GET', `/cms/v2/${path}`, { headers: app.admin, query: { context: 'edit' } })).body.title.raw).toBe('Mine');
  });

  it('lets one of two takers in at the same moment, on a free item and on a lapsed lock', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await createPost(author.headers);
      const free = await Promise.all([take(author, `posts/${id}`), take(editor, `posts/${id}`)]);
      expect(free.map((response) => response.status).sort()).toEqual([200, 409]);
      const winner = free.find((response) => response.status === 200)!.body.user;
      expect((await lockOf(editor, `posts/${id}`)).body.user).toBe(winner);

      aheadMs += (WINDOW_SECONDS + 1) * 1000;
      // Both find the lapsed lock, and both try to replace the version they read: one does.
      const lapsed = await Promise.all([take(author, `posts/${id}`), take(editor, `posts/${id}`)]);
      expect(lapsed.map((response) => response.status).sort()).toEqual([200, 409]);
      const next = lapsed.find((response) => response.status === 200)!.body.user;
      expect((await lockOf(editor, `posts/${id}`)).body.user).toBe(next);
    }
  });

  it('locks templates and menu items under their own routes, for those who may edit them', async () => {
    const administrator = { id: 1, headers: app.admin } as Actor;
    const another = await app.asRole('administrator', { name: 'Second Admin' });
    // A template the site has customized (a stored record over the theme's file).
    expect((await app.api('POST', '/cms/v2/templates/cornerstone//index', { headers: app.admin, json: { content: 'customized' } })).status).toBe(200);
    const template = await take(administrator, 'templates/cornerstone//index');
    expect(template.status).toBe(200);
    expect(template.body._links.up[0].href).toBe(`${app.apiRoot}/cms/v2/templates/cornerstone//index`);
    expect((await take(another, 'templates/cornerstone//index')).body.code).toBe('rest_post_locked');
    expect((await lockOf(another, 'templates/cornerstone//index')).body.user).toBe(1);
    const templateRead = await app.api('GET', '/cms/v2/templates/cornerstone//index', { headers: another.headers, query: { context: 'edit', _embed: 'lock' } });
    expect(templateRead.body.lock).toMatchObject({ user: 1, lapses: template.body.lapses });
    expect(templateRead.body._embedded.lock[0]).toMatchObject({ user: 1, lapses: template.body.lapses });
    // A theme's file, never customized, is not locked, and links to no lock.
    const themeFile = await app.api('GET', '/cms/v2/templates/cornerstone//search', { headers: another.headers, query: { context: 'edit' } });
    expect(themeFile.body.lock).toBeNull();
    expect(themeFile.body._links).not.toHaveProperty('lock');
    // The update's own refusal for those who may not edit templates.
    const update = await app.api('POST', '/cms/v2/templates/cornerstone//index', { headers: author.headers, json: { content: 'x' } });
    const refused = await take(author, 'templates/cornerstone//index');
    expect({ status: refused.status, body: refused.body }).toEqual({ status: update.status, body: update.body });

    const menu = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Locked menu' } });
    const item = await app.api('POST', '/cms/v2/menu-items', { headers: app.admin, json: { title: 'Docs', url: 'https://example.org/docs', menus: menu.body.id } });
    expect((await take(administrator, `menu-items/${item.body.id}`)).status).toBe(200);
    const itemRead = await app.api('GET', `/cms/v2/menu-items/${item.body.id}`, { headers: another.headers, query: { _embed: 'lock' } });
    expect(itemRead.body._embedded.lock[0]).toMatchObject({ user: 1 });
    // As a post's, an item's edit context carries its lock; the list's too.
    const itemInEdit = await app.api('GET', `/cms/v2/menu-items/${item.body.id}`, { headers: another.headers, query: { context: 'edit' } });
    expect(itemInEdit.body.lock).toMatchObject({ user: 1, since: expect.any(String), lapses: expect.any(String) });
    const listInEdit = await app.api('GET', '/cms/v2/menu-items', { headers: another.headers, query: { context: 'edit', menus: menu.body.id } });
    expect(listInEdit.body.map((listed: { lock: unknown }) => listed.lock)).toEqual([expect.objectContaining({ user: 1 })]);
    expect((await app.api('GET', `/cms/v2/menu-items/${item.body.id}`, { headers: another.headers })).body).not.toHaveProperty('lock');
    expect((await take(another, `menu-items/${item.body.id}`)).body.code).toBe('rest_post_locked');
    const updateItem = await app.api('POST', `/cms/v2/menu-items/${item.body.id}`, { headers: author.headers, json: { title: 'x' } });
    const refusedItem = await take(author, `menu-items/${item.body.id}`);
    expect({ status: refusedItem.status, body: refusedItem.body }).toEqual({ status: 403, body: updateItem.body });
    const missingTemplate = await app.api('GET', '/cms/v2/templates/cornerstone//no-such-template', { headers: app.admin });
    expect((await take(administrator, 'templates/cornerstone//no-such-template')).body).toEqual(missingTemplate.body);
    expect((await release(another, `menu-items/${item.body.id}`)).status).toBe(200);
    expect((await lockOf(administrator, `menu-items/${item.body.id}`)).status).toBe(404);
  });

  it('is described by OPTIONS and the discovery index', async () => {
    const id = await createPost(author.headers);
    const options = await app.api('OPTIONS', `/cms/v2/posts/${id}/lock`);
    expect(options.body.schema.title).toBe('edit-lock');
    expect(options.body.endpoints.map((endpoint: { methods: string[] }) => endpoint.methods)).toEqual([['GET'], ['POST'], ['DELETE']]);
    expect(options.body.endpoints[1].args.take_over).toMatchObject({ type: 'boolean', default: false });
    const index = await app.api('GET', '/');
    for (const route of ['/cms/v2/posts/(?P<id>[\\d]+)/lock', '/cms/v2/pages/(?P<id>[\\d]+)/lock', '/cms/v2/menu-items/(?P<id>[\\d]+)/lock']) {
      expect(Object.keys(index.body.routes)).toContain(route);
    }
    const openapi = await app.api('GET', '/openapi.json');
    const lockPaths = Object.keys(openapi.body.paths).filter((path) => path.endsWith('/lock'));
    expect(lockPaths).toEqual(expect.arrayContaining(['/cms/v2/posts/{id}/lock', '/cms/v2/pages/{id}/lock', '/cms/v2/menu-items/{id}/lock']));
    expect(Object.keys(openapi.body.paths['/cms/v2/posts/{id}/lock']).sort()).toEqual(['delete', 'get', 'post']);
  });
});
