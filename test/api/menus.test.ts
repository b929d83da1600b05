import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

type Headers = Record<string, string>;

let app: TestApp;
let editor: Headers;

beforeAll(async () => {
  app = await createTestApp();
  editor = (await app.asRole('editor')).headers;
});
afterAll(async () => {
  await app?.stop();
});

async function createMenu(json: Record<string, unknown>) {
  const response = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: number; name: string; slug: string; locations: string[]; auto_add: boolean };
}

const menuOf = async (location: string) => (await app.api('GET', `/cms/v2/menu-locations/${location}`, { headers: app.admin })).body.menu as number;

describe('menus', () => {
  it('are nav_menu terms without count, link, taxonomy and parent, answered in view context with their links', async () => {
    const response = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Main navigation', description: 'Top', locations: ['primary'], auto_add: true } });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${app.apiRoot}/cms/v2/menus/${response.body.id}`);
    const { _links, ...fields } = response.body;
    expect(fields).toEqual({ id: response.body.id, description: 'Top', name: 'Main navigation', slug: 'main-navigation', meta: {}, locations: ['primary'], auto_add: true });
    expect(_links.about).toEqual([{ href: `${app.apiRoot}/cms/v2/taxonomies/nav_menu` }]);
    expect(_links['wp:post_type']).toEqual([{ href: `${app.apiRoot}/cms/v2/menu-items?menus=${response.body.id}` }]);
    expect(_links['wp:menu-location']).toEqual([{ href: `${app.apiRoot}/cms/v2/menu-locations/primary`, embeddable: true }]);

    const embedded = await app.api('GET', `/cms/v2/menus/${response.body.id}`, { headers: app.admin, query: { _embed: 'wp:menu-location' } });
    expect(embedded.body._embedded['wp:menu-location'][0]).toMatchObject({ name: 'primary', menu: response.body.id });
  });

  it('lists by name, ten a page, for those who edit theme options only', async () => {
    await createMenu({ name: 'Alpha list' });
    const list = await app.api('GET', '/cms/v2/menus', { headers: app.admin, query: { search: 'list' } });
    expect(list.status).toBe(200);
    expect(list.body.map((menu: { name: string }) => menu.name)).toEqual(['Alpha list']);
    const all = await app.api('GET', '/cms/v2/menus', { headers: app.admin });
    const names = all.body.map((menu: { name: string }) => menu.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));

    const anonymous = await app.api('GET', '/cms/v2/menus');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_cannot_view');
    expect((await app.api('GET', '/cms/v2/menus', { headers: editor })).status).toBe(403);
    const create = await app.api('POST', '/cms/v2/menus', { headers: editor, json: { name: 'Not mine' } });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('rest_cannot_create');
  });

  it('refuses a name another menu has (menu_exists, with its id) and a missing name', async () => {
    const first = await createMenu({ name: 'Footer links' });
    const duplicate = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Footer links', slug: 'another-slug' } });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toMatchObject({ code: 'menu_exists', data: { status: 400, term_id: first.id } });
    expect(duplicate.body.message).toContain('<strong>Footer links</strong>');
    const other = await createMenu({ name: 'Other links' });
    const renamed = await app.api('POST', `/cms/v2/menus/${other.id}`, { headers: app.admin, json: { name: 'Footer links' } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.code).toBe('menu_exists');
    const same = await app.api('POST', `/cms/v2/menus/${first.id}`, { headers: app.admin, json: { name: 'Footer links', description: 'kept' } });
    expect(same.status).toBe(200);
    const missing = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('rest_missing_callback_param');
  });

  it('takes a location from the menu that had it, and replaces its own set when locations are sent', async () => {
    const one = await createMenu({ name: 'Location one', locations: ['footer'] });
    expect(await menuOf('footer')).toBe(one.id);
    const two = await createMenu({ name: 'Location two', locations: ['footer'] });
    expect(await menuOf('footer')).toBe(two.id);
    expect((await app.api('GET', `/cms/v2/menus/${one.id}`, { headers: app.admin })).body.locations).toEqual([]);

    const both = await app.api('POST', `/cms/v2/menus/${two.id}`, { headers: app.admin, json: { locations: ['primary', 'footer'] } });
    expect(both.body.locations).toEqual(['primary', 'footer']);
    const untouched = await app.api('POST', `/cms/v2/menus/${two.id}`, { headers: app.admin, json: { description: 'no locations sent' } });
    expect(untouched.body.locations).toEqual(['primary', 'footer']);
    const none = await app.api('POST', `/cms/v2/menus/${two.id}`, { headers: app.admin, json: { locations: [] } });
    expect(none.body.locations).toEqual([]);
    expect(await menuOf('primary')).toBe(0);
  });

  it('refuses a location the theme does not register, storing nothing', async () => {
    const response = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Nowhere', locations: ['primary', 'basement'] } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { locations: 'Invalid menu location.' }, details: { locations: { code: 'rest_invalid_menu_location', data: { location: 'basement' } } } },
    });
    const list = await app.api('GET', '/cms/v2/menus', { headers: app.admin, query: { search: 'Nowhere' } });
    expect(list.body).toEqual([]);
  });

  it('keeps auto_add until told otherwise', async () => {
    const menu = await createMenu({ name: 'Auto pages', auto_add: true });
    expect(menu.auto_add).toBe(true);
    expect((await app.api('POST', `/cms/v2/menus/${menu.id}`, { headers: app.admin, json: { description: 'x' } })).body.auto_add).toBe(true);
    expect((await app.api('POST', `/cms/v2/menus/${menu.id}`, { headers: app.admin, json: { auto_add: false } })).body.auto_add).toBe(false);
  });

  it('with auto_add, gains every top-level page published for the first time, at its end', async () => {
    const menu = await createMenu({ name: 'Pages as they come', auto_add: true });
    const manual = await app.api('POST', '/cms/v2/menu-items', { headers: app.admin, json: { title: 'First', url: 'https://example.org/', menus: menu.id, menu_order: 5 } });
    const items = async () =>
      (await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus: [menu.id] } })).body.map((item: { object_id: number; menu_order: number }) => [item.object_id, item.menu_order]);
    const page = (json: Record<string, unknown>) => app.api('POST', '/cms/v2/pages', { headers: app.admin, json: { title: 'Auto page', ...json } });

    const published = (await page({ status: 'publish' })).body;
    expect(await items()).toEqual([[0, 5], [published.id, 6]]);
    await app.api('POST', `/cms/v2/pages/${published.id}`, { headers: app.admin, json: { title: 'Edited' } });
    const child = (await page({ status: 'publish', parent: published.id })).body;
    const draft = (await page({ status: 'draft' })).body;
    expect(await items()).toEqual([[0, 5], [published.id, 6]]);
    await app.api('POST', `/cms/v2/pages/${draft.id}`, { headers: app.admin, json: { status: 'publish' } });
    expect(await items()).toEqual([[0, 5], [published.id, 6], [draft.id, 7]]);
    await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'A post is no page', status: 'publish' } });
    expect((await items()).map(([id]: number[]) => id)).not.toContain(child.id);
    expect(manual.status).toBe(201);
  });

  it('deletes only with force, freeing its locations', async () => {
    const menu = await createMenu({ name: 'Doomed', locations: ['primary'], auto_add: true });
    const noForce = await app.api('DELETE', `/cms/v2/menus/${menu.id}`, { headers: app.admin });
    expect(noForce.status).toBe(501);
    expect(noForce.body).toMatchObject({ code: 'rest_trash_not_supported', message: "Menus do not support trashing. Set 'force=true' to delete." });
    const deleted = await app.api('DELETE', `/cms/v2/menus/${menu.id}`, { headers: app.admin, query: { force: true } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id: menu.id, name: 'Doomed', locations: ['primary'], auto_add: true } });
    expect(await menuOf('primary')).toBe(0);
    const gone = await app.api('GET', `/cms/v2/menus/${menu.id}`, { headers: app.admin });
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('rest_term_invalid');
  });
});

