import { describe, expect, it } from 'vitest';
import { resources } from '../../src/resources/index.js';
import { demoMenusResource } from '../support/demo-menus.js';
import { testAppForFile, usersFor } from '../support/test-app.js';

type Headers = Record<string, string>;

const app = testAppForFile();
const users = usersFor(app, ['editor', 'author', 'contributor', 'subscriber']);

async function create(base: 'categories' | 'tags', json: Record<string, unknown>, headers: Headers = app.admin) {
  const response = await app.api('POST', `/cms/v2/${base}`, { json, headers });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: number; name: string; slug: string; parent?: number } & Record<string, unknown>;
}

async function setCount(id: number, count: number) {
  await app.deps.store.db.collection('terms').updateOne({ _id: id as never }, { $set: { count } });
}

async function insertPost(fields: Record<string, unknown>) {
  const id = await app.deps.ids.next('content');
  await app.deps.store.db.collection('posts').insertOne({ _id: id, ...fields } as never);
  return id;
}

const names = (body: { name: string }[]) => body.map((term) => term.name);

/** The prev and next entries of a `Link` header. */
function linkHeader(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(/,\s*(?=<)/)) {
    const match = /^<([^>]+)>; rel="([^"]+)"$/.exec(part.trim());
    if (match && (match[2] === 'prev' || match[2] === 'next')) out[match[2]] = match[1];
  }
  return out;
}

describe('the default category', () => {
  it('is seeded at start-up as id 1, "Uncategorized"', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/categories/1');
    expect(status).toBe(200);
    expect(body).toEqual({
      id: 1,
      count: 0,
      description: '',
      link: `${app.siteUrl}/?cat=1`,
      name: 'Uncategorized',
      slug: 'uncategorized',
      taxonomy: 'category',
      parent: 0,
      meta: {},
      _links: {
        self: [{ href: `${app.apiRoot}/cms/v2/categories/1` }],
        collection: [{ href: `${app.apiRoot}/cms/v2/categories` }],
        about: [{ href: `${app.apiRoot}/cms/v2/taxonomies/category` }],
        'wp:post_type': [{ href: `${app.apiRoot}/cms/v2/posts?categories=1` }],
        curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
      },
    });
  });

  it('keeps id 1 out of the term sequence', async () => {
    const tag = await create('tags', { name: 'First Of The Sequence' });
    expect(tag.id).toBeGreaterThan(1);
  });

  it('cannot be deleted: 501 without force, 400 with it (WordPress: 500), 403 for those who may not delete terms', async () => {
    const noForce = await app.api('DELETE', '/cms/v2/categories/1', { headers: app.admin });
    expect(noForce.status).toBe(501);
    expect(noForce.body.code).toBe('rest_trash_not_supported');
    for (const headers of [app.admin, users.editor.headers]) {
      const forced = await app.api('DELETE', '/cms/v2/categories/1', { headers, query: { force: true } });
      expect(forced.status).toBe(400);
      expect(forced.body).toEqual({ code: 'rest_cannot_delete', message: 'The term cannot be deleted.', data: { status: 400 } });
    }
    const refused = await app.api('DELETE', '/cms/v2/categories/1', { headers: users.subscriber.headers, query: { force: true } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: 'rest_cannot_delete', message: 'Sorry, you are not allowed to delete this term.', data: { status: 403 } });
    expect((await app.api('GET', '/cms/v2/categories/1')).status).toBe(200);
  });
});

