import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resources } from '../../src/resources/index.js';
import { projectionsOf } from '../../src/resources/manifest.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { rebuildProjections } from '../../src/store/projections/projections.js';
import { menuFor } from '../support/menus.js';
import { testAppForFile, usersFor } from '../support/test-app.js';

type Json = Record<string, any>;

// Each describe puts its items in a menu of its own (menuFor): the menu order an item is given
// depends on the items before it in its menu.
const app = testAppForFile();
const users = usersFor(app, ['editor']);

/** A menu item in `menu` (unless `json` names another), by the administrator. */
async function createItem(menu: { id: number }, json: Json): Promise<Json> {
  const response = await app.api('POST', '/cms/v2/menu-items', { headers: app.admin, json: { menus: menu.id, ...json } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}
const getItem = async (id: number) => (await app.api('GET', `/cms/v2/menu-items/${id}`, { headers: app.admin, query: { context: 'edit' } })).body;
const refusal = async (json: Json, id?: number) => {
  const response = await app.api('POST', id ? `/cms/v2/menu-items/${id}` : '/cms/v2/menu-items', { headers: app.admin, json });
  expect(response.status).toBe(400);
  return response.body;
};

describe('menu items', () => {
  const menu = menuFor(app, 'Menu items');
  const otherMenu = menuFor(app, 'Other menu');

  // A menu whose first item this test makes, and so is given menu order 1, whichever test runs first.
  const docsMenu = menuFor(app, 'Docs menu');

  it('creates a custom link in edit context, as WordPress shows one', async () => {
    const response = await app.api('POST', '/cms/v2/menu-items', { headers: app.admin, json: { title: 'Docs', url: 'https://example.org/docs', menus: docsMenu.id } });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${app.apiRoot}/cms/v2/menu-items/${response.body.id}`);
    const { _links, ...fields } = response.body;
    expect(fields).toEqual({
      id: response.body.id, title: { raw: 'Docs', rendered: 'Docs' }, status: 'publish', url: 'https://example.org/docs', attr_title: '', description: '',
      type: 'custom', type_label: 'Custom Link', object: 'custom', object_id: 0, parent: 0, menu_order: 1, target: '', classes: [''], xfn: [''],
      invalid: false, menus: docsMenu.id, meta: {},
    });
    expect(_links.about).toEqual([{ href: `${app.apiRoot}/cms/v2/types/nav_menu_item` }]);
    expect(_links['wp:term']).toEqual([{ href: `${app.apiRoot}/cms/v2/menus?post=${response.body.id}`, taxonomy: 'nav_menu', embeddable: true }]);
    const embedded = await app.api('GET', `/cms/v2/menu-items/${response.body.id}`, { headers: app.admin, query: { _embed: 'wp:term' } });
    expect(embedded.body._embedded['wp:term'][0].map((term: Json) => term.id)).toEqual([docsMenu.id]);
  });

  it('refuses a custom link without title and url with both errors at once', async () => {
    const body = await refusal({ type: 'custom', menus: menu.id });
    expect(body).toEqual({
      code: 'rest_title_required',
      message: 'The title is required when using a custom menu item type.',
      data: { status: 400 },
      additional_errors: [{ code: 'rest_url_required', message: 'The url is required when using a custom menu item type.', data: { status: 400 } }],
    });
    expect((await refusal({ title: 'Bad', url: 'not a url' })).data.details.url.code).toBe('rest_invalid_url');
  });

  it('derives url, label and title from the linked page, and turns invalid when the page is deleted', async () => {
    const page = (await app.api('POST', '/cms/v2/pages', { headers: app.admin, json: { title: 'About us', status: 'publish' } })).body;
    const item = await createItem(menu, { type: 'post_type', object_id: page.id });
    expect(item).toMatchObject({ object: 'page', type_label: 'Page', url: `${app.siteUrl}/?page_id=${page.id}`, title: { raw: 'About us' }, invalid: false });
    expect(item._links['wp:menu-item-object']).toEqual([{ href: `${app.apiRoot}/cms/v2/pages/${page.id}`, post_type: 'page', embeddable: true }]);
    const titled = await createItem(menu, { type: 'post_type', object_id: page.id, title: 'Who we are' });
    expect(titled.title.raw).toBe('Who we are');

    expect((await app.api('DELETE', `/cms/v2/pages/${page.id}`, { headers: app.admin })).status).toBe(200);
    expect((await getItem(item.id)).invalid).toBe(true);
    expect((await app.api('DELETE', `/cms/v2/pages/${page.id}`, { headers: app.admin, query: { force: true } })).status).toBe(200);
    expect(await getItem(item.id)).toMatchObject({ invalid: true, url: '', title: { raw: `#${page.id} (no title)` } });
  });

  it('links categories and archives, and refuses what does not exist', async () => {
    const category = (await app.api('POST', '/cms/v2/categories', { headers: app.admin, json: { name: 'Linked category' } })).body;
    const item = await createItem(menu, { type: 'taxonomy', object_id: category.id });
    expect(item).toMatchObject({ object: 'category', type_label: 'Category', url: `${app.siteUrl}/?cat=${category.id}`, title: { raw: 'Linked category' }, invalid: false });
    expect(item._links['wp:menu-item-object']).toEqual([{ href: `${app.apiRoot}/cms/v2/categories/${category.id}`, taxonomy: 'category', embeddable: true }]);
    await app.api('DELETE', `/cms/v2/categories/${category.id}`, { headers: app.admin, query: { force: true } });
    expect((await getItem(item.id)).invalid).toBe(true);

    const archive = await createItem(menu, { type: 'post_type_archive', object: 'post' });
    expect(archive).toMatchObject({ type_label: 'Post Type Archive', title: { raw: 'Post Archives' }, invalid: false });

    expect((await refusal({ type: 'taxonomy', object_id: 999999 })).code).toBe('rest_term_invalid_id');
    expect((await refusal({ type: 'post_type', object_id: 999999 })).code).toBe('rest_post_invalid_id');
    expect((await refusal({ type: 'post_type_archive', object: 'nothing' })).code).toBe('rest_post_invalid_type');
    expect((await refusal({ title: 'x', url: 'https://x.example', menus: 999999 })).code).toBe('invalid_menu_id');
    expect((await refusal({ title: 'x', url: 'https://x.example', id: 5 })).code).toBe('rest_post_exists');
  });

  it('takes a parent only from the same menu, never itself', async () => {
    const parent = await createItem(menu, { title: 'Parent', url: 'https://example.org/p' });
    const elsewhere = await createItem(menu, { title: 'Elsewhere', url: 'https://example.org/e', menus: otherMenu.id });
    expect((await refusal({ title: 'Child', url: 'https://example.org/c', menus: menu.id, parent: elsewhere.id })).code).toBe('invalid_menu_item_parent');
    const child = await createItem(menu, { title: 'Child', url: 'https://example.org/c', parent: parent.id });
    expect(child.parent).toBe(parent.id);
    expect(await refusal({ parent: child.id }, child.id)).toMatchObject({ code: 'invalid_menu_item_parent', message: 'Menu Item cannot be its own parent.' });
  });

  it('keeps what an update does not send, with WordPress\'s two statuses', async () => {
    const item = await createItem(menu, { title: 'Keep', url: 'https://example.org/k', classes: ['a', 'b'], xfn: ['friend'], target: '_blank', menu_order: 3 });
    expect(item).toMatchObject({ classes: ['a', 'b'], xfn: ['friend'] });
    const updated = await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { title: { raw: 'Kept' }, status: 'pending' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: { raw: 'Kept' }, url: 'https://example.org/k', classes: ['a', 'b'], target: '_blank', menu_order: 3, status: 'publish' });
    const draft = await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { status: 'draft' } });
    expect(draft.body.status).toBe('draft');
    expect((await createItem(menu, { title: 'New pending', url: 'https://example.org/n', status: 'pending' })).status).toBe('draft');
    expect((await app.api('POST', '/cms/v2/menu-items/999999', { headers: app.admin, json: { title: 'x' } })).body.code).toBe('rest_post_invalid_id');
  });

  it('renders the title through the_title (wptexturize, convert_chars, trim) and keeps title.raw verbatim', async () => {
    // WordPress's test_get_item_escapes_title, and quotes and dashes as wptexturize makes them.
    const item = await createItem(menu, { title: '<strong>Foo</strong> & bar', url: 'https://example.org/foo' });
    expect(item.title).toEqual({ raw: '<strong>Foo</strong> & bar', rendered: '<strong>Foo</strong> &#038; bar' });
    const quoted = await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { title: `"Rock 'n' roll" -- since '99...` } });
    expect(quoted.body.title).toEqual({ raw: `"Rock 'n' roll" -- since '99...`, rendered: '&#8220;Rock &#8216;n&#8217; roll&#8221; &#8212; since &#8217;99&#8230;' });
    const viewed = await app.api('GET', `/cms/v2/menu-items/${item.id}`, { headers: app.admin });
    expect(viewed.body.title).toEqual({ rendered: '&#8220;Rock &#8216;n&#8217; roll&#8221; &#8212; since &#8217;99&#8230;' });
    const listed = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { include: [item.id] } });
    expect(listed.body[0].title.rendered).toBe(viewed.body.title.rendered);
  });

  it('keeps each XFN value only as a class-safe token, on create and on update', async () => {
    // WordPress's test_update_item_clean_xfn: sanitize_html_class on each value.
    const bad = ['test1":|":', 'test2+|+', 'test3±', 'test4😀'];
    const good = ['test1', 'test2', 'test3', 'test4'];
    const item = await createItem(menu, { title: 'Rel', url: 'https://example.org/rel', xfn: bad });
    expect(item.xfn).toEqual(good);
    expect((await getItem(item.id)).xfn).toEqual(good);
    const updated = await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { xfn: ['friend"><b', ...bad] } });
    expect(updated.body.xfn).toEqual(['friendb', ...good]);
    expect((await getItem(item.id)).xfn).toEqual(['friendb', ...good]);
  });

  it('lists the published items of a menu in menu order, a hundred a page', async () => {
    const listed = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Ordered menu' } });
    const ids: number[] = [];
    for (const order of [3, 1, 2]) ids.push((await createItem(menu, { title: `Order ${order}`, url: 'https://example.org/o', menus: listed.body.id, menu_order: order })).id);
    await createItem(menu, { title: 'Hidden draft', url: 'https://example.org/d', menus: listed.body.id, status: 'draft' });
    const list = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus: [listed.body.id] } });
    expect(list.status).toBe(200);
    expect(list.body.map((item: Json) => item.title.rendered)).toEqual(['Order 1', 'Order 2', 'Order 3']);
    expect(list.headers.get('x-wp-total')).toBe('3');
    const desc = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus: [listed.body.id], order: 'desc', status: ['draft', 'publish'] } });
    expect(desc.body.map((item: Json) => item.title.rendered)).toEqual(['Order 3', 'Order 2', 'Hidden draft', 'Order 1']);
    const excluded = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus_exclude: [listed.body.id], per_page: 100 } });
    expect(excluded.body.some((item: Json) => ids.includes(item.id))).toBe(false);
    const past = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus: [listed.body.id], page: 9 } });
    expect(past.body.code).toBe('rest_post_invalid_page_number');
  });

  it('takes the posts controller\'s date bounds and searched columns', async () => {
    const options = await app.api('OPTIONS', '/cms/v2/menu-items', { headers: app.admin });
    expect(Object.keys(options.body.endpoints[0].args)).toEqual(expect.arrayContaining(['after', 'before', 'modified_after', 'modified_before', 'search_columns']));
    const word = `needle${randomBytes(4).toString('hex')}`;
    const titled = await createItem(menu, { title: `A ${word} title`, url: 'https://example.org/n1' });
    const described = await createItem(menu, { title: 'Described', url: 'https://example.org/n2', description: `about ${word}` });
    const hinted = await createItem(menu, { title: 'Hinted', url: 'https://example.org/n3', attr_title: `hint ${word}` });
    const list = async (query: Json) => {
      const response = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { per_page: 100, ...query } });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      // The same list of the one menu they are in, whose items are filtered in memory.
      const ofMenu = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { per_page: 100, ...query, menus: [menu.id] } });
      expect(ofMenu.body.map((item: Json) => item.id)).toEqual(response.body.map((item: Json) => item.id));
      expect(ofMenu.headers.get('x-wp-total')).toBe(String(response.body.length));
      return response.body.map((item: Json) => item.id);
    };
    expect(await list({ search: word })).toEqual([titled.id, described.id, hinted.id]);
    expect(await list({ search: word, search_columns: ['post_title'] })).toEqual([titled.id]);
    expect(await list({ search: word, search_columns: ['post_content'] })).toEqual([described.id]);
    expect(await list({ search: word, search_columns: ['post_excerpt', 'post_title'] })).toEqual([titled.id, hinted.id]);
    expect((await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { search: word, search_columns: ['post_name'] } })).body.code).toBe('rest_invalid_param');

    const ids = [titled.id, described.id];
    expect(await list({ include: ids, before: '2000-01-01T00:00:00' })).toEqual([]);
    expect(await list({ include: ids, after: '2000-01-01T00:00:00' })).toEqual(ids);
    expect(await list({ include: ids, before: '2999-01-01T00:00:00+02:00', after: '1999-12-31T23:00:00Z' })).toEqual(ids);
    expect(await list({ include: ids, modified_after: '2999-01-01T00:00:00' })).toEqual([]);
    expect(await list({ include: ids, modified_before: '2999-01-01T00:00:00' })).toEqual(ids);
    const bad = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { before: 'yesterday' } });
    expect(bad.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
  });

  it('deletes only with force, giving children their grandparent; a deleted menu takes its items', async () => {
    const top = await createItem(menu, { title: 'Top', url: 'https://example.org/t' });
    const middle = await createItem(menu, { title: 'Middle', url: 'https://example.org/m', parent: top.id });
    const leaf = await createItem(menu, { title: 'Leaf', url: 'https://example.org/l', parent: middle.id });
    const noForce = await app.api('DELETE', `/cms/v2/menu-items/${middle.id}`, { headers: app.admin });
    expect(noForce.status).toBe(501);
    expect(noForce.body.message).toBe("Menu items do not support trashing. Set 'force=true' to delete.");
    const deleted = await app.api('DELETE', `/cms/v2/menu-items/${middle.id}`, { headers: app.admin, query: { force: true } });
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id: middle.id, title: { rendered: 'Middle' } } });
    expect((await app.api('GET', `/cms/v2/menu-items/${middle.id}`, { headers: app.admin })).status).toBe(404);
    expect((await getItem(leaf.id)).parent).toBe(top.id);

    const doomedMenu = (await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Doomed items menu' } })).body.id;
    const doomed = await createItem(menu, { title: 'Goes with its menu', url: 'https://example.org/g', menus: doomedMenu });
    expect((await app.api('DELETE', `/cms/v2/menus/${doomedMenu}`, { headers: app.admin, query: { force: true } })).status).toBe(200);
    expect((await app.api('GET', `/cms/v2/menu-items/${doomed.id}`, { headers: app.admin })).status).toBe(404);
  });

  it('is for those who edit theme options', async () => {
    const item = await createItem(menu, { title: 'Private', url: 'https://example.org/p' });
    const anonymous = await app.api('GET', '/cms/v2/menu-items');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'rest_cannot_view', message: 'Sorry, you are not allowed to view menu items.' });
    expect((await app.api('GET', `/cms/v2/menu-items/${item.id}`, { headers: users.editor.headers })).status).toBe(403);
    expect((await app.api('POST', '/cms/v2/menu-items', { headers: users.editor.headers, json: { title: 'x', url: 'https://x.example' } })).body.code).toBe('rest_cannot_create');
    expect((await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: users.editor.headers, json: { title: 'x' } })).body.code).toBe('rest_cannot_edit');
    expect((await app.api('DELETE', `/cms/v2/menu-items/${item.id}`, { headers: users.editor.headers, query: { force: true } })).body.code).toBe('rest_cannot_delete');
  });

  it('keeps every change in the change log, and a rebuild from it equals the live items', async () => {
    const pages: number[] = [];
    for (let i = 0; i < 3; i++) pages.push((await app.api('POST', '/cms/v2/pages', { headers: app.admin, json: { title: `Rebuild page ${i}`, status: 'publish' } })).body.id);
    const category = (await app.api('POST', '/cms/v2/categories', { headers: app.admin, json: { name: 'Rebuild category' } })).body.id;
    const items: number[] = [];
    for (let step = 0; step < 30; step++) {
      const roll = (step * 7919) % 10;
      const linked = [{ type: 'post_type', object_id: pages[step % 3] }, { type: 'taxonomy', object_id: category }, { title: `Step ${step}`, url: `https://example.org/${step}`, menu_order: step + 1 }];
      if (roll < 4 || items.length === 0) {
        items.push((await createItem(menu, linked[step % 3])).id);
      } else if (roll === 4) {
        await app.api('POST', `/cms/v2/menu-items/${items[step % items.length]}/autosaves`, { headers: app.admin, json: { description: `autosaved ${step}` } });
      } else if (roll < 8) {
        await app.api('POST', `/cms/v2/menu-items/${items[step % items.length]}`, { headers: app.admin, json: { menu_order: step + 1, classes: [`c${step}`], description: `d${step}` } });
      } else {
        const [gone] = items.splice(step % items.length, 1);
        await app.api('DELETE', `/cms/v2/menu-items/${gone}`, { headers: app.admin, query: { force: true } });
      }
    }
    await app.api('DELETE', `/cms/v2/pages/${pages[0]}`, { headers: app.admin, query: { force: true } });
    await app.api('DELETE', `/cms/v2/categories/${category}`, { headers: app.admin, query: { force: true } });
    const db = app.deps.store.db;
    const live = async () => ({
      items: await db.collection('menu_items').find({}).sort({ _id: 1 }).toArray(),
      posts: await db.collection('posts').find({}).sort({ _id: 1 }).toArray(),
      revisions: await db.collection('revisions').find({}).sort({ _id: 1 }).toArray(),
    });
    const before = await live();
    expect(before.revisions.some((row) => row.kind === 'autosave' && row.item)).toBe(true);
    expect(before.items.some((item) => item.type === 'taxonomy')).toBe(true);
    const events = await changeLog(db).readStream(items[0]);
    expect(events.map((event) => event.streamType)).toContain('nav_menu_item');
    await rebuildProjections(db, changeLog(db), projectionsOf(resources));
    expect(await live()).toEqual(before);
  });
});

