import { describe, expect, it } from 'vitest';
import { changeLog } from '../../src/store/log/change-log.js';
import { createItem } from '../support/http-posts.js';
import { testAppForFile, usersFor } from '../support/test-app.js';


const app = testAppForFile();
const users = usersFor(app, ['editor', 'author', 'contributor']);

const autosave = (id: number, headers: Record<string, string>, json: Record<string, unknown>, base = 'posts') =>
  app.api('POST', `/cms/v2/${base}/${id}/autosaves`, { headers, json });

const getPost = async (id: number, base = 'posts') => (await app.api('GET', `/cms/v2/${base}/${id}`, { headers: app.admin, query: { context: 'edit' } })).body;

const eventCount = async (id: number) => (await changeLog(app.deps.store.db).readStream(id)).length;

function expectError(response: { status: number; body: unknown }, status: number, code: string, message: string) {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: { code, message, data: { status } } });
}

const DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;
const EDIT_FIELDS = ['author', 'content', 'date', 'date_gmt', 'excerpt', 'guid', 'id', 'modified', 'modified_gmt', 'parent', 'preview_link', 'slug', 'title'];

describe('autosave routes', () => {
  it('are registered for posts and pages, with the revision schema plus preview_link', async () => {
    const index = await app.api('GET', '/');
    for (const route of [
      '/cms/v2/posts/(?P<id>[\\d]+)/autosaves',
      '/cms/v2/posts/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)',
      '/cms/v2/pages/(?P<id>[\\d]+)/autosaves',
      '/cms/v2/pages/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)',
    ]) {
      expect(Object.keys(index.body.routes)).toContain(route);
    }
    const post = await createItem(app, { title: 'Options' }, { headers: users.author.headers });
    const options = await app.api('OPTIONS', `/cms/v2/posts/${post.id}/autosaves`);
    expect(options.body.schema.title).toBe('post-revision');
    expect(Object.keys(options.body.schema.properties).sort()).toEqual(EDIT_FIELDS);
    expect(options.body.schema.properties.preview_link).toEqual({
      description: 'Preview link for the post.',
      type: 'string',
      format: 'uri',
      context: ['edit'],
      readonly: true,
    });
    const [list, save] = options.body.endpoints;
    expect(list.methods).toEqual(['GET']);
    expect(Object.keys(list.args)).toEqual(['parent', 'context']);
    expect(list.args.context.default).toBe('view');
    expect(save.methods).toEqual(['POST']);
    expect(Object.keys(save.args)).toEqual(expect.arrayContaining(['parent', 'title', 'content', 'excerpt', 'status', 'date', 'slug', 'author', 'categories', 'tags']));
    expect(save.args.id).toBeUndefined();
    expect(save.args.parent.description).toBe('The ID for the parent of the autosave.');
    const pageOptions = await app.api('OPTIONS', `/cms/v2/pages/${post.id}/autosaves`);
    // A page's own `parent` wins over the route's.
    expect(pageOptions.body.endpoints[1].args.parent.description).toBe('The ID for the parent of the post.');
    expect(pageOptions.body.schema.title).toBe('page-revision');
    const single = await app.api('OPTIONS', `/cms/v2/posts/${post.id}/autosaves/1`);
    expect(Object.keys(single.body.endpoints[0].args)).toEqual(['parent', 'id', 'context']);
  });
});

