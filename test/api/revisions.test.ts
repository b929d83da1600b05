import { describe, expect, it } from 'vitest';
import { changeLog } from '../../src/store/log/change-log.js';
import { storedRevision, type RevisionDoc } from '../../src/resources/posts/post.model.js';
import { AUTOSAVE_KEYS_CHECKPOINT, backfillAutosaveKeys, backfillRevisionBlocks, REVISION_BLOCKS_CHECKPOINT } from '../../src/resources/posts/post.projection.js';
import { createItem, updateItem } from '../support/http-posts.js';
import { REVISIONED_CONTENTS, revisionedPostFor, type Staff } from '../support/revisioned-post.js';
import { testAppForFile, usersFor } from '../support/test-app.js';

// Each describe makes the users and posts it reads (test/support/revisioned-post.ts): none
// depends on another having run first.
const app = testAppForFile();

/** A reader of revision lists: the post's revisions, as the editor of `staff` unless `headers` say otherwise. */
const revisionsAs =
  (staff: Staff) =>
  (parent: number, query: Record<string, string | number | (string | number)[]> = {}, headers: Record<string, string> = staff.editor.headers) =>
    app.api('GET', `/cms/v2/posts/${parent}/revisions`, { headers, query });

const ids = (body: { id: number }[]) => body.map((item) => item.id);

/** The `Link` header's prev and next entries (every response also links the API root). */
const pageLinks = (response: { headers: Headers }) =>
  (response.headers.get('link') ?? '').split(/,\s*(?=<)/).filter((link) => /rel="(prev|next)"/.test(link));

function expectError(response: { status: number; body: unknown }, status: number, code: string, message: string) {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: { code, message, data: { status } } });
}

describe('revision routes', () => {
  const given = revisionedPostFor(app);

  it('are registered for posts and pages, with their revision schema', async () => {
    const index = await app.api('GET', '/');
    for (const route of [
      '/cms/v2/posts/(?P<parent>[\\d]+)/revisions',
      '/cms/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)',
      '/cms/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/restore',
      '/cms/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/diff',
      '/cms/v2/pages/(?P<parent>[\\d]+)/revisions',
      '/cms/v2/pages/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)',
    ]) {
      expect(Object.keys(index.body.routes)).toContain(route);
    }
    const options = await app.api('OPTIONS', `/cms/v2/posts/${given.postId}/revisions`);
    expect(options.body.schema.title).toBe('post-revision');
    expect(Object.keys(options.body.schema.properties).sort()).toEqual(
      ['author', 'content', 'date', 'date_gmt', 'excerpt', 'guid', 'id', 'modified', 'modified_gmt', 'parent', 'slug', 'title'],
    );
    expect(options.body.schema.properties.guid.type).toBe('object');
    expect(options.body.schema.properties.content.context).toEqual(['view', 'edit']);
    expect(options.body.schema.properties.excerpt.context).toEqual(['view', 'edit', 'embed']);
    const page = await app.api('OPTIONS', `/cms/v2/pages/${given.pageId}/revisions`);
    expect(page.body.schema.title).toBe('page-revision');
    const openApi = await app.api('GET', '/openapi.json');
    expect(Object.keys(openApi.body.paths)).toEqual(
      expect.arrayContaining(['/cms/v2/posts/{parent}/revisions', '/cms/v2/posts/{parent}/revisions/{id}/diff', '/cms/v2/posts/{parent}/revisions/{id}/restore']),
    );
  });

  it('take a context parameter defaulting to view, on the list and on one revision', async () => {
    for (const route of [`/cms/v2/posts/${given.postId}/revisions`, `/cms/v2/posts/${given.postId}/revisions/${given.r1}`]) {
      const { body } = await app.api('OPTIONS', route);
      expect(body.endpoints[0].args.context.default).toBe('view');
      expect([...body.endpoints[0].args.context.enum].sort()).toEqual(['edit', 'embed', 'view']);
    }
    const list = await app.api('OPTIONS', `/cms/v2/posts/${given.postId}/revisions`);
    expect(Object.keys(list.body.endpoints[0].args)).toEqual(['parent', 'context', 'page', 'per_page', 'search', 'exclude', 'include', 'offset', 'order', 'orderby']);
    expect(list.body.endpoints[0].args.per_page.default).toBeUndefined();
  });

  it('have no create or update endpoint', async () => {
    const created = await app.api('POST', `/cms/v2/posts/${given.postId}/revisions`, { headers: app.admin });
    expectError(created, 404, 'rest_no_route', 'No route was found matching the URL and request method.');
    const updated = await app.api('PUT', `/cms/v2/posts/${given.postId}/revisions/${given.r1}`, { headers: app.admin, json: {} });
    expectError(updated, 404, 'rest_no_route', 'No route was found matching the URL and request method.');
  });
});

