import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/resources/index.js';
import { projectionsOf } from '../../src/resources/manifest.js';
import { postsCollection } from '../../src/resources/posts/post.model.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { rebuildProjections } from '../../src/store/projections/projections.js';
import { basic, createTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.stop();
});

/** Publishes an item as `user`, through the API (its events and projections as any client makes them). */
async function publishAs(user: { headers: Record<string, string> }, route = '/cms/v2/posts', title = 'Published'): Promise<number> {
  const response = await app.api('POST', route, { headers: user.headers, json: { title, content: `<p>${title} content</p>`, status: 'publish' } });
  expect(response.status).toBe(201);
  return response.body.id as number;
}

/** The items' read models after start-up healing on the same database, and after a full rebuild. */
async function afterHealingAndRebuild(ids: number[]): Promise<{ healed: unknown[]; rebuilt: unknown[] }> {
  const posts = () => postsCollection(app.deps.store.db).find({ _id: { $in: ids } }).sort({ _id: 1 }).toArray();
  for (const resource of resources) await resource.seed?.(app.deps);
  const healed = await posts();
  await rebuildProjections(app.deps.store.db, changeLog(app.deps.store.db), projectionsOf(resources));
  return { healed, rebuilt: await posts() };
}

describe('the first administrator', () => {
  it('exists from CMS_ADMIN_USER and CMS_ADMIN_PASSWORD and can use the API', async () => {
    const me = await app.api('GET', '/cms/v2/users/me', { headers: app.admin, query: { context: 'edit' } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: 1, username: 'admin', roles: ['administrator'] });
    expect(me.body.capabilities).toMatchObject({ manage_options: true, administrator: true });
    expect(me.body.password).toBeUndefined();
  });
});