describe('menus, as WordPress answers them', () => {
  it('with hide_empty, lists only the menus that have items', async () => {
    const full = await createMenu({ name: 'Hide empty: full' });
    const empty = await createMenu({ name: 'Hide empty: empty' });
    const item = await app.api('POST', '/cms/v2/menu-items', { headers: app.admin, json: { title: 'Home', url: 'https://example.org/', menus: full.id } });
    expect(item.status).toBe(201);
    const listed = async (query: Record<string, string>) =>
      (await app.api('GET', '/cms/v2/menus', { headers: app.admin, query: { search: 'Hide empty', ...query } })).body.map((menu: { id: number }) => menu.id);
    expect(await listed({})).toEqual([empty.id, full.id]);
    expect(await listed({ hide_empty: 'true' })).toEqual([full.id]);
    // Its last item gone, a menu is empty again.
    await app.api('DELETE', `/cms/v2/menu-items/${item.body.id}`, { headers: app.admin, query: { force: 'true' } });
    expect(await listed({ hide_empty: 'true' })).toEqual([]);
  });

  it('makes a new slug from a new name (wp_update_nav_menu_object passes an empty slug), unique among menus', async () => {
    const menu = await createMenu({ name: 'Renamed before' });
    expect(menu.slug).toBe('renamed-before');
    const renamed = await app.api('POST', `/cms/v2/menus/${menu.id}`, { headers: app.admin, json: { name: 'Renamed after' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed after', slug: 'renamed-after' });
    const described = await app.api('POST', `/cms/v2/menus/${menu.id}`, { headers: app.admin, json: { description: 'Same name' } });
    expect(described.body.slug).toBe('renamed-after');

    const other = await createMenu({ name: 'Renamed again' });
    await app.api('POST', `/cms/v2/menus/${other.id}`, { headers: app.admin, json: { name: 'Renamed, other' } });
    const clash = await app.api('POST', `/cms/v2/menus/${menu.id}`, { headers: app.admin, json: { name: 'Renamed other' } });
    expect(clash.status).toBe(200);
    expect(clash.body.slug).toBe('renamed-other-2');
    const read = await app.api('GET', `/cms/v2/menus/${menu.id}`, { headers: app.admin });
    expect(read.body).toMatchObject({ name: 'Renamed other', slug: 'renamed-other-2' });
  });
});

describe('menu locations', () => {
  it("lists the active theme's locations as an object keyed by name, each with its menu", async () => {
    const menu = await createMenu({ name: 'Listed', locations: ['primary'] });
    const response = await app.api('GET', '/cms/v2/menu-locations', { headers: app.admin });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual([...app.deps.themes.active.menuLocations.keys()]);
    expect(response.body.primary).toMatchObject({ name: 'primary', description: app.deps.themes.active.menuLocations.get('primary'), menu: menu.id });
    expect(response.body.primary._links['wp:menu']).toEqual([{ href: `${app.apiRoot}/cms/v2/menus/${menu.id}`, embeddable: true }]);
    expect(response.body.footer.menu).toBe(0);
    expect(response.body.footer._links['wp:menu']).toBeUndefined();
  });

  it('answers 404 for an unknown location and 401/403 without edit_theme_options', async () => {
    const unknown = await app.api('GET', '/cms/v2/menu-locations/basement', { headers: app.admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'rest_menu_location_invalid', message: 'Invalid menu location.' });
    const anonymous = await app.api('GET', '/cms/v2/menu-locations');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'rest_cannot_view', message: 'Sorry, you are not allowed to view menu locations.' });
    expect((await app.api('GET', '/cms/v2/menu-locations/primary', { headers: editor })).status).toBe(403);
  });
});