describe('POST /posts/<id>/autosaves', () => {
  it("saves the author's own draft in place: no revision, 200 with the post in the autosave shape", async () => {
    const draft = await createItem(app, { title: 'Draft', content: 'First words' }, { headers: users.author.headers });
    const response = await autosave(draft.id, users.author.headers, { title: 'Draft, autosaved', content: 'Second words', excerpt: 'Short' });
    expect(response.status).toBe(200);
    expect(response.headers.get('location')).toBeNull();
    expect(response.body).toEqual({
      author: users.author.id,
      // A draft's date floats (no GMT date yet), which WordPress prints as null here.
      date: null,
      date_gmt: null,
      id: draft.id,
      modified: expect.stringMatching(DATE),
      modified_gmt: expect.stringMatching(DATE),
      parent: 0,
      slug: '',
      guid: { rendered: `${app.siteUrl}/?p=${draft.id}`, raw: `${app.siteUrl}/?p=${draft.id}` },
      title: { raw: 'Draft, autosaved', rendered: 'Draft, autosaved' },
      content: { raw: 'Second words', rendered: '<p>Second words</p>\n' },
      excerpt: { raw: 'Short', rendered: '<p>Short</p>\n' },
      preview_link: `${app.siteUrl}/?p=${draft.id}&preview=true`,
    });
    const post = await getPost(draft.id);
    expect(post).toMatchObject({ status: 'draft', title: { raw: 'Draft, autosaved' }, content: { raw: 'Second words' }, excerpt: { raw: 'Short' } });
    expect(post._links['version-history'][0].count).toBe(0);
    expect((await app.api('GET', `/cms/v2/posts/${draft.id}/revisions`, { headers: users.author.headers })).body).toEqual([]);
    expect((await app.api('GET', `/cms/v2/posts/${draft.id}/autosaves`, { headers: users.author.headers })).body).toEqual([]);
    const events = await changeLog(app.deps.store.db).readStream(draft.id);
    expect(events.map((event) => event.type)).toEqual(['created', 'autosaved']);
    expect(events[1].data).toMatchObject({ inPlace: true, changes: { title: 'Draft, autosaved', content: 'Second words', excerpt: 'Short' } });
  });

  it('keeps an autosave of a published post apart from the post, with the fields not sent left empty', async () => {
    const published = await createItem(app, { title: 'Live title', content: 'Live words', status: 'publish' }, { headers: users.author.headers });
    const response = await autosave(published.id, users.author.headers, { content: 'Unsaved words' });
    expect(response.status).toBe(200);
    const saved = response.body;
    expect(saved.id).not.toBe(published.id);
    expect(saved).toEqual({
      author: users.author.id,
      date: expect.stringMatching(DATE),
      date_gmt: expect.stringMatching(DATE),
      id: saved.id,
      modified: saved.date,
      modified_gmt: saved.date_gmt,
      parent: published.id,
      slug: `${published.id}-autosave-v1`,
      guid: { rendered: `${app.siteUrl}/?p=${saved.id}`, raw: `${app.siteUrl}/?p=${saved.id}` },
      title: { raw: '', rendered: '' },
      content: { raw: 'Unsaved words', rendered: '<p>Unsaved words</p>\n' },
      excerpt: { raw: '', rendered: '' },
      preview_link: expect.stringMatching(new RegExp(`^${app.siteUrl.replace(/\./g, '\\.')}/\\?p=${published.id}&preview_id=${published.id}&preview_nonce=[0-9a-f]{10}&preview=true$`)),
      _links: { parent: [{ href: `${app.apiRoot}/cms/v2/posts/${published.id}` }] },
    });
    const post = await getPost(published.id);
    expect(post).toMatchObject({ status: 'publish', title: { raw: 'Live title' }, content: { raw: 'Live words' } });
    // Autosaves are revision records: they count in version-history and show in the revisions list.
    expect(post._links['version-history'][0].count).toBe(1);
    expect(post._links['predecessor-version'][0].id).toBe(saved.id);
    const revisions = await app.api('GET', `/cms/v2/posts/${published.id}/revisions`, { headers: users.author.headers });
    expect(revisions.body.map((row: { id: number; slug: string }) => [row.id, row.slug])).toEqual([[saved.id, `${published.id}-autosave-v1`]]);
    expect(revisions.headers.get('x-wp-total')).toBe('1');
  });

  it("writes another user's autosave of a draft beside it, never into it", async () => {
    const draft = await createItem(app, { title: 'Mine', content: 'My words' }, { headers: users.author.headers });
    const response = await autosave(draft.id, users.editor.headers, { title: 'Edited by the editor' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ parent: draft.id, author: users.editor.id, slug: `${draft.id}-autosave-v1`, title: { raw: 'Edited by the editor' }, content: { raw: '' } });
    expect(response.body.id).not.toBe(draft.id);
    expect((await getPost(draft.id)).title.raw).toBe('Mine');
  });

  it('keeps one autosave per user, updated in place with the fields sent, and writes nothing when nothing differs', async () => {
    const published = await createItem(app, { title: 'Steady', content: 'Stored words', status: 'publish' }, { headers: users.author.headers });
    const first = await autosave(published.id, users.author.headers, { title: 'Working title', content: 'Draft one' });
    const second = await autosave(published.id, users.author.headers, { content: 'Draft two' });
    expect(second.body.id).toBe(first.body.id);
    expect(second.body).toMatchObject({ title: { raw: 'Working title' }, content: { raw: 'Draft two' } });
    expect(second.body.date >= first.body.date).toBe(true);

    const before = await eventCount(published.id);
    // The same text as the post itself: nothing to save, the existing autosave comes back as it was.
    const unchanged = await autosave(published.id, users.author.headers, { title: 'Steady', content: 'Stored words' });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual(second.body);
    expect(await eventCount(published.id)).toBe(before);

    // A user without an autosave gets one even when it equals the post.
    const editorsCopy = await autosave(published.id, users.editor.headers, { title: 'Steady', content: 'Stored words' });
    expect(editorsCopy.body.id).not.toBe(first.body.id);
    expect(editorsCopy.body).toMatchObject({ author: users.editor.id, title: { raw: 'Steady' }, content: { raw: 'Stored words' } });
    expect(await eventCount(published.id)).toBe(before + 1);
    expect((await getPost(published.id))._links['version-history'][0].count).toBe(2);
  });

  it('leaves autosaves out when deciding whether an update needs a revision', async () => {
    const published = await createItem(app, { title: 'Counted', content: 'Body', status: 'publish' }, { headers: users.author.headers });
    const updated = await app.api('POST', `/cms/v2/posts/${published.id}`, { headers: users.author.headers, json: { content: 'Body two' } });
    expect(updated.body._links['version-history'][0].count).toBe(1);
    await autosave(published.id, users.author.headers, { content: 'Body three, unsaved' });
    const statusOnly = await app.api('POST', `/cms/v2/posts/${published.id}`, { headers: users.author.headers, json: { comment_status: 'closed' } });
    expect(statusOnly.body._links['version-history'][0].count).toBe(2);
    const revisions = await app.api('GET', `/cms/v2/posts/${published.id}/revisions`, { headers: users.author.headers, query: { context: 'edit' } });
    expect(revisions.body.map((row: { content: { raw: string } }) => row.content.raw)).toEqual(['Body three, unsaved', 'Body two']);
  });

  it('checks the update permission: 401 anonymous, 403 without edit_post, 404 for a missing post', async () => {
    const post = await createItem(app, { title: 'Guarded', status: 'publish' }, { headers: users.author.headers });
    const message = 'Sorry, you are not allowed to edit this post.';
    expectError(await autosave(post.id, {}, { content: 'x' }), 401, 'rest_cannot_edit', message);
    expectError(await autosave(post.id, users.contributor.headers, { content: 'x' }), 403, 'rest_cannot_edit', message);
    expectError(await autosave(999999, users.editor.headers, { content: 'x' }), 404, 'rest_post_invalid_id', 'Invalid post ID.');
    expectError(await autosave(0, users.editor.headers, { content: 'x' }), 404, 'rest_post_invalid_id', 'Invalid item ID.');
    const page = await createItem(app, { title: 'A page' }, { headers: users.editor.headers, type: 'page' });
    expectError(await autosave(page.id, users.editor.headers, { content: 'x' }), 404, 'rest_post_invalid_id', 'Invalid post ID.');
    expectError(
      await autosave(post.id, users.author.headers, { content: 'x', author: users.editor.id }),
      403,
      'rest_cannot_edit_others',
      'Sorry, you are not allowed to update posts as this user.',
    );
  });

  it('validates its arguments before checking permissions', async () => {
    const post = await createItem(app, { title: 'Validated' }, { headers: users.author.headers });
    const response = await autosave(post.id, {}, { status: 'bogus' });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('rest_invalid_param');
    expect(Object.keys(response.body.data.params)).toEqual(['status']);
  });

  it('serves pages: preview links use page_id, and a page saved in place links to its parent page', async () => {
    const parent = await createItem(app, { title: 'Parent page', status: 'publish' }, { headers: users.editor.headers, type: 'page' });
    const child = await createItem(app, { title: 'Child draft', parent: parent.id }, { headers: users.editor.headers, type: 'page' });
    const inPlace = await autosave(child.id, users.editor.headers, { content: 'Child words' }, 'pages');
    expect(inPlace.body).toMatchObject({ id: child.id, parent: parent.id, preview_link: `${app.siteUrl}/?page_id=${child.id}&preview=true` });
    expect(inPlace.body._links).toEqual({ parent: [{ href: `${app.apiRoot}/cms/v2/pages/${parent.id}` }] });
    const row = await autosave(parent.id, users.editor.headers, { content: 'Parent words' }, 'pages');
    expect(row.body.parent).toBe(parent.id);
    expect(row.body.preview_link).toMatch(new RegExp(`/\\?page_id=${parent.id}&preview_id=${parent.id}&preview_nonce=[0-9a-f]{10}&preview=true$`));
  });
});

