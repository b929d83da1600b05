import { describe, expect, it } from 'vitest';
import { startServiceOn, testAppForFile, usersFor } from '../support/test-app.js';
import { changeLog } from '../../src/store/log/change-log.js';

const app = testAppForFile();
const users = usersFor(app, ['author', 'contributor', 'editor']);

const create = (headers: Record<string, string>, json: Record<string, unknown>, type = 'posts') => app.api('POST', `/cms/v2/${type}`, { headers, json });

describe('creating posts', () => {
  it('creates a draft with 201, Location, ETag and the edit context', async () => {
    const response = await create(users.author.headers, { title: 'First draft', content: 'Hello' });
    expect(response.status).toBe(201);
    const post = response.body;
    expect(response.headers.get('location')).toBe(`${app.apiRoot}/cms/v2/posts/${post.id}`);
    expect(response.headers.get('etag')).toBe('"1"');
    expect(post).toMatchObject({
      status: 'draft',
      type: 'post',
      slug: '',
      author: users.author.id,
      title: { raw: 'First draft', rendered: 'First draft' },
      content: { raw: 'Hello', rendered: '<p>Hello</p>\n', protected: false, block_version: 0 },
      excerpt: { raw: '', protected: false },
      categories: [1],
      tags: [],
      format: 'standard',
      sticky: false,
      comment_status: 'open',
      generated_slug: 'first-draft',
      link: `${app.siteUrl}/?p=${post.id}`,
      guid: { raw: `${app.siteUrl}/?p=${post.id}` },
    });
    expect(post.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(post.date_gmt).toBe(post.date);
    expect(post._links['version-history']).toEqual([{ href: `${app.apiRoot}/cms/v2/posts/${post.id}/revisions`, count: 0 }]);
    expect(post._links['predecessor-version']).toBeUndefined();
  });

  it('publishes with a slug made from the title, unique among posts', async () => {
    const first = await create(users.author.headers, { title: 'Same Title', status: 'publish' });
    const second = await create(users.author.headers, { title: 'Same Title', status: 'publish' });
    expect(first.body.slug).toBe('same-title');
    expect(second.body.slug).toBe('same-title-2');
    expect(first.body.status).toBe('publish');
  });

  it('schedules a post dated in the future and publishes a future one dated in the past', async () => {
    const future = await create(users.author.headers, { title: 'Later', status: 'publish', date_gmt: '2099-01-01T10:00:00' });
    expect(future.body).toMatchObject({ status: 'future', date_gmt: '2099-01-01T10:00:00', date: '2099-01-01T10:00:00' });
    const past = await create(users.author.headers, { title: 'Earlier', status: 'future', date: '2001-01-01T10:00:00' });
    expect(past.body.status).toBe('publish');
  });

  it('refuses what the caller may not do, with WordPress codes', async () => {
    const anonymous = await create({}, { title: 'x' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_cannot_create');
    const subscriber = await app.asRole('subscriber');
    expect((await create(subscriber.headers, { title: 'x' })).status).toBe(403);
    const publish = await create(users.contributor.headers, { title: 'x', status: 'publish' });
    expect(publish.status).toBe(403);
    expect(publish.body).toMatchObject({ code: 'rest_cannot_publish', message: 'Sorry, you are not allowed to publish posts in this post type.' });
    const others = await create(users.author.headers, { title: 'x', author: users.editor.id });
    expect(others.body.code).toBe('rest_cannot_edit_others');
    const badStatus = await create(users.author.headers, { title: 'x', status: 'archived' });
    expect(badStatus.body.data.details.status.code).toBe('rest_not_in_enum');
    const exists = await create(users.author.headers, { id: 5, title: 'x' });
    expect(exists.body.code).toBe('rest_post_exists');
    const term = await create(users.author.headers, { title: 'x', categories: [987654] });
    expect(term.status).toBe(400);
  });
});

describe('answering writes', () => {
  it('answers in the edit context whatever `context` the write asks, as WordPress does', async () => {
    const created = await app.api('POST', '/cms/v2/posts', { headers: users.author.headers, query: { context: 'view' }, json: { title: 'Asked for view', content: 'Raw words' } });
    expect(created.status).toBe(201);
    expect(created.body.content.raw).toBe('Raw words');
    const updated = await app.api('POST', `/cms/v2/posts/${created.body.id}`, { headers: users.author.headers, query: { context: 'embed' }, json: { excerpt: 'Raw excerpt' } });
    expect(updated.body.excerpt.raw).toBe('Raw excerpt');
    const deleted = await app.api('DELETE', `/cms/v2/posts/${created.body.id}`, { headers: users.author.headers, query: { force: true, context: 'view' } });
    expect(deleted.body.previous.content.raw).toBe('Raw words');
  });
});

describe('reading posts', () => {
  it('shows published posts to anyone and drafts to those who may edit them', async () => {
    const draft = (await create(users.author.headers, { title: 'Private thoughts' })).body;
    const anonymous = await app.api('GET', `/cms/v2/posts/${draft.id}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_forbidden');
    expect((await app.api('GET', `/cms/v2/posts/${draft.id}`, { headers: users.contributor.headers })).status).toBe(403);
    expect((await app.api('GET', `/cms/v2/posts/${draft.id}`, { headers: users.editor.headers })).status).toBe(200);
    const published = (await create(users.author.headers, { title: 'Public', content: 'Body', status: 'publish' })).body;
    const view = await app.api('GET', `/cms/v2/posts/${published.id}`);
    expect(view.status).toBe(200);
    expect(view.body.title).toEqual({ rendered: 'Public' });
    expect(view.body.content).toEqual({ rendered: '<p>Body</p>\n', protected: false });
    expect(view.headers.get('etag')).toBe('"1"');
    const edit = await app.api('GET', `/cms/v2/posts/${published.id}`, { query: { context: 'edit' } });
    expect(edit.status).toBe(401);
    expect(edit.body.code).toBe('rest_forbidden_context');
    expect((await app.api('GET', '/cms/v2/posts/99999999')).body.code).toBe('rest_post_invalid_id');
  });

  it('hides password-protected content unless the password is given', async () => {
    const post = (await create(users.author.headers, { title: 'Locked', content: 'Secret', password: 'sesame', status: 'publish' })).body;
    const locked = await app.api('GET', `/cms/v2/posts/${post.id}`);
    expect(locked.body.content).toEqual({ rendered: '', protected: true });
    const open = await app.api('GET', `/cms/v2/posts/${post.id}`, { query: { password: 'sesame' } });
    expect(open.body.content.rendered).toBe('<p>Secret</p>\n');
    const wrong = await app.api('GET', `/cms/v2/posts/${post.id}`, { query: { password: 'nope' } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('rest_post_incorrect_password');
  });

  it('lets a search match a password-protected item only for those who may read its words', async () => {
    const otherAuthor = await app.asRole('author');
    const subscriber = await app.asRole('subscriber');
    for (const type of ['posts', 'pages']) {
      const marker = `7731-ALPHA-${type}`;
      const owner = type === 'posts' ? users.author : users.editor;
      const item = (await create(owner.headers, { title: `Vault ${marker}`, content: `Body ${marker}-content`, excerpt: `Excerpt ${marker}-excerpt`, password: 'sesame', status: 'publish' }, type)).body;
      const open = (await create(owner.headers, { title: 'Open', content: `Body ${marker}-content`, status: 'publish' }, type)).body;
      const found = async (search: string, headers: Record<string, string> = {}) =>
        ((await app.api('GET', `/cms/v2/${type}`, { headers, query: { search, per_page: 100, _fields: 'id' } })).body as { id: number }[]).map((found) => found.id);
      for (const search of [`${marker}-content`, `${marker}-excerpt`, marker]) {
        for (const headers of [{}, subscriber.headers, ...(type === 'posts' ? [otherAuthor.headers, users.contributor.headers] : [users.author.headers])]) {
          expect(await found(search, headers)).not.toContain(item.id);
        }
        expect(await found(search, owner.headers)).toContain(item.id);
        expect(await found(search, app.admin)).toContain(item.id);
      }
      expect(await found(`${marker}-content`)).toEqual([open.id]);
      // Without a search, a protected item is listed as any other (its words hidden).
      expect(await found('')).toContain(item.id);
    }
  });

  it('lists published posts newest first, drafts only to their editors', async () => {
    const mine = (await create(users.contributor.headers, { title: 'Contributor draft' })).body;
    // A draft of another's and a published post, made here rather than left by other tests.
    const theirs = (await create(users.author.headers, { title: 'Author draft' })).body;
    expect(theirs.status).toBe('draft');
    expect((await create(users.author.headers, { title: 'Listed', status: 'publish' })).status).toBe(201);
    const list = await app.api('GET', '/cms/v2/posts', { query: { per_page: 100 } });
    expect(list.status).toBe(200);
    expect(list.body.every((post: any) => post.status === undefined || post.status === 'publish')).toBe(true);
    expect(Number(list.headers.get('x-wp-total'))).toBe(list.body.length);
    const dates = list.body.map((post: any) => post.date);
    expect(dates).toEqual([...dates].sort().reverse());
    const forbidden = await app.api('GET', '/cms/v2/posts', { query: { status: 'draft' } });
    expect(forbidden.status).toBe(400);
    expect(forbidden.body.data.details.status.code).toBe('rest_forbidden_status');
    const own = await app.api('GET', '/cms/v2/posts', { headers: users.contributor.headers, query: { status: 'draft', per_page: 100 } });
    expect(own.body.map((post: any) => post.id)).toEqual([mine.id]);
    const all = await app.api('GET', '/cms/v2/posts', { headers: users.editor.headers, query: { status: 'draft', per_page: 100 } });
    expect(all.body.length).toBeGreaterThan(1);
    expect(all.body.map((post: any) => post.id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    const past = await app.api('GET', '/cms/v2/posts', { query: { page: 1000 } });
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('rest_post_invalid_page_number');
  });

  it('filters by search, author, include, slug and categories', async () => {
    const tag = await app.api('POST', '/cms/v2/tags', { headers: users.editor.headers, json: { name: 'Filtered' } });
    const tagged = (await create(users.author.headers, { title: 'Needle in haystack', status: 'publish', tags: [tag.body.id] })).body;
    expect((await app.api('GET', '/cms/v2/posts', { query: { search: 'needle' } })).body.map((post: any) => post.id)).toEqual([tagged.id]);
    expect((await app.api('GET', '/cms/v2/posts', { query: { tags: tag.body.id } })).body.map((post: any) => post.id)).toEqual([tagged.id]);
    expect((await app.api('GET', '/cms/v2/posts', { query: { slug: 'needle-in-haystack' } })).body.map((post: any) => post.id)).toEqual([tagged.id]);
    const byAuthor = await app.api('GET', '/cms/v2/posts', { query: { author: users.author.id, per_page: 100 } });
    expect(byAuthor.body.every((post: any) => post.author === users.author.id)).toBe(true);
    const tagAfter = await app.api('GET', `/cms/v2/tags/${tag.body.id}`);
    expect(tagAfter.body.count).toBe(1);
    const relevance = await app.api('GET', '/cms/v2/posts', { query: { orderby: 'relevance' } });
    expect(relevance.body.code).toBe('rest_no_search_term_defined');
  });

  it('keeps the terms of a taxonomy an update does not name, as WordPress sets only those it is sent', async () => {
    const category = await app.api('POST', '/cms/v2/categories', { headers: users.editor.headers, json: { name: `Kept ${Date.now()}` } });
    const tag = await app.api('POST', '/cms/v2/tags', { headers: users.editor.headers, json: { name: `Sent ${Date.now()}` } });
    const post = (await create(users.editor.headers, { title: 'Both taxonomies', status: 'publish', categories: [category.body.id] })).body;
    const tagged = await app.api('POST', `/cms/v2/posts/${post.id}`, { headers: users.editor.headers, json: { tags: [tag.body.id] } });
    expect(tagged.status).toBe(200);
    expect(tagged.body.categories).toEqual([category.body.id]);
    expect(tagged.body.tags).toEqual([tag.body.id]);
    const recategorized = await app.api('POST', `/cms/v2/posts/${post.id}`, { headers: users.editor.headers, json: { categories: [1] } });
    expect(recategorized.body.tags).toEqual([tag.body.id]);
    expect((await app.api('GET', `/cms/v2/categories/${category.body.id}`)).body.count).toBe(0);
  });

  it('embeds the author and the terms', async () => {
    const post = (await create(users.author.headers, { title: 'Embedded', status: 'publish' })).body;
    const { body } = await app.api('GET', `/cms/v2/posts/${post.id}`, { query: { _embed: 1 } });
    expect(body._embedded.author[0]).toMatchObject({ id: users.author.id });
    expect(body._embedded['wp:term'][0][0]).toMatchObject({ id: 1, slug: 'uncategorized' });
  });
});

describe('reads never write', () => {
  it('a read of posts or pages looks for no scheduled item to publish: the scheduler alone publishes them', async () => {
    const looks: unknown[] = [];
    const reader = await startServiceOn(app.databaseName, {
      onCommand: (event) => {
        const filter = event.command.filter as Record<string, unknown> | undefined;
        if (event.commandName === 'find' && event.command.find === 'posts' && filter?.status === 'future') looks.push(filter);
      },
    });
    try {
      const id = (await create(users.author.headers, { title: 'Read, not written', status: 'publish' })).body.id as number;
      for (const route of ['/posts', `/posts/${id}`, '/pages', '/posts', `/posts/${id}`]) {
        const answer = await fetch(`${reader.siteUrl}/cms-json/cms/v2${route}`);
        expect(answer.status, route).toBe(200);
        // Over more than a second: a look made at most once a second would be seen.
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    } finally {
      await reader.stop();
    }
    expect(looks).toEqual([]);
  });
});

describe('updating posts', () => {
  it('makes a revision on the first update, and later only when title, content or excerpt change', async () => {
    const post = (await create(users.author.headers, { title: 'Versioned', content: 'v1' })).body;
    const route = `/cms/v2/posts/${post.id}`;
    const first = await app.api('POST', route, { headers: users.author.headers, json: { status: 'pending' } });
    expect(first.status).toBe(200);
    expect(first.body._links['version-history'][0].count).toBe(1);
    const statusOnly = await app.api('PUT', route, { headers: users.author.headers, json: { status: 'draft' } });
    expect(statusOnly.body._links['version-history'][0].count).toBe(1);
    const content = await app.api('PATCH', route, { headers: users.author.headers, json: { content: { raw: 'v2' } } });
    expect(content.body._links['version-history'][0].count).toBe(2);
    expect(content.body._links['predecessor-version'][0].id).toEqual(expect.any(Number));
    expect(content.body.content.raw).toBe('v2');
  });

  it('answers 412 to a stale If-Match and changes nothing', async () => {
    const post = (await create(users.author.headers, { title: 'Guarded' })).body;
    const route = `/cms/v2/posts/${post.id}`;
    const read = await app.api('GET', route, { headers: users.author.headers });
    const etag = read.headers.get('etag')!;
    const ok = await app.api('POST', route, { headers: { ...users.author.headers, 'If-Match': etag }, json: { title: 'Guarded 2' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('etag')).not.toBe(etag);
    const stale = await app.api('POST', route, { headers: { ...users.author.headers, 'If-Match': etag }, json: { title: 'Lost update' } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('rest_precondition_failed');
    expect((await app.api('GET', route, { headers: users.author.headers, query: { context: 'edit' } })).body.title.raw).toBe('Guarded 2');
  });

  it('reads If-Match as RFC 9110 says: a list, * for any item, weak tags never, on updates and deletes alike', async () => {
    const post = (await create(users.author.headers, { title: 'Conditional' })).body;
    const route = `/cms/v2/posts/${post.id}`;
    const etag = (await app.api('GET', route, { headers: users.author.headers })).headers.get('etag')!;
    const send = (method: string, ifMatch: string, query: Record<string, string | boolean> = {}) =>
      app.api(method, route, { headers: { ...users.author.headers, 'If-Match': ifMatch }, json: method === 'POST' ? { title: `Conditional ${ifMatch}` } : undefined, query });

    expect((await send('POST', `W/${etag}`)).status).toBe(412);
    expect((await send('POST', '"0", "999"')).status).toBe(412);
    const listed = await send('POST', `"0", ${etag}`);
    expect(listed.status).toBe(200);
    const current = listed.headers.get('etag')!;
    expect((await send('POST', '*')).status).toBe(200);
    expect((await send('DELETE', current, { force: true })).status).toBe(412);
    const fresh = (await app.api('GET', route, { headers: users.author.headers })).headers.get('etag')!;
    const events = await changeLog(app.deps.store.db).countStream(post.id);
    expect((await send('DELETE', `W/${fresh}`)).status).toBe(412);
    expect(await changeLog(app.deps.store.db).countStream(post.id)).toBe(events);
    expect((await send('DELETE', fresh, { force: true })).status).toBe(200);
  });

  it('lets only those who may edit the post update it', async () => {
    const post = (await create(users.author.headers, { title: 'Theirs', status: 'publish' })).body;
    const denied = await app.api('POST', `/cms/v2/posts/${post.id}`, { headers: users.contributor.headers, json: { title: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('rest_cannot_edit');
    expect((await app.api('POST', `/cms/v2/posts/${post.id}`, { headers: users.editor.headers, json: { title: 'Edited' } })).status).toBe(200);
  });
});

describe('deleting posts', () => {
  it('trashes, refuses to trash twice, restores by status, and deletes for good with force', async () => {
    const post = (await create(users.author.headers, { title: 'Doomed', status: 'publish' })).body;
    const route = `/cms/v2/posts/${post.id}`;
    const trashed = await app.api('DELETE', route, { headers: users.author.headers });
    expect(trashed.status).toBe(200);
    expect(trashed.body).toMatchObject({ status: 'trash', slug: 'doomed__trashed' });
    const again = await app.api('DELETE', route, { headers: users.author.headers });
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('rest_already_trashed');
    const untrashed = await app.api('POST', route, { headers: users.author.headers, json: { status: 'draft' } });
    expect(untrashed.body).toMatchObject({ status: 'draft', slug: 'doomed' });
    const denied = await app.api('DELETE', route, { headers: users.contributor.headers, query: { force: true } });
    expect(denied.body.code).toBe('rest_cannot_delete');
    const deleted = await app.api('DELETE', route, { headers: users.author.headers, query: { force: true } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id: post.id, title: { raw: 'Doomed' } } });
    expect((await app.api('GET', route, { headers: users.author.headers })).status).toBe(404);
  });
});

describe('pages', () => {
  it('have parents, menu order and their own slugs', async () => {
    const parent = await create(users.editor.headers, { title: 'About', status: 'publish' }, 'pages');
    expect(parent.status).toBe(201);
    expect(parent.body.link).toBe(`${app.siteUrl}/?page_id=${parent.body.id}`);
    const child = await create(users.editor.headers, { title: 'Team', status: 'publish', parent: parent.body.id, menu_order: 3 }, 'pages');
    expect(child.body).toMatchObject({ parent: parent.body.id, menu_order: 3 });
    expect(child.body.categories).toBeUndefined();
    expect(child.body._links.up[0].href).toBe(`${app.apiRoot}/cms/v2/pages/${parent.body.id}`);
    const children = await app.api('GET', '/cms/v2/pages', { query: { parent: parent.body.id } });
    expect(children.body.map((page: any) => page.id)).toEqual([child.body.id]);
    const badParent = await create(users.editor.headers, { title: 'Orphan', parent: 99999999 }, 'pages');
    expect(badParent.body.code).toBe('rest_post_invalid_id');
    expect((await create(users.author.headers, { title: 'Nope' }, 'pages')).status).toBe(403);
  });
});