describe('creating terms', () => {
  it('lets contributors and above create tags, answering 201 with Location in edit context', async () => {
    for (const [index, headers] of [app.admin, users.editor.headers, users.author.headers, users.contributor.headers].entries()) {
      const { status, headers: responseHeaders, body } = await app.api('POST', '/cms/v2/tags', {
        headers,
        json: { name: `Role Tag ${index}`, description: 'A tag.', meta: { colour: 'red' } },
      });
      expect(status).toBe(201);
      expect(responseHeaders.get('location')).toBe(`${app.apiRoot}/cms/v2/tags/${body.id}`);
      const { _links, ...fields } = body;
      expect(fields).toEqual({
        id: body.id,
        count: 0,
        description: 'A tag.',
        link: `${app.siteUrl}/?tag=role-tag-${index}`,
        name: `Role Tag ${index}`,
        slug: `role-tag-${index}`,
        taxonomy: 'post_tag',
        // No term meta is registered: WordPress ignores the unregistered key.
        meta: {},
      });
      expect(_links['wp:post_type']).toEqual([{ href: `${app.apiRoot}/cms/v2/posts?tags=${body.id}` }]);
    }
  });

  it('refuses tags to subscribers (403) and anonymous callers (401)', async () => {
    const message = 'Sorry, you are not allowed to create terms in this taxonomy.';
    const asSubscriber = await app.api('POST', '/cms/v2/tags', { headers: users.subscriber.headers, json: { name: 'Nope' } });
    expect(asSubscriber.status).toBe(403);
    expect(asSubscriber.body).toEqual({ code: 'rest_cannot_create', message, data: { status: 403 } });
    const anonymous = await app.api('POST', '/cms/v2/tags', { json: { name: 'Nope' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ code: 'rest_cannot_create', message, data: { status: 401 } });
  });

  it('lets only editors and administrators create categories', async () => {
    expect((await create('categories', { name: 'Editor Category' }, users.editor.headers)).slug).toBe('editor-category');
    for (const [headers, status] of [[users.author.headers, 403], [users.contributor.headers, 403], [users.subscriber.headers, 403], [{}, 401]] as const) {
      const response = await app.api('POST', '/cms/v2/categories', { headers, json: { name: 'Refused Category' } });
      expect(response.status).toBe(status);
      expect(response.body.code).toBe('rest_cannot_create');
    }
  });

  it('requires a name, and refuses one that is empty once trimmed', async () => {
    const missing = await app.api('POST', '/cms/v2/tags', { headers: app.admin, json: { description: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'rest_missing_callback_param', message: 'Missing parameter(s): name', data: { status: 400, params: ['name'] } });
    const blank = await app.api('POST', '/cms/v2/tags', { headers: app.admin, json: { name: '   ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ code: 'empty_term_name', message: 'A name is required for this term.', data: { status: 400 } });
  });

  it('stores names as WordPress does: tags stripped, special characters escaped', async () => {
    const tag = await create('tags', { name: '<b>Fish</b>   &  Chips' });
    expect(tag.name).toBe('Fish &amp; Chips');
    expect(tag.slug).toBe('fish-chips');
    const entity = await create('tags', { name: 'Salt &amp; Vinegar' });
    expect(entity.name).toBe('Salt &amp; Vinegar');
  });

  it('derives slugs from names and numbers slugs that are taken', async () => {
    const first = await create('tags', { name: 'Taken Slug', slug: 'taken' });
    const second = await create('tags', { name: 'Another Name', slug: 'taken' });
    const third = await create('tags', { name: 'Yet Another', slug: 'Taken' });
    expect([first.slug, second.slug, third.slug]).toEqual(['taken', 'taken-2', 'taken-3']);
    expect((await create('tags', { name: 'Café Crème' })).slug).toBe('cafe-creme');
    const symbols = await create('tags', { name: '!!!' });
    expect(symbols.slug).toBe(String(symbols.id));
  });

  it('takes a name holding line and paragraph separators, and refuses it a second time', async () => {
    // The duplicate check matches the name by pattern: one made as a RegExp wrote U+2028 as `\u2028`, which the database refused (500).
    const name = 'Lines\u2028and\u2029paragraphs\u0085';
    const first = await app.api('POST', '/cms/v2/tags', { headers: app.admin, json: { name } });
    expect(first.status).toBe(201);
    const again = await app.api('POST', '/cms/v2/tags', { headers: app.admin, json: { name } });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('term_exists');
  });

  it('refuses a tag name already in the taxonomy with term_exists and the existing id', async () => {
    const existing = await create('tags', { name: 'Duplicate Tag' });
    for (const name of ['Duplicate Tag', 'duplicate tag']) {
      const { status, body } = await app.api('POST', '/cms/v2/tags', { headers: app.admin, json: { name } });
      expect(status).toBe(400);
      expect(body).toEqual({
        code: 'term_exists',
        message: 'A term with the name provided already exists in this taxonomy.',
        data: { status: 400, term_id: existing.id },
        additional_data: [existing.id, existing.id],
      });
    }
    const sameSlug = await app.api('POST', '/cms/v2/tags', { headers: app.admin, json: { name: 'Duplicate Tag', slug: 'duplicate-tag' } });
    expect(sameSlug.status).toBe(400);
    // A slug of one's own makes a second term of the same name acceptable, as in WordPress.
    const ownSlug = await create('tags', { name: 'Duplicate Tag', slug: 'duplicate-tag-elsewhere' });
    expect(ownSlug.slug).toBe('duplicate-tag-elsewhere');
  });

  it('refuses a category name already used under the same parent only', async () => {
    const parent = await create('categories', { name: 'Fruit' });
    const apple = await create('categories', { name: 'Apple' });
    const { status, body } = await app.api('POST', '/cms/v2/categories', { headers: app.admin, json: { name: 'Apple' } });
    expect(status).toBe(400);
    expect(body).toMatchObject({
      code: 'term_exists',
      message: 'A term with the name provided already exists with this parent.',
      data: { status: 400, term_id: apple.id },
    });
    const nested = await create('categories', { name: 'Apple', parent: parent.id });
    expect(nested).toMatchObject({ name: 'Apple', parent: parent.id, slug: 'apple-fruit' });
    const again = await app.api('POST', '/cms/v2/categories', { headers: app.admin, json: { name: 'Apple', parent: parent.id } });
    expect(again.status).toBe(400);
    expect(again.body.data.term_id).toBe(nested.id);
    const deeper = await create('categories', { name: 'Apple', parent: nested.id });
    expect(deeper.slug).toBe('apple-apple-fruit');
  });

  it('accepts parent 0, refuses an unknown parent and any parent on tags', async () => {
    expect((await create('categories', { name: 'Top Level', parent: 0 })).parent).toBe(0);
    const tag = await create('tags', { name: 'Not A Parent' });
    for (const parent of [999999, tag.id]) {
      const { status, body } = await app.api('POST', '/cms/v2/categories', { headers: app.admin, json: { name: 'Orphan', parent } });
      expect(status).toBe(400);
      expect(body).toEqual({ code: 'rest_term_invalid', message: 'Parent term does not exist.', data: { status: 400 } });
    }
    const flat = await app.api('POST', '/cms/v2/tags', { headers: app.admin, json: { name: 'Flat', parent: 1 } });
    expect(flat.status).toBe(400);
    expect(flat.body).toEqual({
      code: 'rest_taxonomy_not_hierarchical',
      message: 'Cannot set parent term, taxonomy is not hierarchical.',
      data: { status: 400 },
    });
  });
});

describe('reading terms', () => {
  it('answers 404 rest_term_invalid for an unknown id or a term of another taxonomy', async () => {
    const tag = await create('tags', { name: 'Only A Tag' });
    for (const route of ['/cms/v2/tags/999999', `/cms/v2/categories/${tag.id}`, '/cms/v2/tags/0']) {
      const { status, body } = await app.api('GET', route);
      expect(status).toBe(404);
      expect(body).toEqual({ code: 'rest_term_invalid', message: 'Term does not exist.', data: { status: 404 } });
    }
  });

  it('shows view, embed and edit contexts with their fields', async () => {
    const tag = await create('tags', { name: 'Context Tag', description: 'Described', meta: { k: 'v' } });
    const view = await app.api('GET', `/cms/v2/tags/${tag.id}`);
    expect(Object.keys(view.body).sort()).toEqual(['_links', 'count', 'description', 'id', 'link', 'meta', 'name', 'slug', 'taxonomy']);
    const embed = await app.api('GET', `/cms/v2/tags/${tag.id}`, { query: { context: 'embed' } });
    expect(embed.body).toMatchObject({ id: tag.id, link: `${app.siteUrl}/?tag=context-tag`, name: 'Context Tag', slug: 'context-tag', taxonomy: 'post_tag' });
    expect(Object.keys(embed.body).sort()).toEqual(['_links', 'id', 'link', 'name', 'slug', 'taxonomy']);
    const edit = await app.api('GET', `/cms/v2/tags/${tag.id}`, { query: { context: 'edit' }, headers: users.editor.headers });
    expect(edit.status).toBe(200);
    expect(edit.body.meta).toEqual({});
    const fields = await app.api('GET', `/cms/v2/tags/${tag.id}`, { query: { _fields: 'id,name' } });
    expect(fields.body).toEqual({ id: tag.id, name: 'Context Tag' });
  });

  it('refuses edit context to those who cannot edit terms', async () => {
    for (const route of ['/cms/v2/categories', '/cms/v2/categories/1']) {
      const message = route.endsWith('/1') ? 'Sorry, you are not allowed to edit this term.' : 'Sorry, you are not allowed to edit terms in this taxonomy.';
      const anonymous = await app.api('GET', route, { query: { context: 'edit' } });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ code: 'rest_forbidden_context', message, data: { status: 401 } });
      const asAuthor = await app.api('GET', route, { query: { context: 'edit' }, headers: users.author.headers });
      expect(asAuthor.status).toBe(403);
      expect(asAuthor.body.code).toBe('rest_forbidden_context');
      expect((await app.api('GET', route, { query: { context: 'edit' }, headers: users.editor.headers })).status).toBe(200);
    }
  });

  it('links a child to its parent and embeds it with _embed', async () => {
    const parent = await create('categories', { name: 'Embed Parent' });
    const child = await create('categories', { name: 'Embed Child', parent: parent.id });
    const { body } = await app.api('GET', `/cms/v2/categories/${child.id}`, { query: { _embed: 'up' } });
    expect(body._links.up).toEqual([{ href: `${app.apiRoot}/cms/v2/categories/${parent.id}`, embeddable: true }]);
    expect(body._embedded.up).toHaveLength(1);
    const { _links, ...embedded } = body._embedded.up[0];
    expect(embedded).toEqual({
      id: parent.id,
      link: `${app.siteUrl}/?cat=${parent.id}`,
      name: 'Embed Parent',
      slug: 'embed-parent',
      taxonomy: 'category',
    });
    expect(_links.self).toEqual([{ href: `${app.apiRoot}/cms/v2/categories/${parent.id}` }]);
    const top = await app.api('GET', `/cms/v2/categories/${parent.id}`, { query: { _embed: 1 } });
    expect(top.body._links.up).toBeUndefined();
    expect(top.body._embedded).toBeUndefined();
  });

  it('states the allowed methods per caller', async () => {
    expect((await app.api('GET', '/cms/v2/categories/1')).headers.get('allow')).toBe('GET');
    expect((await app.api('GET', '/cms/v2/categories/1', { headers: users.editor.headers })).headers.get('allow')).toBe('GET, POST, PUT, PATCH, DELETE');
    expect((await app.api('GET', '/cms/v2/tags', { headers: users.contributor.headers })).headers.get('allow')).toBe('GET, POST');
    expect((await app.api('GET', '/cms/v2/categories', { headers: users.contributor.headers })).headers.get('allow')).toBe('GET');
  });

  it('describes each taxonomy in OPTIONS: categories have a parent, tags do not', async () => {
    const categories = await app.api('OPTIONS', '/cms/v2/categories');
    expect(categories.status).toBe(200);
    expect(categories.body.schema.title).toBe('category');
    expect(Object.keys(categories.body.schema.properties).sort()).toEqual(
      ['count', 'description', 'id', 'link', 'meta', 'name', 'parent', 'slug', 'taxonomy'],
    );
    expect(Object.keys(categories.body.endpoints[0].args).sort()).toEqual(
      ['context', 'exclude', 'hide_empty', 'include', 'offset', 'order', 'orderby', 'page', 'parent', 'per_page', 'post', 'search', 'slug'],
    );
    expect(categories.body.endpoints[0].args.orderby).toMatchObject({
      default: 'name',
      enum: ['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'],
    });
    expect(Object.keys(categories.body.endpoints[1].args).sort()).toEqual(['description', 'meta', 'name', 'parent', 'slug']);
    const tags = await app.api('OPTIONS', '/cms/v2/tags');
    expect(tags.body.schema.title).toBe('tag');
    expect(tags.body.schema.properties.taxonomy.enum).toEqual(['post_tag']);
    expect(tags.body.schema.properties.parent).toBeUndefined();
    expect(tags.body.endpoints[0].args.parent).toBeUndefined();
  });
});

describe('listing terms', () => {
  it('orders by name ascending by default, and by id, slug, count or description on request', async () => {
    const cantaloupe = await create('tags', { name: 'Ord Cantaloupe', slug: 'ord-a', description: 'b' });
    const apple = await create('tags', { name: 'Ord Apple', slug: 'ord-c', description: 'c' });
    const banana = await create('tags', { name: 'Ord Banana', slug: 'ord-b', description: 'a' });
    await setCount(apple.id, 5);
    await setCount(banana.id, 1);
    const list = async (query: Record<string, string | number> = {}) => {
      const response = await app.api('GET', '/cms/v2/tags', { query: { search: 'Ord ', ...query } });
      expect(response.status).toBe(200);
      return names(response.body);
    };
    expect(await list()).toEqual(['Ord Apple', 'Ord Banana', 'Ord Cantaloupe']);
    expect(await list({ order: 'desc' })).toEqual(['Ord Cantaloupe', 'Ord Banana', 'Ord Apple']);
    expect(await list({ orderby: 'id' })).toEqual(['Ord Cantaloupe', 'Ord Apple', 'Ord Banana']);
    expect(await list({ orderby: 'id', order: 'desc' })).toEqual(['Ord Banana', 'Ord Apple', 'Ord Cantaloupe']);
    expect(await list({ orderby: 'slug' })).toEqual(['Ord Cantaloupe', 'Ord Banana', 'Ord Apple']);
    expect(await list({ orderby: 'count', order: 'desc' })).toEqual(['Ord Apple', 'Ord Banana', 'Ord Cantaloupe']);
    expect(await list({ orderby: 'description' })).toEqual(['Ord Banana', 'Ord Cantaloupe', 'Ord Apple']);
    expect(cantaloupe.id).toBeLessThan(apple.id);
    const invalid = await app.api('GET', '/cms/v2/tags', { query: { orderby: 'invalid' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('rest_invalid_param');
    expect(invalid.body.data.params.orderby).toBe('orderby is not one of id, include, name, slug, include_slugs, term_group, description, count.');
  });

  it('filters by include (in the given order with orderby=include), exclude and slug', async () => {
    const one = await create('tags', { name: 'Inc One' });
    const two = await create('tags', { name: 'Inc Two' });
    const three = await create('tags', { name: 'Inc Three' });
    const included = await app.api('GET', '/cms/v2/tags', { query: { include: [three.id, one.id] } });
    expect(names(included.body)).toEqual(['Inc One', 'Inc Three']);
    const inOrder = await app.api('GET', '/cms/v2/tags', { query: { include: [three.id, one.id], orderby: 'include' } });
    expect(names(inOrder.body)).toEqual(['Inc Three', 'Inc One']);
    const reversed = await app.api('GET', '/cms/v2/tags', { query: { include: [three.id, one.id], orderby: 'include', order: 'desc' } });
    expect(names(reversed.body)).toEqual(['Inc One', 'Inc Three']);
    const excluded = await app.api('GET', '/cms/v2/tags', { query: { search: 'Inc ', exclude: [two.id] } });
    expect(names(excluded.body)).toEqual(['Inc One', 'Inc Three']);
    const bySlug = await app.api('GET', '/cms/v2/tags', { query: { slug: 'inc-two,inc-one' } });
    expect(names(bySlug.body)).toEqual(['Inc One', 'Inc Two']);
    const bySlugOrder = await app.api('GET', '/cms/v2/tags', { query: { slug: ['inc-two', 'inc-three', 'inc-one'], orderby: 'include_slugs' } });
    expect(names(bySlugOrder.body)).toEqual(['Inc Two', 'Inc Three', 'Inc One']);
    const badInclude = await app.api('GET', '/cms/v2/tags', { query: { include: ['abc'] } });
    expect(badInclude.status).toBe(400);
    expect(badInclude.body.code).toBe('rest_invalid_param');
  });

  it('searches names and slugs, case-insensitively and literally', async () => {
    await create('tags', { name: 'Search Target', slug: 'needle-in-slug' });
    await create('tags', { name: 'Dots a.b' });
    await create('tags', { name: 'Dots axb' });
    expect(names((await app.api('GET', '/cms/v2/tags', { query: { search: 'search tar' } })).body)).toEqual(['Search Target']);
    expect(names((await app.api('GET', '/cms/v2/tags', { query: { search: 'needle' } })).body)).toEqual(['Search Target']);
    expect(names((await app.api('GET', '/cms/v2/tags', { query: { search: 'a.b' } })).body)).toEqual(['Dots a.b']);
    expect((await app.api('GET', '/cms/v2/tags', { query: { search: 'no-such-thing' } })).body).toEqual([]);
  });

  it('hides empty tags with hide_empty', async () => {
    const used = await create('tags', { name: 'Hide Used' });
    await create('tags', { name: 'Hide Unused' });
    await setCount(used.id, 2);
    const all = await app.api('GET', '/cms/v2/tags', { query: { search: 'Hide ' } });
    expect(names(all.body)).toEqual(['Hide Unused', 'Hide Used']);
    const shown = await app.api('GET', '/cms/v2/tags', { query: { search: 'Hide ', hide_empty: true } });
    expect(names(shown.body)).toEqual(['Hide Used']);
    expect(shown.body[0].count).toBe(2);
    expect(shown.headers.get('x-wp-total')).toBe('1');
    expect((await app.api('GET', '/cms/v2/tags', { query: { hide_empty: 'nothanks' } })).status).toBe(400);
  });

  it('keeps an empty category whose descendant is not empty under hide_empty', async () => {
    const grand = await create('categories', { name: 'Hier Grand' });
    const middle = await create('categories', { name: 'Hier Middle', parent: grand.id });
    const leaf = await create('categories', { name: 'Hier Leaf', parent: middle.id });
    await create('categories', { name: 'Hier Lonely' });
    await setCount(leaf.id, 3);
    const { body } = await app.api('GET', '/cms/v2/categories', { query: { search: 'Hier ', hide_empty: true } });
    expect(names(body)).toEqual(['Hier Grand', 'Hier Leaf', 'Hier Middle']);
  });

  it('filters categories by parent, 0 meaning top level', async () => {
    const parent = await create('categories', { name: 'Par Parent' });
    await create('categories', { name: 'Par Child B', parent: parent.id });
    await create('categories', { name: 'Par Child A', parent: parent.id });
    const children = await app.api('GET', '/cms/v2/categories', { query: { parent: parent.id } });
    expect(names(children.body)).toEqual(['Par Child A', 'Par Child B']);
    expect(children.body[0].parent).toBe(parent.id);
    const top = await app.api('GET', '/cms/v2/categories', { query: { parent: 0, search: 'Par ' } });
    expect(names(top.body)).toEqual(['Par Parent']);
    // Tags take no parent argument: it is ignored like any unknown parameter.
    await create('tags', { name: 'Par Flat' });
    expect(names((await app.api('GET', '/cms/v2/tags', { query: { parent: parent.id, search: 'Par ' } })).body)).toEqual(['Par Flat']);
  });

  it('lists the terms of a post with post=, and guards posts that are not public', async () => {
    const red = await create('tags', { name: 'Post Red' });
    const blue = await create('tags', { name: 'Post Blue' });
    await create('tags', { name: 'Post Green' });
    const published = await insertPost({ type: 'post', status: 'publish', author: users.author.id, terms: { post_tag: [red.id, blue.id], category: [1] } });
    const { body, headers } = await app.api('GET', '/cms/v2/tags', { query: { post: published } });
    expect(names(body)).toEqual(['Post Blue', 'Post Red']);
    expect(headers.get('x-wp-total')).toBe('2');
    expect(names((await app.api('GET', '/cms/v2/categories', { query: { post: published } })).body)).toEqual(['Uncategorized']);

    const bare = await insertPost({ type: 'post', status: 'publish', author: users.author.id });
    expect((await app.api('GET', '/cms/v2/tags', { query: { post: bare } })).body).toEqual([]);

    const missing = await app.api('GET', '/cms/v2/tags', { query: { post: 987654321 } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'rest_post_invalid_id', message: 'Invalid post ID.', data: { status: 400 } });

    const draft = await insertPost({ type: 'post', status: 'draft', author: users.author.id, terms: { post_tag: [red.id] } });
    const message = 'Sorry, you are not allowed to view terms for this post.';
    const anonymous = await app.api('GET', '/cms/v2/tags', { query: { post: draft } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ code: 'rest_forbidden_context', message, data: { status: 401 } });
    expect((await app.api('GET', '/cms/v2/tags', { query: { post: draft }, headers: users.contributor.headers })).status).toBe(403);
    expect(names((await app.api('GET', '/cms/v2/tags', { query: { post: draft }, headers: users.author.headers })).body)).toEqual(['Post Red']);
    expect(names((await app.api('GET', '/cms/v2/tags', { query: { post: draft }, headers: users.editor.headers })).body)).toEqual(['Post Red']);

    const page = await insertPost({ type: 'page', status: 'publish', author: users.author.id });
    expect((await app.api('GET', '/cms/v2/tags', { query: { post: page } })).status).toBe(401);
    expect((await app.api('GET', '/cms/v2/tags', { query: { post: 'invalid-post' } })).status).toBe(400);
  });

  it('paginates with X-WP-Total, X-WP-TotalPages and Link, and answers [] past the last page', async () => {
    for (let i = 0; i < 23; i++) await create('tags', { name: `Pg ${String(i).padStart(2, '0')}` });
    const page = (query: Record<string, string | number>) => app.api('GET', '/cms/v2/tags', { query: { search: 'Pg ', ...query } });

    const first = await page({});
    expect(first.body).toHaveLength(10);
    expect(names(first.body)[0]).toBe('Pg 00');
    expect(first.headers.get('x-wp-total')).toBe('23');
    expect(first.headers.get('x-wp-totalpages')).toBe('3');
    expect(linkHeader(first.headers.get('link'))).toEqual({ next: `${app.apiRoot}/cms/v2/tags?search=Pg+&page=2` });

    const second = await page({ page: 2 });
    expect(names(second.body)[0]).toBe('Pg 10');
    expect(linkHeader(second.headers.get('link'))).toEqual({
      prev: `${app.apiRoot}/cms/v2/tags?search=Pg+&page=1`,
      next: `${app.apiRoot}/cms/v2/tags?search=Pg+&page=3`,
    });

    const last = await page({ page: 3 });
    expect(names(last.body)).toEqual(['Pg 20', 'Pg 21', 'Pg 22']);
    expect(linkHeader(last.headers.get('link'))).toEqual({ prev: `${app.apiRoot}/cms/v2/tags?search=Pg+&page=2` });

    const past = await page({ page: 5 });
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    expect(past.headers.get('x-wp-total')).toBe('23');
    expect(past.headers.get('x-wp-totalpages')).toBe('3');
    expect(linkHeader(past.headers.get('link'))).toEqual({ prev: `${app.apiRoot}/cms/v2/tags?search=Pg+&page=3` });

    const small = await page({ per_page: 5, page: 2 });
    expect(names(small.body)).toEqual(['Pg 05', 'Pg 06', 'Pg 07', 'Pg 08', 'Pg 09']);
    expect(small.headers.get('x-wp-totalpages')).toBe('5');

    const offset = await page({ offset: 21, per_page: 5, page: 3 });
    expect(names(offset.body)).toEqual(['Pg 21', 'Pg 22']);

    const none = await app.api('GET', '/cms/v2/tags', { query: { search: 'nothing matches this' } });
    expect(none.body).toEqual([]);
    expect(none.headers.get('x-wp-total')).toBe('0');
    expect(none.headers.get('x-wp-totalpages')).toBe('0');

    for (const perPage of [0, 101]) {
      const response = await page({ per_page: perPage });
      expect(response.status).toBe(400);
      expect(response.body.data.params.per_page).toBe('per_page must be between 1 (inclusive) and 100 (inclusive)');
    }
  });
});

describe('updating terms', () => {
  it('lets editors update with POST, PUT and PATCH, answering in edit context', async () => {
    const category = await create('categories', { name: 'Original Name', description: 'Original', slug: 'original-slug' });
    const updated = await app.api('POST', `/cms/v2/categories/${category.id}`, {
      headers: users.editor.headers,
      json: { name: 'New Name', description: 'New Description', slug: 'new-slug', meta: { a: 1 } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: category.id, name: 'New Name', description: 'New Description', slug: 'new-slug', meta: {}, parent: 0, count: 0 });
    const put = await app.api('PUT', `/cms/v2/categories/${category.id}`, { headers: users.editor.headers, json: { description: 'Put' } });
    expect(put.body.description).toBe('Put');
    const patch = await app.api('PATCH', `/cms/v2/categories/${category.id}`, { headers: users.editor.headers, json: { description: 'Patched' } });
    expect(patch.body).toMatchObject({ name: 'New Name', slug: 'new-slug', description: 'Patched' });
    const unchanged = await app.api('POST', `/cms/v2/categories/${category.id}`, { headers: users.editor.headers, json: {} });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.name).toBe('New Name');
    expect((await app.api('GET', `/cms/v2/categories/${category.id}`)).body.description).toBe('Patched');
  });

  it('refuses updates without edit_term: 401 anonymous, 403 logged in; 404 first for an unknown term', async () => {
    const tag = await create('tags', { name: 'Guarded Tag' });
    const message = 'Sorry, you are not allowed to edit this term.';
    for (const headers of [users.author.headers, users.contributor.headers, users.subscriber.headers]) {
      const response = await app.api('POST', `/cms/v2/tags/${tag.id}`, { headers, json: { name: 'Changed' } });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ code: 'rest_cannot_update', message, data: { status: 403 } });
    }
    const anonymous = await app.api('POST', `/cms/v2/tags/${tag.id}`, { json: { name: 'Changed' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_cannot_update');
    const unknown = await app.api('POST', '/cms/v2/tags/999999', { json: { name: 'Changed' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('rest_term_invalid');
  });

  it('refuses a slug another term has, and renumbers a slug derived from the name', async () => {
    const first = await create('tags', { name: 'Slug Owner' });
    const second = await create('tags', { name: 'Slug Wanter' });
    const taken = await app.api('POST', `/cms/v2/tags/${second.id}`, { headers: app.admin, json: { slug: 'slug-owner' } });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({
      code: 'duplicate_term_slug',
      message: 'The slug &#8220;slug-owner&#8221; is already in use by another term.',
      data: { status: 400 },
    });
    const derived = await app.api('POST', `/cms/v2/tags/${second.id}`, { headers: app.admin, json: { name: 'Slug Owner', slug: '' } });
    expect(derived.status).toBe(200);
    expect(derived.body.slug).toBe('slug-owner-2');
    expect((await app.api('POST', `/cms/v2/tags/${first.id}`, { headers: app.admin, json: { slug: 'slug-owner' } })).status).toBe(200);
  });

  it('moves categories, refuses unknown parents, and breaks loops by moving to the top', async () => {
    const root = await create('categories', { name: 'Move Root' });
    const child = await create('categories', { name: 'Move Child' });
    const moved = await app.api('POST', `/cms/v2/categories/${child.id}`, { headers: app.admin, json: { parent: root.id } });
    expect(moved.body.parent).toBe(root.id);
    const self = await app.api('POST', `/cms/v2/categories/${root.id}`, { headers: app.admin, json: { parent: root.id } });
    expect(self.body.parent).toBe(0);
    const loop = await app.api('POST', `/cms/v2/categories/${root.id}`, { headers: app.admin, json: { parent: child.id } });
    expect(loop.status).toBe(200);
    expect(loop.body.parent).toBe(0);
    const unknown = await app.api('POST', `/cms/v2/categories/${child.id}`, { headers: app.admin, json: { parent: 999999 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ code: 'rest_term_invalid', message: 'Parent term does not exist.', data: { status: 400 } });
    const removed = await app.api('POST', `/cms/v2/categories/${child.id}`, { headers: app.admin, json: { parent: 0 } });
    expect(removed.body.parent).toBe(0);
    const tag = await create('tags', { name: 'Flat Update' });
    const flat = await app.api('POST', `/cms/v2/tags/${tag.id}`, { headers: app.admin, json: { parent: root.id } });
    expect(flat.status).toBe(400);
    expect(flat.body.code).toBe('rest_taxonomy_not_hierarchical');
  });

  it('lets the default category be renamed', async () => {
    const renamed = await app.api('POST', '/cms/v2/categories/1', { headers: users.editor.headers, json: { name: 'General' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: 1, name: 'General', slug: 'uncategorized' });
    await app.api('POST', '/cms/v2/categories/1', { headers: users.editor.headers, json: { name: 'Uncategorized' } });
  });
});

describe('deleting terms', () => {
  it('needs force: 501 rest_trash_not_supported otherwise', async () => {
    const tag = await create('tags', { name: 'Kept Tag' });
    for (const query of [{}, { force: 'false' }] as Record<string, string>[]) {
      const response = await app.api('DELETE', `/cms/v2/tags/${tag.id}`, { headers: app.admin, query });
      expect(response.status).toBe(501);
      expect(response.body).toEqual({
        code: 'rest_trash_not_supported',
        message: "Terms do not support trashing. Set 'force=true' to delete.",
        data: { status: 501 },
      });
    }
    expect((await app.api('GET', `/cms/v2/tags/${tag.id}`)).status).toBe(200);
  });

  it('deletes with force=true and returns the previous term in view context without links', async () => {
    const tag = await create('tags', { name: 'Deleted Tag', description: 'gone', meta: { x: 1 } });
    const { status, body } = await app.api('DELETE', `/cms/v2/tags/${tag.id}`, { headers: users.editor.headers, query: { force: true } });
    expect(status).toBe(200);
    expect(body).toEqual({
      deleted: true,
      previous: {
        id: tag.id,
        count: 0,
        description: 'gone',
        link: `${app.siteUrl}/?tag=deleted-tag`,
        name: 'Deleted Tag',
        slug: 'deleted-tag',
        taxonomy: 'post_tag',
        meta: {},
      },
    });
    expect((await app.api('GET', `/cms/v2/tags/${tag.id}`)).status).toBe(404);
    const again = await app.api('DELETE', `/cms/v2/tags/${tag.id}`, { headers: users.editor.headers, query: { force: true } });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('rest_term_invalid');
  });

  it('moves the children of a deleted category to its parent', async () => {
    const grand = await create('categories', { name: 'Del Grand' });
    const middle = await create('categories', { name: 'Del Middle', parent: grand.id });
    const child = await create('categories', { name: 'Del Child', parent: middle.id });
    const deleted = await app.api('DELETE', `/cms/v2/categories/${middle.id}`, { headers: app.admin, query: { force: true } });
    expect(deleted.body.previous.parent).toBe(grand.id);
    expect((await app.api('GET', `/cms/v2/categories/${child.id}`)).body.parent).toBe(grand.id);
  });

  it('refuses deletion without delete_term', async () => {
    const tag = await create('tags', { name: 'Undeletable By Authors' });
    for (const headers of [users.author.headers, users.contributor.headers, users.subscriber.headers]) {
      const response = await app.api('DELETE', `/cms/v2/tags/${tag.id}`, { headers, query: { force: true } });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('rest_cannot_delete');
    }
    const anonymous = await app.api('DELETE', `/cms/v2/tags/${tag.id}`, { query: { force: true } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_cannot_delete');
    expect((await app.api('DELETE', '/cms/v2/tags/999999', { query: { force: true } })).status).toBe(404);
  });
});

describe('reuse by composition (a menus-like taxonomy on the same controller)', () => {
  const menus = testAppForFile({ resources: [...resources, demoMenusResource] });

  it('answers with the extended schema and hooks', async () => {
    const made = await menus.api('POST', '/cms/v2/demo-menus', { headers: menus.admin, json: { name: 'Main', auto_add: true } });
    expect(made.status).toBe(201);
    const { _links, ...fields } = made.body;
    expect(fields).toEqual({ id: made.body.id, description: '', name: 'Main', slug: 'main', meta: {}, auto_add: true });
    expect(_links['wp:menu-location']).toEqual([{ href: `${menus.apiRoot}/cms/v2/menu-locations/primary?menu=${made.body.id}`, embeddable: true }]);
    expect(_links['wp:post_type']).toEqual([{ href: `${menus.apiRoot}/cms/v2/menu-items?demo-menus=${made.body.id}` }]);

    const options = await menus.api('OPTIONS', '/cms/v2/demo-menus');
    expect(Object.keys(options.body.schema.properties).sort()).toEqual(['auto_add', 'description', 'id', 'meta', 'name', 'slug']);
    expect(Object.keys(options.body.endpoints[1].args).sort()).toEqual(['auto_add', 'description', 'meta', 'name', 'slug']);

    const duplicate = await menus.api('POST', '/cms/v2/demo-menus', { headers: menus.admin, json: { name: 'Main', slug: 'other' } });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.code).toBe('menu_exists');

    const editor = await menus.asRole('editor');
    expect((await menus.api('POST', '/cms/v2/demo-menus', { headers: editor.headers, json: { name: 'Footer' } })).body.code).toBe('rest_cannot_create');
    const anonymous = await menus.api('GET', '/cms/v2/demo-menus');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_cannot_view');

    const updated = await menus.api('POST', `/cms/v2/demo-menus/${made.body.id}`, { headers: menus.admin, json: { auto_add: false } });
    expect(updated.body.auto_add).toBe(false);
    const trash = await menus.api('DELETE', `/cms/v2/demo-menus/${made.body.id}`, { headers: menus.admin });
    expect(trash.status).toBe(501);
    expect(trash.body.message).toBe("Menus do not support trashing. Set 'force=true' to delete.");
    const deleted = await menus.api('DELETE', `/cms/v2/demo-menus/${made.body.id}`, { headers: menus.admin, query: { force: true } });
    expect(deleted.body).toEqual({ deleted: true, previous: { id: made.body.id, description: '', name: 'Main', slug: 'main', meta: {}, auto_add: false } });
  });
});