describe('menu item slugs', () => {
  const menu = menuFor(app, 'Menu item slugs');

  // Titles unique to this run, so that each slug is decided against these items alone.
  const word = `slug${randomBytes(4).toString('hex')}`;
  /** The ids a list by `slug` finds (every status), in menu order. */
  const bySlug = async (slug: string | string[], query: Json = {}) => {
    const response = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { slug, status: ['publish', 'draft'], ...query } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.map((item: Json) => item.id);
  };

  it("is the title's slug, or the id without a title, made unique, and never shown", async () => {
    const first = await createItem(menu, { title: `Contact ${word}`, url: 'https://example.org/c1' });
    const second = await createItem(menu, { title: `Contact ${word}!`, url: 'https://example.org/c2' });
    expect(await bySlug(`contact-${word}`)).toEqual([first.id]);
    expect(await bySlug(`contact-${word}-2`)).toEqual([second.id]);

    const page = (await app.api('POST', '/cms/v2/pages', { headers: app.admin, json: { title: `Page ${word}`, status: 'publish' } })).body;
    const untitled = await createItem(menu, { type: 'post_type', object_id: page.id });
    expect(untitled.title.raw).toBe(`Page ${word}`);
    expect(await bySlug(String(untitled.id))).toEqual([untitled.id]);
    // An id is made unique too: here another item took it as its title's slug first.
    const draft = await createItem(menu, { type: 'post_type', object_id: page.id, status: 'draft' });
    const numbered = await createItem(menu, { title: String(draft.id), url: 'https://example.org/n' });
    await app.api('POST', `/cms/v2/menu-items/${draft.id}`, { headers: app.admin, json: { status: 'publish' } });
    expect(await bySlug(String(draft.id))).toEqual([numbered.id]);
    expect(await bySlug(`${draft.id}-2`)).toEqual([draft.id]);

    // WP_REST_Menu_Items_Controller's schema has no slug: no response shows one.
    expect(first.slug).toBeUndefined();
    expect((await getItem(first.id)).slug).toBeUndefined();
    const options = await app.api('OPTIONS', '/cms/v2/menu-items', { headers: app.admin });
    expect(options.body.schema.properties.slug).toBeUndefined();
    expect(options.body.endpoints[0].args.slug).toMatchObject({ description: 'Limit result set to posts with one or more specific slugs.', type: 'array', items: { type: 'string' } });
  });

  it('is kept through title changes and a restore, and given only by the first publish', async () => {
    const item = await createItem(menu, { title: `Shop ${word}`, url: 'https://example.org/shop', status: 'draft' });
    expect(await bySlug(`shop-${word}`)).toEqual([]);
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { title: `Store ${word}` } });
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { status: 'publish' } });
    expect(await bySlug(`store-${word}`)).toEqual([item.id]);

    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { title: `Boutique ${word}`, status: 'draft' } });
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { status: 'publish' } });
    expect(await bySlug(`store-${word}`)).toEqual([item.id]);
    expect(await bySlug(`boutique-${word}`)).toEqual([]);

    // The first revision kept the draft, without a slug: restoring it brings the draft back, not the empty slug.
    const revisions = (await app.api('GET', `/cms/v2/menu-items/${item.id}/revisions`, { headers: app.admin, query: { context: 'edit' } })).body;
    const draftRevision = revisions.at(-1);
    expect(draftRevision).toMatchObject({ title: { raw: `Store ${word}` }, status: 'draft' });
    const restored = await app.api('POST', `/cms/v2/menu-items/${item.id}/revisions/${draftRevision.id}/restore`, { headers: app.admin });
    expect(restored.body.status).toBe('draft');
    expect(await bySlug(`store-${word}`)).toEqual([item.id]);
  });

  it('filters the list by one slug or several, with the other filters and pages, and orders it by slug', async () => {
    const other = (await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: `Slug menu ${word}` } })).body.id;
    // Created out of slug order, so that neither ids nor menu order give it.
    const c = await createItem(menu, { title: `C ${word}`, url: 'https://example.org/c', menu_order: 2 });
    const a = await createItem(menu, { title: `A ${word}`, url: 'https://example.org/a', menus: other, menu_order: 3 });
    const b = await createItem(menu, { title: `B ${word}`, url: 'https://example.org/b', menus: other, menu_order: 1 });
    const slugs = [`a-${word}`, `b-${word}`, `c-${word}`];
    expect(await bySlug(slugs)).toEqual([b.id, c.id, a.id]);
    expect(await bySlug(slugs.join(','))).toEqual([b.id, c.id, a.id]);
    expect(await bySlug(slugs, { menus: [other] })).toEqual([b.id, a.id]);
    expect(await bySlug(slugs, { exclude: [c.id], order: 'desc' })).toEqual([a.id, b.id]);
    const page = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { slug: slugs, per_page: 2, page: 2 } });
    expect(page.body.map((item: Json) => item.id)).toEqual([a.id]);
    expect([page.headers.get('x-wp-total'), page.headers.get('x-wp-totalpages')]).toEqual(['3', '2']);
    expect(await bySlug(slugs, { orderby: 'slug' })).toEqual([a.id, b.id, c.id]);
    expect(await bySlug(slugs, { orderby: 'slug', order: 'desc' })).toEqual([c.id, b.id, a.id]);
    expect(await bySlug([slugs[1], slugs[2], slugs[0]], { orderby: 'include_slugs' })).toEqual([b.id, c.id, a.id]);
    const bySlugOrder = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus: [other], orderby: 'slug' } });
    expect(bySlugOrder.body.map((item: Json) => item.id)).toEqual([a.id, b.id]);
  });

  it('goes from the log with the rest of the content when the item is deleted', async () => {
    const item = await createItem(menu, { title: `Secret ${word}`, url: 'https://example.org/s' });
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { title: `Public ${word}` } });
    expect(JSON.stringify(await changeLog(app.deps.store.db).readStream(item.id))).toContain(`secret-${word}`);
    expect((await app.api('DELETE', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, query: { force: true } })).status).toBe(200);
    expect(JSON.stringify(await changeLog(app.deps.store.db).readStream(item.id))).not.toContain(`secret-${word}`);
  });

  it('is rebuilt from the log as the live items have it, and an item whose events carry none has its id', async () => {
    const db = app.deps.store.db;
    const titled = await createItem(menu, { title: `Rebuilt ${word}`, url: 'https://example.org/r1' });
    const twin = await createItem(menu, { title: `Rebuilt ${word}`, url: 'https://example.org/r2', status: 'draft' });
    await app.api('POST', `/cms/v2/menu-items/${twin.id}`, { headers: app.admin, json: { status: 'publish' } });
    await app.api('POST', `/cms/v2/menu-items/${titled.id}`, { headers: app.admin, json: { title: `Renamed ${word}` } });
    // An item created before menu items kept a slug: its events carry none.
    const legacy = await createItem(menu, { title: `Legacy ${word}`, url: 'https://example.org/r3' });
    const row = (await db.collection('events').findOne({ stream: legacy.id, seq: 1 }))!;
    const { slug: _dropped, ...withoutSlug } = JSON.parse(row.data).fields;
    await db.collection('events').updateOne({ _id: row._id }, { $set: { data: JSON.stringify({ fields: withoutSlug }) } });
    expect(JSON.stringify(await changeLog(db).readStream(legacy.id))).not.toContain('"slug"');

    const items = () => db.collection('menu_items').find({ _id: { $in: [titled.id, twin.id] } }).sort({ _id: 1 }).toArray();
    const before = await items();
    expect(before.map((doc) => doc.slug)).toEqual([`rebuilt-${word}`, `rebuilt-${word}-2`]);
    await rebuildProjections(db, changeLog(db), projectionsOf(resources));
    expect(await items()).toEqual(before);
    expect(await bySlug([`rebuilt-${word}`, `rebuilt-${word}-2`], { orderby: 'id' })).toEqual([titled.id, twin.id]);
    expect(await bySlug(String(legacy.id))).toEqual([legacy.id]);
    expect(await bySlug(`legacy-${word}`)).toEqual([]);
  });
});