describe('GET /posts/<id>/autosaves', () => {
  it("lists every user's autosave, newest first, without paging headers", async () => {
    const post = await createItem(app, { title: 'Shared', content: 'Shared words', status: 'publish' }, { headers: users.author.headers });
    const mine = (await autosave(post.id, users.author.headers, { content: 'Author version' })).body;
    const theirs = (await autosave(post.id, users.editor.headers, { content: 'Editor version' })).body;
    const response = await app.api('GET', `/cms/v2/posts/${post.id}/autosaves`, { headers: users.author.headers });
    expect(response.status).toBe(200);
    expect(response.body.map((row: { id: number }) => row.id)).toEqual([theirs.id, mine.id]);
    expect(response.headers.get('x-wp-total')).toBeNull();
    expect(response.headers.get('x-wp-totalpages')).toBeNull();
    // View context: no raw text and no preview link.
    expect(response.body[0]).toEqual({
      author: users.editor.id,
      date: theirs.date,
      date_gmt: theirs.date_gmt,
      id: theirs.id,
      modified: theirs.modified,
      modified_gmt: theirs.modified_gmt,
      parent: post.id,
      slug: `${post.id}-autosave-v1`,
      guid: { rendered: `${app.siteUrl}/?p=${theirs.id}` },
      title: { rendered: '' },
      content: { rendered: '<p>Editor version</p>\n' },
      excerpt: { rendered: '' },
      _links: { parent: [{ href: `${app.apiRoot}/cms/v2/posts/${post.id}` }] },
    });
    const edit = await app.api('GET', `/cms/v2/posts/${post.id}/autosaves`, { headers: users.author.headers, query: { context: 'edit' } });
    expect(Object.keys(edit.body[0]).sort()).toEqual(['_links', ...EDIT_FIELDS]);
    const embed = await app.api('GET', `/cms/v2/posts/${post.id}/autosaves`, { headers: users.author.headers, query: { context: 'embed' } });
    expect(Object.keys(embed.body[0]).sort()).toEqual(['_links', 'author', 'date', 'excerpt', 'id', 'parent', 'slug', 'title']);
  });

  it('loses an autosave deleted through the revisions route', async () => {
    const post = await createItem(app, { title: 'Pruned', content: 'Kept', status: 'publish' }, { headers: users.author.headers });
    const saved = (await autosave(post.id, users.author.headers, { content: 'Thrown away' })).body;
    const deleted = await app.api('DELETE', `/cms/v2/posts/${post.id}/revisions/${saved.id}`, { headers: users.author.headers, query: { force: true } });
    expect(deleted.status).toBe(200);
    expect(deleted.body.previous).toMatchObject({ id: saved.id, slug: `${post.id}-autosave-v1` });
    expect((await app.api('GET', `/cms/v2/posts/${post.id}/autosaves`, { headers: users.author.headers })).body).toEqual([]);
    expect((await getPost(post.id))._links['version-history'][0].count).toBe(0);
    const events = await changeLog(app.deps.store.db).readStream(post.id);
    expect(events.map((event) => event.type)).toEqual(['created', 'autosaved', 'revision_deleted']);
    expect(JSON.stringify(events)).not.toContain('Thrown away');
  });

  it('answers [] for an item without autosaves', async () => {
    const post = await createItem(app, { title: 'Quiet' }, { headers: users.author.headers });
    const response = await app.api('GET', `/cms/v2/posts/${post.id}/autosaves`, { headers: users.author.headers });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });

  it('answers 404 for a missing parent or one of another type, then 401/403 without edit_post', async () => {
    const post = await createItem(app, { title: 'Private thoughts' }, { headers: users.author.headers });
    const page = await createItem(app, { title: 'Page' }, { headers: users.editor.headers, type: 'page' });
    expectError(await app.api('GET', '/cms/v2/posts/999999/autosaves'), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
    expectError(await app.api('GET', `/cms/v2/posts/${page.id}/autosaves`, { headers: users.editor.headers }), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
    const message = 'Sorry, you are not allowed to view autosaves of this post.';
    expectError(await app.api('GET', `/cms/v2/posts/${post.id}/autosaves`), 401, 'rest_cannot_read', message);
    expectError(await app.api('GET', `/cms/v2/posts/${post.id}/autosaves`, { headers: users.contributor.headers }), 403, 'rest_cannot_read', message);
  });
});

describe('GET /posts/<parent>/autosaves/<id>', () => {
  it("returns the item's newest autosave, whatever id the URL names", async () => {
    const post = await createItem(app, { title: 'Single', content: 'Saved', status: 'publish' }, { headers: users.author.headers });
    await autosave(post.id, users.author.headers, { content: 'Older autosave' });
    const newest = (await autosave(post.id, users.editor.headers, { content: 'Newest autosave' })).body;
    for (const id of [newest.id, 1, 999999]) {
      // As the editor who saved it: the preview nonce is the viewer's.
      const response = await app.api('GET', `/cms/v2/posts/${post.id}/autosaves/${id}`, { headers: users.editor.headers, query: { context: 'edit' } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(newest);
    }
    const asAuthor = await app.api('GET', `/cms/v2/posts/${post.id}/autosaves/${newest.id}`, { headers: users.author.headers });
    expect(asAuthor.body.id).toBe(newest.id);
  });

  it('answers 404 rest_post_no_autosave when there is none', async () => {
    const post = await createItem(app, { title: 'Nothing yet', status: 'publish' }, { headers: users.author.headers });
    expectError(
      await app.api('GET', `/cms/v2/posts/${post.id}/autosaves/1`, { headers: users.author.headers }),
      404,
      'rest_post_no_autosave',
      'There is no autosave revision for this post.',
    );
  });

  it("uses the revisions' read check", async () => {
    const post = await createItem(app, { title: 'Checked', status: 'publish' }, { headers: users.author.headers });
    await autosave(post.id, users.author.headers, { content: 'Saved aside' });
    const message = 'Sorry, you are not allowed to view revisions of this post.';
    expectError(await app.api('GET', `/cms/v2/posts/${post.id}/autosaves/1`), 401, 'rest_cannot_read', message);
    expectError(await app.api('GET', `/cms/v2/posts/${post.id}/autosaves/1`, { headers: users.contributor.headers }), 403, 'rest_cannot_read', message);
    expectError(await app.api('GET', '/cms/v2/posts/999999/autosaves/1', { headers: users.author.headers }), 404, 'rest_post_invalid_parent', 'Invalid post parent ID.');
  });
});