describe('GET /users', () => {
  it('shows anonymous callers only users with published posts, without private fields', async () => {
    const author = await app.asRole('author', { name: 'Published Author' });
    const quiet = await app.asRole('author', { name: 'Quiet Author' });
    await publishAs(author);
    const { status, body, headers } = await app.api('GET', '/cms/v2/users');
    expect(status).toBe(200);
    const ids = body.map((user: any) => user.id);
    expect(ids).toContain(author.id);
    expect(ids).not.toContain(quiet.id);
    expect(body[0].email).toBeUndefined();
    expect(body[0].username).toBeUndefined();
    expect(Object.keys(body.find((user: any) => user.id === author.id)).sort()).toEqual(
      ['_links', 'avatar_urls', 'description', 'id', 'link', 'meta', 'name', 'slug', 'url'].sort(),
    );
    expect(headers.get('x-wp-total')).toBe(String(body.length));
  });

  it('shows everyone to administrators, ordered by name by default', async () => {
    const { body } = await app.api('GET', '/cms/v2/users', { headers: app.admin, query: { per_page: 100 } });
    const names = body.map((user: any) => user.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(names).toContain('Quiet Author');
  });

  it('refuses edit context, role filters and private orderings to those who cannot list users', async () => {
    const editor = await app.asRole('editor');
    for (const [query, code] of [
      [{ context: 'edit' }, 'rest_forbidden_context'],
      [{ roles: 'author' }, 'rest_user_cannot_view'],
      [{ orderby: 'email' }, 'rest_forbidden_orderby'],
    ] as const) {
      const anonymous = await app.api('GET', '/cms/v2/users', { query });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe(code);
      const denied = await app.api('GET', '/cms/v2/users', { query, headers: editor.headers });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe(code);
    }
    const who = await app.api('GET', '/cms/v2/users', { query: { who: 'authors' } });
    expect(who.status).toBe(401);
    expect(who.body.code).toBe('rest_forbidden_who');
  });

  it('filters by role, search, include and slug for administrators', async () => {
    const contributor = await app.asRole('contributor', { name: 'Zed Contributor' });
    const byRole = await app.api('GET', '/cms/v2/users', { headers: app.admin, query: { roles: 'contributor', context: 'edit' } });
    expect(byRole.body.every((user: any) => user.roles.includes('contributor'))).toBe(true);
    expect(byRole.body.map((user: any) => user.id)).toContain(contributor.id);
    const search = await app.api('GET', '/cms/v2/users', { headers: app.admin, query: { search: 'Zed Contr' } });
    expect(search.body.map((user: any) => user.id)).toEqual([contributor.id]);
    const bySlug = await app.api('GET', '/cms/v2/users', { headers: app.admin, query: { slug: contributor.username.toLowerCase() } });
    expect(bySlug.body.map((user: any) => user.id)).toEqual([contributor.id]);
    const include = await app.api('GET', '/cms/v2/users', { headers: app.admin, query: { include: `${contributor.id},1`, orderby: 'include' } });
    expect(include.body.map((user: any) => user.id)).toEqual([contributor.id, 1]);
  });

  it('answers a page past the last with an empty list', async () => {
    const { status, body, headers } = await app.api('GET', '/cms/v2/users', { headers: app.admin, query: { page: 50 } });
    expect(status).toBe(200);
    expect(body).toEqual([]);
    expect(Number(headers.get('x-wp-total'))).toBeGreaterThan(0);
  });
});

describe('GET /users/<id> and /users/me', () => {
  it('hides users without published posts from those who cannot list users', async () => {
    const quiet = await app.asRole('subscriber');
    const anonymous = await app.api('GET', `/cms/v2/users/${quiet.id}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ code: 'rest_user_cannot_view', message: 'Sorry, you are not allowed to list users.', data: { status: 401 } });
    const self = await app.api('GET', `/cms/v2/users/${quiet.id}`, { headers: quiet.headers, query: { context: 'edit' } });
    expect(self.status).toBe(200);
    expect(self.body.email).toBe(`${quiet.username}@example.test`);
    const admin = await app.api('GET', `/cms/v2/users/${quiet.id}`, { headers: app.admin });
    expect(admin.status).toBe(200);
  });

  it('takes /users/me for the caller whatever id the body names, an object included', async () => {
    const self = await app.asRole('subscriber');
    for (const id of [{ raw: 1 }, 1, 'me']) {
      const updated = await app.api('POST', '/cms/v2/users/me', { headers: self.headers, json: { id, name: `Named ${typeof id}` } });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      expect(updated.body.id).toBe(self.id);
    }
  });

  it('answers unknown ids and anonymous /me as WordPress does', async () => {
    const unknown = await app.api('GET', '/cms/v2/users/999999', { headers: app.admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('rest_user_invalid_id');
    const me = await app.api('GET', '/cms/v2/users/me');
    expect(me.status).toBe(401);
    expect(me.body).toEqual({ code: 'rest_not_logged_in', message: 'You are not currently logged in.', data: { status: 401 } });
  });
});

describe('POST /users', () => {
  it('creates a user for an administrator, with 201, Location and edit context', async () => {
    const response = await app.api('POST', '/cms/v2/users', {
      headers: app.admin,
      json: { username: 'newcomer', email: 'Newcomer@Example.test', password: 'secret-1', roles: ['editor'], name: 'New Comer' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${app.apiRoot}/cms/v2/users/${response.body.id}`);
    expect(response.body).toMatchObject({ username: 'newcomer', email: 'newcomer@example.test', roles: ['editor'], name: 'New Comer', slug: 'newcomer' });
    expect(response.body.password).toBeUndefined();
    const login = await app.api('GET', '/cms/v2/users/me', { headers: basic('newcomer', 'secret-1') });
    expect(login.body.id).toBe(response.body.id);
  });

  it('gives the default role when none is asked for', async () => {
    const response = await app.api('POST', '/cms/v2/users', { headers: app.admin, json: { username: 'plain', email: 'plain@example.test', password: 'x' } });
    expect(response.body.roles).toEqual(['subscriber']);
  });

  it('refuses bad input with WordPress codes', async () => {
    const missing = await app.api('POST', '/cms/v2/users', { headers: app.admin, json: { username: 'a' } });
    expect(missing.body).toMatchObject({ code: 'rest_missing_callback_param', data: { params: ['email', 'password'] } });
    const bad = await app.api('POST', '/cms/v2/users', {
      headers: app.admin,
      json: { username: 'bad<name>', email: 'nope', password: 'with\\slash' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.data.details.username.code).toBe('rest_user_invalid_username');
    expect(bad.body.data.details.email.code).toBe('rest_invalid_email');
    expect(bad.body.data.details.password.code).toBe('rest_user_invalid_password');
    const role = await app.api('POST', '/cms/v2/users', { headers: app.admin, json: { username: 'r', email: 'r@example.test', password: 'x', roles: ['wizard'] } });
    expect(role.status).toBe(400);
    expect(role.body).toMatchObject({ code: 'rest_user_invalid_role', message: 'The role wizard does not exist.' });
    const taken = await app.api('POST', '/cms/v2/users', { headers: app.admin, json: { username: 'admin', email: 'other@example.test', password: 'x' } });
    expect(taken.status).toBe(400);
    expect(taken.body.code).toBe('existing_user_login');
    const email = await app.api('POST', '/cms/v2/users', { headers: app.admin, json: { username: 'other', email: 'newcomer@example.test', password: 'x' } });
    expect(email.status).toBe(400);
    expect(email.body.code).toBe('existing_user_email');
    const exists = await app.api('POST', '/cms/v2/users', { headers: app.admin, json: { id: 5, username: 'o2', email: 'o2@example.test', password: 'x' } });
    expect(exists.body.code).toBe('rest_user_exists');
  });

  it('refuses users who may not create users', async () => {
    const editor = await app.asRole('editor');
    const body = { username: 'nope', email: 'nope@example.test', password: 'x' };
    const anonymous = await app.api('POST', '/cms/v2/users', { json: body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_cannot_create_user');
    const denied = await app.api('POST', '/cms/v2/users', { json: body, headers: editor.headers });
    expect(denied.status).toBe(403);
  });
});

describe('updating users', () => {
  it('lets users edit themselves but not their roles or others', async () => {
    const author = await app.asRole('author');
    const other = await app.asRole('author');
    const self = await app.api('POST', '/cms/v2/users/me', { headers: author.headers, json: { name: 'Renamed', description: 'bio' } });
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ name: 'Renamed', description: 'bio', email: `${author.username}@example.test` });
    const roles = await app.api('PUT', `/cms/v2/users/${author.id}`, { headers: author.headers, json: { roles: ['administrator'] } });
    expect(roles.status).toBe(403);
    expect(roles.body.code).toBe('rest_cannot_edit_roles');
    const others = await app.api('PATCH', `/cms/v2/users/${other.id}`, { headers: author.headers, json: { name: 'x' } });
    expect(others.status).toBe(403);
    expect(others.body.code).toBe('rest_cannot_edit');
  });

  it('refuses a username change, a taken email or slug, and self-demotion', async () => {
    const user = await app.asRole('subscriber');
    const rename = await app.api('POST', `/cms/v2/users/${user.id}`, { headers: app.admin, json: { username: 'someone-else' } });
    expect(rename.body).toMatchObject({ code: 'rest_user_invalid_argument', data: { status: 400 } });
    const email = await app.api('POST', `/cms/v2/users/${user.id}`, { headers: app.admin, json: { email: 'admin@localhost.localdomain' } });
    expect(email.body.code).toBe('rest_user_invalid_email');
    const slug = await app.api('POST', `/cms/v2/users/${user.id}`, { headers: app.admin, json: { slug: 'admin' } });
    expect(slug.body.code).toBe('rest_user_invalid_slug');
    const demote = await app.api('POST', '/cms/v2/users/1', { headers: app.admin, json: { roles: ['editor'] } });
    expect(demote.status).toBe(403);
    expect(demote.body.code).toBe('rest_user_invalid_role');
    const promote = await app.api('POST', `/cms/v2/users/${user.id}`, { headers: app.admin, json: { roles: ['author'] } });
    expect(promote.body.roles).toEqual(['author']);
  });

  it('takes a new password at once, and the old one stops working', async () => {
    const user = await app.asRole('subscriber');
    expect((await app.api('GET', '/cms/v2/users/me', { headers: user.headers })).status).toBe(200);
    await app.api('POST', '/cms/v2/users/me', { headers: user.headers, json: { password: 'brand-new' } });
    const old = await app.api('GET', '/cms/v2/users/me', { headers: user.headers });
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('incorrect_password');
    const fresh = await app.api('GET', '/cms/v2/users/me', { headers: basic(user.username, 'brand-new') });
    expect(fresh.status).toBe(200);
  });
});

describe('DELETE /users/<id>', () => {
  it('needs reassign, then delete_users, then force', async () => {
    const victim = await app.asRole('author');
    const editor = await app.asRole('editor');
    const missing = await app.api('DELETE', `/cms/v2/users/${victim.id}`, { query: { force: true } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'rest_missing_callback_param', data: { params: ['reassign'] } });
    const denied = await app.api('DELETE', `/cms/v2/users/${victim.id}`, { headers: editor.headers, query: { force: true, reassign: 1 } });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('rest_user_cannot_delete');
    const trash = await app.api('DELETE', `/cms/v2/users/${victim.id}`, { headers: app.admin, query: { reassign: 1 } });
    expect(trash.status).toBe(501);
    expect(trash.body.message).toBe("Users do not support trashing. Set 'force=true' to delete.");
    const self = await app.api('DELETE', `/cms/v2/users/${victim.id}`, { headers: app.admin, query: { force: true, reassign: victim.id } });
    expect(self.body.code).toBe('rest_user_invalid_reassign');
  });

  it('deletes, giving the posts to the reassigned user through an updated event each, which healing and a rebuild keep', async () => {
    const victim = await app.asRole('editor');
    const heir = await app.asRole('editor');
    const ids = [await publishAs(victim), await publishAs(victim, '/cms/v2/pages')];
    const response = await app.api('DELETE', `/cms/v2/users/${victim.id}`, { headers: app.admin, query: { force: true, reassign: heir.id } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ deleted: true, previous: { id: victim.id, username: victim.username } });
    expect(response.body.previous._links).toBeUndefined();
    expect((await app.api('GET', `/cms/v2/users/${victim.id}`, { headers: app.admin })).status).toBe(404);
    for (const [index, id] of ids.entries()) {
      const item = await app.api('GET', `/cms/v2/${index ? 'pages' : 'posts'}/${id}`, { query: { _fields: 'author,status,title' } });
      expect(item.body).toMatchObject({ author: heir.id, status: 'publish', title: { rendered: 'Published' } });
      const events = await changeLog(app.deps.store.db).readStream(id);
      expect(events.at(-1)).toMatchObject({ type: 'updated', actor: 1, data: { changes: { author: heir.id } } });
    }
    const { healed, rebuilt } = await afterHealingAndRebuild(ids);
    expect(healed.map((doc: any) => doc.author)).toEqual([heir.id, heir.id]);
    expect(rebuilt).toEqual(healed);
    const login = await app.api('GET', '/cms/v2/users/me', { headers: victim.headers });
    expect(login.status).toBe(401);
    expect(login.body.code).toBe('invalid_username');
  });

  it('accepts reassign=false to delete the posts for good with the user: deleted events, content erased, gone after healing and a rebuild', async () => {
    const victim = await app.asRole('editor');
    const ids = [await publishAs(victim, '/cms/v2/posts', 'Doomed post'), await publishAs(victim, '/cms/v2/pages', 'Doomed page')];
    const kept = await publishAs(await app.asRole('author'), '/cms/v2/posts', 'Kept');
    const uncategorized = async () => (await app.api('GET', '/cms/v2/categories/1')).body.count as number;
    const counted = await uncategorized();
    const response = await app.api('DELETE', `/cms/v2/users/${victim.id}`, { headers: app.admin, query: { force: true, reassign: 'false' } });
    expect(response.status).toBe(200);
    expect(await uncategorized()).toBe(counted - 1);
    for (const [index, id] of ids.entries()) {
      expect((await app.api('GET', `/cms/v2/${index ? 'pages' : 'posts'}/${id}`, { headers: app.admin })).status).toBe(404);
      const events = await changeLog(app.deps.store.db).readStream<{ fields?: { title: string } }>(id);
      expect(events.at(-1)).toMatchObject({ type: 'deleted', actor: 1 });
      expect(events[0].data.fields!.title).toBe('');
      expect(events[0].redacted).toContain('title');
    }
    const { healed, rebuilt } = await afterHealingAndRebuild([...ids, kept]);
    expect(healed.map((doc: any) => doc._id)).toEqual([kept]);
    expect(rebuilt).toEqual(healed);
  });
});