describe('menu item history', () => {
  const menu = menuFor(app, 'Menu item history');

  it('lists every change of an item, oldest first, with the fields each touched, for those who edit theme options', async () => {
    const item = await createItem(menu, { title: 'Tracked', url: 'https://example.org/t' });
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { menu_order: 4, attr_title: 'Hint' } });
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { menu_order: 4 } });
    const history = await app.api('GET', `/cms/v2/menu-items/${item.id}/history`, { headers: app.admin });
    expect(history.status).toBe(200);
    expect(history.body.map((entry: Json) => entry.type)).toEqual(['created', 'updated']);
    expect(history.body[1].fields).toEqual(['attr_title', 'menu_order']);
    expect(history.body[0]._links.up).toEqual([{ href: `${app.apiRoot}/cms/v2/menu-items/${item.id}`, embeddable: true }]);
    expect((await app.api('GET', `/cms/v2/menu-items/${item.id}/history`, { headers: users.editor.headers })).status).toBe(403);
    expect((await app.api('GET', '/cms/v2/menu-items/999999/history', { headers: app.admin })).body.code).toBe('rest_post_invalid_id');

    const stream = await app.api('GET', `/cms/v2/menu-items/${item.id}/history`, { headers: { ...app.admin, Accept: 'application/x-ndjson' } });
    expect(stream.text.trim().split('\n').map((line) => JSON.parse(line).seq)).toEqual([1, 2]);
  });
});