describe('GET /posts/<parent>/revisions', () => {
  const given = revisionedPostFor(app);
  const revisions = revisionsAs(given);

  it('lists every revision newest first, in view context, with the totals and no Link header', async () => {
    const response = await revisions(given.postId);
    expect(response.status).toBe(200);
    expect(ids(response.body)).toEqual([given.r3, given.r2, given.r1]);
    expect(response.headers.get('x-wp-total')).toBe('3');
    expect(response.headers.get('x-wp-totalpages')).toBe('1');
    expect(pageLinks(response)).toEqual([]);
    const [newest] = response.body;
    expect(newest).toEqual({
      author: given.editor.id,
      date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      date_gmt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      id: given.r3,
      modified: newest.date,
      modified_gmt: newest.date_gmt,
      parent: given.postId,
      slug: `${given.postId}-revision-v1`,
      guid: { rendered: `${app.siteUrl}/?p=${given.r3}` },
      title: { rendered: 'Revisioned' },
      content: { rendered: '<p>This content is fantastic.</p>\n' },
      excerpt: { rendered: '' },
      _links: { parent: [{ href: `${app.apiRoot}/cms/v2/posts/${given.postId}` }] },
    });
  });

  it('is for those who may edit the parent: 401 for anonymous callers, 403 for others', async () => {
    expectError(await revisions(given.postId, {}, {}), 401, 'rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.');
    expectError(await revisions(given.postId, {}, given.contributor.headers), 403, 'rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.');
    expectError(await revisions(given.postId, {}, given.author.headers), 403, 'rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.');
  });

  it('answers 404 rest_post_invalid_parent for a missing parent or one of another type, before the permission check', async () => {
    expectError(await revisions(999999), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
    expectError(await revisions(999999, {}, {}), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
    expectError(await revisions(given.pageId), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
    expectError(await app.api('GET', `/cms/v2/pages/${given.postId}/revisions`, { headers: given.editor.headers }), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
  });

  it('shows raw fields in edit context and the embed field set in embed context', async () => {
    const edit = await revisions(given.postId, { context: 'edit' });
    expect(Object.keys(edit.body[0]).sort()).toEqual(
      ['_links', 'author', 'content', 'date', 'date_gmt', 'excerpt', 'guid', 'id', 'modified', 'modified_gmt', 'parent', 'slug', 'title'],
    );
    expect(edit.body[0].content).toEqual({ raw: 'This content is fantastic.', rendered: '<p>This content is fantastic.</p>\n' });
    expect(edit.body[0].guid).toEqual({ rendered: `${app.siteUrl}/?p=${given.r3}`, raw: `${app.siteUrl}/?p=${given.r3}` });
    const embed = await revisions(given.postId, { context: 'embed' });
    expect(Object.keys(embed.body[0]).sort()).toEqual(['_links', 'author', 'date', 'excerpt', 'id', 'parent', 'slug', 'title']);
    expect(embed.body[0].title).toEqual({ rendered: 'Revisioned' });
  });

  it('pages with per_page: totals, next and prev links with the original query', async () => {
    const route = `${app.apiRoot}/cms/v2/posts/${given.postId}/revisions`;
    const first = await revisions(given.postId, { per_page: 2, page: 1 });
    expect(ids(first.body)).toEqual([given.r3, given.r2]);
    expect(first.headers.get('x-wp-total')).toBe('3');
    expect(first.headers.get('x-wp-totalpages')).toBe('2');
    expect(pageLinks(first)).toEqual([`<${route}?per_page=2&page=2>; rel="next"`]);
    const last = await revisions(given.postId, { per_page: 2, page: 2 });
    expect(ids(last.body)).toEqual([given.r1]);
    expect(pageLinks(last)).toEqual([`<${route}?per_page=2&page=1>; rel="prev"`]);
  });

  it('refuses a per_page out of 1..100 and pages past the last', async () => {
    const negative = await revisions(given.postId, { per_page: -1 });
    expect(negative.status).toBe(400);
    expect(negative.body.code).toBe('rest_invalid_param');
    expect(negative.body.data.params.per_page).toBe('per_page must be between 1 (inclusive) and 100 (inclusive)');
    expect((await revisions(given.postId, { per_page: 101 })).body.code).toBe('rest_invalid_param');
    const message = 'The page number requested is larger than the number of pages available.';
    expectError(await revisions(given.postId, { per_page: 2, page: 3 }), 400, 'rest_revision_invalid_page_number', message);
    expectError(await revisions(given.postId, { per_page: 2, page: 999999 }), 400, 'rest_revision_invalid_page_number', message);
    // Without per_page everything is one page, so page 2 is already past it.
    expectError(await revisions(given.postId, { page: 2 }), 400, 'rest_revision_invalid_page_number', message);
  });

  it('applies offset only with per_page, and refuses an offset at or past the total', async () => {
    expect(ids((await revisions(given.postId, { offset: 1 })).body)).toEqual([given.r3, given.r2, given.r1]);
    expect(ids((await revisions(given.postId, { offset: 1, per_page: 2 })).body)).toEqual([given.r2, given.r1]);
    expect(ids((await revisions(given.postId, { offset: 1, per_page: 2, page: 1 })).body)).toEqual([given.r2, given.r1]);
    // The offset wins over an out-of-range page.
    expect(ids((await revisions(given.postId, { offset: 1, per_page: 2, page: 3 })).body)).toEqual([given.r2, given.r1]);
    const message = 'The offset number requested is larger than or equal to the number of available revisions.';
    expectError(await revisions(given.postId, { offset: 3, per_page: 2 }), 400, 'rest_revision_invalid_offset_number', message);
    expectError(await revisions(given.postId, { offset: 4, per_page: 2 }), 400, 'rest_revision_invalid_offset_number', message);
    expectError(await revisions(given.postId, { offset: 999999, per_page: 2 }), 400, 'rest_revision_invalid_offset_number', message);
    expectError(await revisions(given.postId, { offset: 3 }), 400, 'rest_revision_invalid_offset_number', message);
    const invalid = await revisions(given.postId, { offset: 'moreplease', per_page: 2 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('rest_invalid_param');
  });

  it('searches title, excerpt and content, word by word, with - to exclude', async () => {
    const better = await revisions(given.postId, { search: 'better' });
    expect(ids(better.body)).toEqual([given.r1]);
    expect(better.body[0].content.rendered).toContain('This content is better.');
    expect(better.headers.get('x-wp-total')).toBe('1');
    expect(ids((await revisions(given.postId, { search: 'content -better' })).body)).toEqual([given.r3, given.r2]);
    expect(ids((await revisions(given.postId, { search: 'MARVELOUS content' })).body)).toEqual([given.r2]);
    expect(ids((await revisions(given.postId, { search: 'revisioned' })).body)).toEqual([given.r3, given.r2, given.r1]);
    expect((await revisions(given.postId, { search: 'nowhere' })).body).toEqual([]);
  });

  it('orders by date, id, title, slug or include, ascending or descending', async () => {
    expect(ids((await revisions(given.postId, { order: 'asc' })).body)).toEqual([given.r1, given.r2, given.r3]);
    expect(ids((await revisions(given.postId, { orderby: 'id' })).body)).toEqual([given.r3, given.r2, given.r1]);
    expect(ids((await revisions(given.postId, { orderby: 'id', order: 'asc', per_page: 2, page: 2 })).body)).toEqual([given.r3]);
    expect(ids((await revisions(given.postId, { orderby: 'title', order: 'asc' })).body)).toEqual([given.r1, given.r2, given.r3]);
    expect(ids((await revisions(given.postId, { orderby: 'slug' })).body)).toEqual([given.r3, given.r2, given.r1]);
    expect(ids((await revisions(given.postId, { orderby: 'include', include: [given.r1, given.r3] })).body)).toEqual([given.r1, given.r3]);
    expect(ids((await revisions(given.postId, { orderby: 'include', include: [given.r3, given.r1, given.r2], per_page: 2, page: 2 })).body)).toEqual([given.r2]);
    expect(ids((await revisions(given.postId, { include: [given.r1, given.r3] })).body)).toEqual([given.r3, given.r1]);
    expect(ids((await revisions(given.postId, { exclude: [given.r2] })).body)).toEqual([given.r3, given.r1]);
    expect(ids((await revisions(given.postId, { orderby: 'relevance', search: 'marvelous', order: 'desc' })).body)).toEqual([given.r2]);
    expectError(await revisions(given.postId, { orderby: 'include' }), 400, 'rest_orderby_include_missing_include', 'You need to define an include parameter to order by include.');
    expectError(await revisions(given.postId, { orderby: 'relevance' }), 400, 'rest_no_search_term_defined', 'You need to define a search term to order by relevance.');
    const bad = await revisions(given.postId, { orderby: 'author' });
    expect(bad.status).toBe(400);
    expect(bad.body.data.params.orderby).toBe('orderby is not one of date, id, include, relevance, slug, include_slugs, title.');
  });

  it('puts the rows whose title holds the search first when ordering by relevance', async () => {
    const post = await createItem(app, { title: 'Plain', content: 'apple pie' }, { headers: given.editor.headers });
    await updateItem(app, post.id, { content: 'first apple' }, { headers: given.editor.headers });
    await updateItem(app, post.id, { title: 'Apple title', content: 'second' }, { headers: given.editor.headers });
    await updateItem(app, post.id, { title: 'Plain again', content: 'third apple' }, { headers: given.editor.headers });
    const all = ids((await revisions(post.id)).body);
    const relevance = await revisions(post.id, { orderby: 'relevance', search: 'apple' });
    expect(ids(relevance.body)).toEqual([all[1], all[0], all[2]]);
    expect(ids((await revisions(post.id, { orderby: 'relevance', search: 'apple', per_page: 1, page: 2 })).body)).toEqual([all[0]]);
  });

  it('returns every revision in one page without per_page, however many there are', async () => {
    const post = await createItem(app, { title: 'Busy', content: 'v0' }, { headers: given.editor.headers });
    for (let version = 1; version <= 12; version++) await updateItem(app, post.id, { content: `v${version}` }, { headers: given.editor.headers });
    const all = await revisions(post.id);
    expect(all.body).toHaveLength(12);
    expect(all.headers.get('x-wp-total')).toBe('12');
    expect(all.headers.get('x-wp-totalpages')).toBe('1');
    expect(all.body.map((revision: { content: { rendered: string } }) => revision.content.rendered)).toEqual(
      Array.from({ length: 12 }, (_, index) => `<p>v${12 - index}</p>\n`),
    );
    const paged = await revisions(post.id, { per_page: 5, page: 3 });
    expect(paged.body).toHaveLength(2);
    expect(paged.headers.get('x-wp-totalpages')).toBe('3');
  });

  it('limits the fields to _fields', async () => {
    const response = await revisions(given.postId, { context: 'edit', _fields: 'id,slug' });
    expect(response.body).toEqual([
      { id: given.r3, slug: `${given.postId}-revision-v1` },
      { id: given.r2, slug: `${given.postId}-revision-v1` },
      { id: given.r1, slug: `${given.postId}-revision-v1` },
    ]);
    const nested = await revisions(given.postId, { context: 'edit', _fields: 'title.raw', per_page: 1 });
    expect(nested.body).toEqual([{ title: { raw: 'Revisioned' } }]);
  });

  it('lists an empty collection with zero totals', async () => {
    const fresh = await createItem(app, { title: 'Untouched' }, { headers: given.editor.headers });
    const response = await revisions(fresh.id);
    expect(response.body).toEqual([]);
    expect(response.headers.get('x-wp-total')).toBe('0');
    expect(response.headers.get('x-wp-totalpages')).toBe('0');
  });
});

describe('GET /posts/<parent>/revisions/<id>', () => {
  const given = revisionedPostFor(app);

  it('returns one revision with the edit field set', async () => {
    const response = await app.api('GET', `/cms/v2/posts/${given.postId}/revisions/${given.r1}`, { headers: given.editor.headers, query: { context: 'edit' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: given.r1,
      author: given.editor.id,
      parent: given.postId,
      slug: `${given.postId}-revision-v1`,
      title: { raw: 'Revisioned', rendered: 'Revisioned' },
      content: { raw: 'This content is better.', rendered: '<p>This content is better.</p>\n' },
      excerpt: { raw: '', rendered: '' },
    });
    expect(Object.keys(response.body).sort()).toEqual(
      ['_links', 'author', 'content', 'date', 'date_gmt', 'excerpt', 'guid', 'id', 'modified', 'modified_gmt', 'parent', 'slug', 'title'],
    );
  });

  it('shows the embed field set in embed context', async () => {
    const response = await app.api('GET', `/cms/v2/posts/${given.postId}/revisions/${given.r1}`, { headers: given.editor.headers, query: { context: 'embed' } });
    expect(Object.keys(response.body).sort()).toEqual(['_links', 'author', 'date', 'excerpt', 'id', 'parent', 'slug', 'title']);
  });

  it('renders the excerpt from itself, never from the content', async () => {
    const post = await createItem(app, { title: 'Excerpted', content: 'Long body' }, { headers: given.editor.headers });
    const updated = await updateItem(app, post.id, { excerpt: 'Short & sweet' }, { headers: given.editor.headers });
    const id = updated._links['predecessor-version'][0].id;
    const response = await app.api('GET', `/cms/v2/posts/${post.id}/revisions/${id}`, { headers: given.editor.headers });
    expect(response.body.excerpt).toEqual({ rendered: '<p>Short &#038; sweet</p>\n' });
  });

  it('refuses anonymous callers (401) and those who cannot edit the parent (403)', async () => {
    const route = `/cms/v2/posts/${given.postId}/revisions/${given.r1}`;
    expectError(await app.api('GET', route), 401, 'rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.');
    expectError(await app.api('GET', route, { headers: given.contributor.headers }), 403, 'rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.');
  });

  it('answers 404 for a missing or mistyped parent, an unknown revision, and a revision of another item', async () => {
    expectError(await app.api('GET', `/cms/v2/posts/999999/revisions/${given.r1}`, { headers: given.editor.headers }), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
    expectError(await app.api('GET', `/cms/v2/posts/${given.pageId}/revisions/${given.r1}`, { headers: given.editor.headers }), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
    expectError(await app.api('GET', `/cms/v2/posts/${given.postId}/revisions/999999`, { headers: given.editor.headers }), 404, 'rest_post_invalid_id', 'Invalid revision ID.');
    expectError(await app.api('GET', `/cms/v2/posts/${given.postId}/revisions/${given.postId}`, { headers: given.editor.headers }), 404, 'rest_post_invalid_id', 'Invalid revision ID.');
    const other = await createItem(app, { title: 'Other', content: 'a' }, { headers: given.editor.headers });
    const otherRevision = (await updateItem(app, other.id, { content: 'b' }, { headers: given.editor.headers }))._links['predecessor-version'][0].id;
    expectError(
      await app.api('GET', `/cms/v2/posts/${given.postId}/revisions/${otherRevision}`, { headers: given.editor.headers }),
      404,
      'rest_revision_parent_id_mismatch',
      `The revision does not belong to the specified parent with id of "${given.postId}"`,
    );
  });

  it('serves page revisions under /pages with a parent link to the page', async () => {
    const list = await app.api('GET', `/cms/v2/pages/${given.pageId}/revisions`, { headers: given.editor.headers });
    expect(list.body).toHaveLength(1);
    const one = await app.api('GET', `/cms/v2/pages/${given.pageId}/revisions/${list.body[0].id}`, { headers: given.editor.headers });
    expect(one.body).toMatchObject({ parent: given.pageId, slug: `${given.pageId}-revision-v1`, content: { rendered: '<p>Page two.</p>\n' } });
    expect(one.body._links).toEqual({ parent: [{ href: `${app.apiRoot}/cms/v2/pages/${given.pageId}` }] });
  });
});

describe('DELETE /posts/<parent>/revisions/<id>', () => {
  const given = usersFor(app, ['editor', 'author', 'contributor']);

  async function postWithRevisions(headers: Record<string, string>, status = 'publish') {
    const post = await createItem(app, { title: 'To prune', content: 'kept words', status }, { headers });
    await updateItem(app, post.id, { content: 'secret words to erase' }, { headers });
    await updateItem(app, post.id, { content: 'final words' }, { headers });
    const list = await app.api('GET', `/cms/v2/posts/${post.id}/revisions`, { headers: app.admin });
    return { id: post.id as number, newest: list.body[0].id as number, oldest: list.body[1].id as number };
  }

  it('refuses to trash: 501 without force or with force=false, and keeps the revision', async () => {
    const { id, oldest } = await postWithRevisions(given.editor.headers);
    const message = "Revisions do not support trashing. Set 'force=true' to delete.";
    expectError(await app.api('DELETE', `/cms/v2/posts/${id}/revisions/${oldest}`, { headers: given.editor.headers }), 501, 'rest_trash_not_supported', message);
    expectError(
      await app.api('DELETE', `/cms/v2/posts/${id}/revisions/${oldest}`, { headers: given.editor.headers, query: { force: 'false' } }),
      501,
      'rest_trash_not_supported',
      message,
    );
    expect((await app.api('GET', `/cms/v2/posts/${id}/revisions/${oldest}`, { headers: given.editor.headers })).status).toBe(200);
  });

  it('deletes with force for whoever may delete the parent, answering with the revision in view context', async () => {
    const { id, oldest, newest } = await postWithRevisions(given.author.headers);
    const response = await app.api('DELETE', `/cms/v2/posts/${id}/revisions/${oldest}`, { headers: given.author.headers, query: { force: true } });
    expect(response.status).toBe(200);
    expect(response.body.deleted).toBe(true);
    expect(response.body.previous).toEqual({
      author: given.author.id,
      date: expect.any(String),
      date_gmt: expect.any(String),
      id: oldest,
      modified: expect.any(String),
      modified_gmt: expect.any(String),
      parent: id,
      slug: `${id}-revision-v1`,
      guid: { rendered: `${app.siteUrl}/?p=${oldest}` },
      title: { rendered: 'To prune' },
      content: { rendered: '<p>secret words to erase</p>\n' },
      excerpt: { rendered: '' },
    });
    expectError(await app.api('GET', `/cms/v2/posts/${id}/revisions/${oldest}`, { headers: given.author.headers }), 404, 'rest_post_invalid_id', 'Invalid revision ID.');
    expect(ids((await app.api('GET', `/cms/v2/posts/${id}/revisions`, { headers: given.author.headers })).body)).toEqual([newest]);
    const post = await app.api('GET', `/cms/v2/posts/${id}`, { headers: given.author.headers });
    expect(post.body._links['version-history'][0].count).toBe(1);
    // The change log keeps that a revision went, and no longer holds its words.
    const events = await changeLog(app.deps.store.db).readStream(id);
    expect(events.map((event) => event.type)).toEqual(['created', 'updated', 'updated', 'revision_deleted']);
    expect(JSON.stringify(events)).not.toContain('secret words to erase');
    expect(JSON.stringify(events)).toContain('final words');
  });

  it('shows the deleted revision in edit context when asked', async () => {
    const { id, oldest } = await postWithRevisions(given.editor.headers);
    const response = await app.api('DELETE', `/cms/v2/posts/${id}/revisions/${oldest}`, { headers: given.editor.headers, query: { force: true, context: 'edit' } });
    expect(response.body.previous.content).toEqual({ raw: 'secret words to erase', rendered: '<p>secret words to erase</p>\n' });
  });

  it('refuses those who may not delete the parent: 401 anonymous, 403 contributor, before looking at the revision', async () => {
    const { id, oldest } = await postWithRevisions(given.editor.headers);
    const message = 'Sorry, you are not allowed to delete revisions of this post.';
    expectError(await app.api('DELETE', `/cms/v2/posts/${id}/revisions/${oldest}`, { query: { force: true } }), 401, 'rest_cannot_delete', message);
    expectError(await app.api('DELETE', `/cms/v2/posts/${id}/revisions/${oldest}`, { headers: given.contributor.headers, query: { force: true } }), 403, 'rest_cannot_delete', message);
    expectError(await app.api('DELETE', `/cms/v2/posts/${id}/revisions/999999`, { headers: given.contributor.headers, query: { force: true } }), 403, 'rest_cannot_delete', message);
    expectError(await app.api('DELETE', `/cms/v2/posts/${id}/revisions/999999`, { headers: given.editor.headers, query: { force: true } }), 404, 'rest_post_invalid_id', 'Invalid revision ID.');
    expectError(await app.api('DELETE', `/cms/v2/posts/999999/revisions/${oldest}`, { headers: given.editor.headers, query: { force: true } }), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
  });

  it('will not delete another item\'s revision through this item\'s URL', async () => {
    const mine = await postWithRevisions(given.editor.headers);
    const theirs = await postWithRevisions(given.editor.headers);
    const response = await app.api('DELETE', `/cms/v2/posts/${mine.id}/revisions/${theirs.oldest}`, { headers: given.editor.headers, query: { force: true } });
    expectError(response, 404, 'rest_revision_parent_id_mismatch', `The revision does not belong to the specified parent with id of "${mine.id}"`);
    expect((await app.api('GET', `/cms/v2/posts/${theirs.id}/revisions/${theirs.oldest}`, { headers: given.editor.headers })).status).toBe(200);
  });
});

describe('POST /posts/<parent>/revisions/<id>/restore', () => {
  const given = revisionedPostFor(app);

  async function threeVersions() {
    const post = await createItem(app, { title: 'Title one', content: 'Content one', excerpt: 'Excerpt one', status: 'publish' }, { headers: given.author.headers });
    await updateItem(app, post.id, { title: 'Title two', content: 'Content two' }, { headers: given.author.headers });
    // Each call's post asks for the same slug: the first gets it, the next `kept-slug-2`, and so on.
    const third = await updateItem(app, post.id, { title: 'Title three', content: 'Content three', excerpt: 'Excerpt three', slug: 'kept-slug' }, { headers: given.author.headers });
    const list = await app.api('GET', `/cms/v2/posts/${post.id}/revisions`, { headers: given.author.headers });
    // `first` holds the second state (title two, content two, excerpt one): the first update's revision.
    return { id: post.id as number, slug: third.slug as string, first: list.body[1].id as number, newest: list.body[0].id as number };
  }

  it('makes the revision current, records a restore and a new revision, and answers with the post in edit context', async () => {
    const { id, slug, first } = await threeVersions();
    expect(slug).toMatch(/^kept-slug(-\d+)?$/);
    const response = await app.api('POST', `/cms/v2/posts/${id}/revisions/${first}/restore`, { headers: given.author.headers });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id,
      status: 'publish',
      slug,
      title: { raw: 'Title two', rendered: 'Title two' },
      content: { raw: 'Content two', rendered: '<p>Content two</p>\n' },
      excerpt: { raw: 'Excerpt one' },
    });
    expect(response.headers.get('etag')).toMatch(/^"\d+"$/);
    const list = await app.api('GET', `/cms/v2/posts/${id}/revisions`, { headers: given.author.headers, query: { context: 'edit' } });
    expect(list.body).toHaveLength(3);
    expect(list.body[0].content.raw).toBe('Content two');
    expect(response.body._links['version-history'][0].count).toBe(3);
    expect(response.body._links['predecessor-version'][0].id).toBe(list.body[0].id);
    const events = await changeLog(app.deps.store.db).readStream(id);
    expect(events.at(-1)).toMatchObject({ type: 'restored', actor: given.author.id, data: { fromRevision: first, revisionId: list.body[0].id } });
  });

  it('records the restore of the current content without a new revision', async () => {
    const { id, newest } = await threeVersions();
    const response = await app.api('POST', `/cms/v2/posts/${id}/revisions/${newest}/restore`, { headers: given.author.headers });
    expect(response.status).toBe(200);
    expect(response.body._links['version-history'][0].count).toBe(2);
    const events = await changeLog(app.deps.store.db).readStream(id);
    expect(events.at(-1)?.type).toBe('restored');
    expect(events.at(-1)?.data.revisionId).toBeUndefined();
    expect(events.at(-1)?.data.fromRevision).toBe(newest);
  });

  it('honours If-Match: 412 when the post changed since, 200 when it did not', async () => {
    const { id, first } = await threeVersions();
    const current = (await app.api('GET', `/cms/v2/posts/${id}`, { headers: given.author.headers })).headers.get('etag')!;
    const stale = await app.api('POST', `/cms/v2/posts/${id}/revisions/${first}/restore`, { headers: { ...given.author.headers, 'If-Match': '"1"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('rest_precondition_failed');
    const fresh = await app.api('POST', `/cms/v2/posts/${id}/revisions/${first}/restore`, { headers: { ...given.author.headers, 'If-Match': current } });
    expect(fresh.status).toBe(200);
    expect(fresh.body.content.raw).toBe('Content two');
  });

  it('is for those who may edit the parent, and checks parent, revision and ownership', async () => {
    const { id, first } = await threeVersions();
    const route = `/cms/v2/posts/${id}/revisions/${first}/restore`;
    expectError(await app.api('POST', route), 401, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
    expectError(await app.api('POST', route, { headers: given.contributor.headers }), 403, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
    expectError(await app.api('POST', `/cms/v2/posts/999999/revisions/${first}/restore`, { headers: given.author.headers }), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
    expectError(await app.api('POST', `/cms/v2/posts/${id}/revisions/999999/restore`, { headers: given.author.headers }), 404, 'rest_post_invalid_id', 'Invalid revision ID.');
    expectError(
      await app.api('POST', `/cms/v2/posts/${given.postId}/revisions/${first}/restore`, { headers: given.editor.headers }),
      404,
      'rest_revision_parent_id_mismatch',
      `The revision does not belong to the specified parent with id of "${given.postId}"`,
    );
  });
});

describe('GET /posts/<parent>/revisions/<id>/diff', () => {
  const given = revisionedPostFor(app);

  it('compares a revision with the one before it, field by field', async () => {
    const response = await app.api('GET', `/cms/v2/posts/${given.postId}/revisions/${given.r2}/diff`, { headers: given.editor.headers });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      from: given.r1,
      to: given.r2,
      fields: {
        title: { changed: false, hunks: [] },
        content: {
          changed: true,
          hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-This content is better.', '+This content is marvelous.'] }],
        },
        excerpt: { changed: false, hunks: [] },
      },
    });
  });

  it('compares the oldest revision with nothing', async () => {
    const response = await app.api('GET', `/cms/v2/posts/${given.postId}/revisions/${given.r1}/diff`, { headers: given.editor.headers });
    expect(response.body.from).toBeNull();
    expect(response.body.fields.title).toEqual({ changed: true, hunks: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 1, lines: ['+Revisioned'] }] });
    expect(response.body.fields.excerpt).toEqual({ changed: false, hunks: [] });
  });

  it('compares with another revision of the same item given as against, in hunks with three lines of context', async () => {
    const text = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve';
    const post = await createItem(app, { title: 'Lines', content: text }, { headers: given.editor.headers });
    const first = await updateItem(app, post.id, { content: text }, { headers: given.editor.headers });
    await updateItem(app, post.id, { content: text.replace('two', 'TWO') }, { headers: given.editor.headers });
    const last = await updateItem(app, post.id, { content: text.replace('two', 'TWO').replace('twelve', 'TWELVE') }, { headers: given.editor.headers });
    const from = first._links['predecessor-version'][0].id;
    const to = last._links['predecessor-version'][0].id;
    const response = await app.api('GET', `/cms/v2/posts/${post.id}/revisions/${to}/diff`, { headers: given.editor.headers, query: { against: from } });
    expect(response.body.from).toBe(from);
    expect(response.body.to).toBe(to);
    expect(response.body.fields.content).toEqual({
      changed: true,
      hunks: [
        { oldStart: 1, oldLines: 5, newStart: 1, newLines: 5, lines: [' one', '-two', '+TWO', ' three', ' four', ' five'] },
        { oldStart: 9, oldLines: 4, newStart: 9, newLines: 4, lines: [' nine', ' ten', ' eleven', '-twelve', '+TWELVE'] },
      ],
    });
    const itself = await app.api('GET', `/cms/v2/posts/${post.id}/revisions/${to}/diff`, { headers: given.editor.headers, query: { against: to } });
    expect(itself.body.fields.content).toEqual({ changed: false, hunks: [] });
  });

  it('refuses an against that is not a revision of the same item', async () => {
    const other = await createItem(app, { title: 'Elsewhere', content: 'x' }, { headers: given.editor.headers });
    const foreign = (await updateItem(app, other.id, { content: 'y' }, { headers: given.editor.headers }))._links['predecessor-version'][0].id;
    for (const against of [foreign, given.postId, 999999]) {
      expectError(
        await app.api('GET', `/cms/v2/posts/${given.postId}/revisions/${given.r2}/diff`, { headers: given.editor.headers, query: { against } }),
        404,
        'rest_post_invalid_id',
        'Invalid revision ID.',
      );
    }
  });

  it('is for those who may read the revisions', async () => {
    const route = `/cms/v2/posts/${given.postId}/revisions/${given.r2}/diff`;
    expectError(await app.api('GET', route), 401, 'rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.');
    expectError(await app.api('GET', route, { headers: given.contributor.headers }), 403, 'rest_cannot_read', 'Sorry, you are not allowed to view revisions of this post.');
  });
});

describe('a post with 10,000 revisions', () => {
  const given = usersFor(app, ['editor', 'author', 'contributor']);
  const revisions = revisionsAs(given);

  it('pages, counts and sorts them from the index', async () => {
    const post = await createItem(app, { title: 'Long history', content: 'start' }, { headers: given.editor.headers });
    // Ten thousand updates over HTTP would take minutes; the rows are written as the projection writes them.
    const base = Date.UTC(2020, 0, 1);
    const rows = Array.from({ length: 10_000 }, (_, index) => {
      const date = new Date(base + index * 60_000).toISOString().slice(0, 19);
      return {
        _id: 50_000_000 + index,
        parent: post.id,
        kind: 'revision',
        author: given.editor.id,
        title: `Version ${index}`,
        content: `Content of version ${index}`,
        excerpt: '',
        date,
        dateGmt: date,
        modified: date,
        modifiedGmt: date,
        slug: `${post.id}-revision-v1`,
        version: 2 + index,
      };
    });
    await app.deps.store.db.collection('revisions').insertMany(rows.map((row) => storedRevision(row as RevisionDoc)) as never[]);
    // Rows written behind the log's back: the item's counters say so, and its newest revision
    // is marked unknown, as after a deletion, so it is looked up. (Speed is measured by
    // `npm run bench:history`, not asserted here.)
    await app.deps.store.db.collection('posts').updateOne({ _id: post.id } as never, { $set: { revisionCount: 10_000, latestRevision: -1, version: 10_001 } });
    const timed = (query: Record<string, string | number>) => revisions(post.id, query);
    const deep = await timed({ per_page: 10, page: 1000 });
    expect(ids(deep.body)).toEqual(Array.from({ length: 10 }, (_, index) => 50_000_009 - index));
    expect(deep.headers.get('x-wp-total')).toBe('10000');
    expect(deep.headers.get('x-wp-totalpages')).toBe('1000');
    const ascending = await timed({ per_page: 5, page: 401, order: 'asc', _fields: 'id' });
    expect(ids(ascending.body)).toEqual([50_002_000, 50_002_001, 50_002_002, 50_002_003, 50_002_004]);
    const byId = await timed({ per_page: 3, page: 2, orderby: 'id' });
    expect(ids(byId.body)).toEqual([50_009_996, 50_009_995, 50_009_994]);
    const searched = await timed({ search: 'version 9999' });
    expect(ids(searched.body)).toEqual([50_009_999]);

    const everything = await timed({ _fields: 'id' });
    expect(everything.body).toHaveLength(10_000);
    expect(everything.body[0]).toEqual({ id: 50_009_999 });
    const single = await app.api('GET', `/cms/v2/posts/${post.id}`, { headers: given.editor.headers });
    expect(single.body._links['version-history'][0].count).toBe(10_000);
    expect(single.body._links['predecessor-version'][0].id).toBe(50_009_999);
    // Ten thousand rows written and read whole: more than a default test's time on a loaded machine.
  }, 90_000);
});

describe('revision rows stored before rows kept their block of the log', () => {
  const given = usersFor(app, ['editor', 'author', 'contributor']);
  const revisions = revisionsAs(given);

  it('are given it once, at the next start, and listed as before', async () => {
    const post = await createItem(app, { title: 'Kept before blocks', content: REVISIONED_CONTENTS[0] }, { headers: given.editor.headers });
    for (let version = 1; version <= 40; version++) await updateItem(app, post.id, { content: `${REVISIONED_CONTENTS[version % 3]} ${version}` }, { headers: given.editor.headers });
    const listed = async () => ids((await revisions(post.id, { per_page: 7, page: 3 })).body);
    const before = await listed();
    expect(before).toHaveLength(7);
    const db = app.deps.store.db;
    await db.collection('revisions').updateMany({ parent: post.id }, { $unset: { block: '' } });
    await db.collection('checkpoints').deleteOne({ _id: REVISION_BLOCKS_CHECKPOINT } as never);
    expect(await listed()).toEqual([]);
    expect(await backfillRevisionBlocks(db)).toBeGreaterThanOrEqual(40);
    expect(await listed()).toEqual(before);
    expect(await backfillRevisionBlocks(db)).toBe(0);
  });
});

describe('autosave rows stored before autosaves kept their key', () => {
  const given = usersFor(app, ['editor', 'author', 'contributor']);

  it("are given it once, at the next start, and the user's next autosave saves over them", async () => {
    const post = await createItem(app, { title: 'Autosaved before keys', content: REVISIONED_CONTENTS[0], status: 'publish' }, { headers: given.editor.headers });
    const autosave = async (content: string) => {
      const saved = await app.api('POST', `/cms/v2/posts/${post.id}/autosaves`, { headers: given.editor.headers, json: { title: 'Autosaved before keys', content } });
      expect(saved.status).toBe(200);
      return saved.body.id as number;
    };
    const first = await autosave('First draft of the words.');
    const db = app.deps.store.db;
    await db.collection('revisions').updateMany({ parent: post.id }, { $unset: { autosaveOf: '' } });
    await db.collection('checkpoints').deleteOne({ _id: AUTOSAVE_KEYS_CHECKPOINT } as never);
    expect(await backfillAutosaveKeys(db)).toBeGreaterThanOrEqual(1);
    expect(await autosave('Second draft of the words.')).toBe(first);
    const listed = await app.api('GET', `/cms/v2/posts/${post.id}/autosaves`, { headers: given.editor.headers, query: { context: 'edit' } });
    expect(listed.body.map((row: { id: number; content: { raw: string } }) => [row.id, row.content.raw])).toEqual([[first, 'Second draft of the words.']]);
    expect(await backfillAutosaveKeys(db)).toBe(0);
  });
});