describe('menu item revisions and autosaves', () => {
  const menu = menuFor(app, 'Menu item revisions and autosaves');

  it('keeps a revision of every field at each change, with diff and restore', async () => {
    const item = await createItem(menu, { title: 'Shop', url: 'https://example.org/shop', classes: ['a'] });
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { title: 'Store', url: 'https://example.org/store' } });
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { classes: ['a', 'b'], target: '_blank' } });
    const list = await app.api('GET', `/cms/v2/menu-items/${item.id}/revisions`, { headers: app.admin, query: { context: 'edit' } });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    const [newest, older] = list.body;
    expect(newest).toMatchObject({ parent: item.id, title: { raw: 'Store' }, url: 'https://example.org/store', classes: ['a', 'b'], target: '_blank', menus: menu.id, type: 'custom' });
    expect(older).toMatchObject({ title: { raw: 'Store' }, classes: ['a'], target: '' });
    expect(newest._links.parent).toEqual([{ href: `${app.apiRoot}/cms/v2/menu-items/${item.id}` }]);
    const view = await app.api('GET', `/cms/v2/menu-items/${item.id}/revisions/${older.id}`, { headers: app.admin });
    expect(view.body.url).toBeUndefined();

    const diff = await app.api('GET', `/cms/v2/menu-items/${item.id}/revisions/${newest.id}/diff`, { headers: app.admin });
    expect(diff.status).toBe(200);
    expect(diff.body.from).toBe(older.id);
    expect(diff.body.fields.classes.changed).toBe(true);
    expect(diff.body.fields.target.changed).toBe(true);
    expect(diff.body.fields.url.changed).toBe(false);

    const restored = await app.api('POST', `/cms/v2/menu-items/${item.id}/revisions/${older.id}/restore`, { headers: app.admin });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: item.id, classes: ['a'], target: '', title: { raw: 'Store' } });
    const history = await app.api('GET', `/cms/v2/menu-items/${item.id}/history`, { headers: app.admin });
    expect(history.body.map((entry: Json) => entry.type)).toEqual(['created', 'updated', 'updated', 'restored']);
    expect((await app.api('GET', `/cms/v2/menu-items/${item.id}/revisions`, { headers: app.admin })).body).toHaveLength(3);

    expect((await app.api('GET', `/cms/v2/menu-items/${item.id}/revisions`, { headers: users.editor.headers })).status).toBe(403);
    expect((await app.api('GET', '/cms/v2/menu-items/999999/revisions', { headers: app.admin })).body.code).toBe('rest_post_invalid_parent');
  });

  it('keeps every field an autosave sends, in edit context, and the rest from the earlier autosave', async () => {
    const item = await createItem(menu, { title: 'Blog', url: 'https://example.org/blog' });
    const first = await app.api('POST', `/cms/v2/menu-items/${item.id}/autosaves`, { headers: app.admin, json: { title: 'Journal', classes: ['highlight'] } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ parent: item.id, title: { raw: 'Journal' }, classes: ['highlight'], url: 'https://example.org/blog' });
    const second = await app.api('POST', `/cms/v2/menu-items/${item.id}/autosaves`, { headers: app.admin, json: { url: 'https://example.org/journal' } });
    expect(second.body).toMatchObject({ id: first.body.id, title: { raw: 'Journal' }, classes: ['highlight'], url: 'https://example.org/journal' });
    expect((await getItem(item.id)).title.raw).toBe('Blog');

    const listed = await app.api('GET', `/cms/v2/menu-items/${item.id}/autosaves`, { headers: app.admin, query: { context: 'edit' } });
    expect(listed.body.map((autosave: Json) => [autosave.id, autosave.url])).toEqual([[first.body.id, 'https://example.org/journal']]);
    const one = await app.api('GET', `/cms/v2/menu-items/${item.id}/autosaves/${first.body.id}`, { headers: app.admin, query: { context: 'edit' } });
    expect(one.body.classes).toEqual(['highlight']);
    expect((await app.api('GET', `/cms/v2/menu-items/${item.id}/autosaves/${first.body.id}`, { headers: app.admin })).body.classes).toBeUndefined();

    const applied = await app.api('POST', `/cms/v2/menu-items/${item.id}/revisions/${first.body.id}/restore`, { headers: app.admin });
    expect(applied.body).toMatchObject({ title: { raw: 'Journal' }, url: 'https://example.org/journal', classes: ['highlight'] });

    const refused = await app.api('POST', `/cms/v2/menu-items/${item.id}/autosaves`, { headers: app.admin, json: { type: 'post_type', object_id: 999999 } });
    expect(refused.body.code).toBe('rest_post_invalid_id');
    expect((await app.api('POST', `/cms/v2/menu-items/${item.id}/autosaves`, { headers: users.editor.headers, json: { title: 'x' } })).status).toBe(403);
  });

  it("saves its author's draft in place", async () => {
    const draft = await createItem(menu, { title: 'Draft link', url: 'https://example.org/d', status: 'draft' });
    const saved = await app.api('POST', `/cms/v2/menu-items/${draft.id}/autosaves`, { headers: app.admin, json: { title: 'Draft link, edited' } });
    expect(saved.body).toMatchObject({ id: draft.id, parent: 0, title: { raw: 'Draft link, edited' } });
    expect((await getItem(draft.id)).title.raw).toBe('Draft link, edited');
    expect((await app.api('GET', `/cms/v2/menu-items/${draft.id}/revisions`, { headers: app.admin })).body).toEqual([]);
  });

  it('erases from the log the words only a deleted revision held', async () => {
    const item = await createItem(menu, { title: 'Plain', url: 'https://example.org/plain' });
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { title: 'Secret launch name' } });
    await app.api('POST', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, json: { title: 'Plain again' } });
    const revisions = (await app.api('GET', `/cms/v2/menu-items/${item.id}/revisions`, { headers: app.admin })).body;
    const secret = revisions.find((revision: Json) => revision.title.rendered === 'Secret launch name');
    const deleted = await app.api('DELETE', `/cms/v2/menu-items/${item.id}/revisions/${secret.id}`, { headers: app.admin, query: { force: true } });
    expect(deleted.status).toBe(200);
    const events = await changeLog(app.deps.store.db).readStream(item.id);
    expect(JSON.stringify(events)).not.toContain('Secret launch name');
    expect(JSON.stringify(events)).toContain('Plain again');
  });
});

describe('long values', () => {
  const menu = menuFor(app, 'Long values');

  it('keeps an item whose title is longer than a database index entry, visible and in title order', async () => {
    const title = randomBytes(3000).toString('hex');
    const item = await createItem(menu, { title, url: 'https://example.org/long' });
    expect((await getItem(item.id)).title.raw).toBe(title);
    const byTitle = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { orderby: 'title', menus: [menu.id], per_page: 100 } });
    expect(byTitle.status).toBe(200);
    expect(byTitle.body.map((entry: Json) => entry.id)).toContain(item.id);
  });
});
