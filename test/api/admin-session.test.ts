import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteChanges } from '../../src/store/coordination/site-changes.js';
import { ADMIN_PASSWORD, createTestApp, startServiceOn, type ApiResponse, type TestApp } from '../support/test-app.js';

// The admin page's sign-in: a server-side session in a cookie, and WordPress's REST nonce for
// every API request the cookie authenticates (`rest_cookie_check_errors`).

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
let app: TestApp;
/** How far the service's clock is ahead of the real one. */
let ahead = 0;

beforeAll(async () => {
  app = await createTestApp({ clock: () => new Date(Date.now() + ahead), env: { CMS_TRUSTED_PROXIES: 'loopback', CMS_LOGIN_MAX_FAILURES: '3' } });
});
afterAll(async () => {
  await app?.stop();
});

/** The `name=value` of the session cookie an answer sets. */
function sessionCookie(response: ApiResponse): string {
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('cms_session='));
  expect(cookie, 'a session cookie').toBeDefined();
  return cookie!.split(';')[0];
}

async function signIn(username = 'admin', password = ADMIN_PASSWORD, extra: Record<string, unknown> = {}) {
  const response = await app.site('POST', '/cms-admin/session', { json: { username, password, ...extra } });
  expect(response.status, response.text).toBe(200);
  return { cookie: sessionCookie(response), nonce: response.body.nonce as string, response };
}

describe('signing in, POST /cms-admin/session', () => {
  it('answers the user and a nonce, and sets an HttpOnly, SameSite=Strict cookie that lasts while the browser is open', async () => {
    const before = Date.now() + ahead;
    const { response, nonce } = await signIn();
    expect(response.body).toEqual({ user: { id: 1, name: 'admin', slug: 'admin' }, nonce });
    expect(nonce).toMatch(/^[0-9a-f]{10}$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const [line] = response.headers.getSetCookie();
    const flags = line.split(';').map((part) => part.trim());
    expect(flags[0]).toMatch(/^cms_session=[\w-]{43}$/);
    expect(flags).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Strict']));
    expect(flags).not.toContain('Secure');
    // Without "remember", as WordPress's `wp_set_auth_cookie`: a browser-session cookie, so that
    // closing the browser (a shared computer's) signs out; the session itself ends in two days.
    expect(flags.filter((flag) => /^(expires|max-age)=/i.test(flag))).toEqual([]);
    const [stored] = await app.deps.store.db.collection('sessions').find({}).sort({ created: -1 }).limit(1).toArray();
    expect(stored.expires.getTime()).toBeGreaterThanOrEqual(before + 2 * DAY);
    expect(stored.expires.getTime()).toBeLessThan(before + 2 * DAY + 60_000);
  });

  it('keeps a session fourteen days with "remember", and sets a Secure cookie over https through a trusted proxy', async () => {
    const before = Date.now() + ahead;
    const response = await app.site('POST', '/cms-admin/session', {
      json: { username: 'admin', password: ADMIN_PASSWORD, remember: true },
      headers: { 'X-Forwarded-Proto': 'https' },
    });
    const flags = response.headers.getSetCookie()[0].split(';').map((part) => part.trim());
    expect(flags).toContain('Secure');
    const expires = Date.parse(flags.find((flag) => flag.startsWith('Expires='))!.slice('Expires='.length));
    expect(expires).toBeGreaterThan(before + 14 * DAY - 60_000);
  });

  it('accepts the email address, stores only a digest of the token, and signs in on every process', async () => {
    const user = await app.asRole('editor');
    const { cookie, nonce } = await signIn(`${user.username}@example.test`, user.password);
    const token = cookie.split('=')[1];
    const stored = await app.deps.store.db.collection('sessions').find({ user: user.id }).toArray();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);

    const other = await startServiceOn(app.databaseName);
    try {
      const me = await fetch(`${other.siteUrl}/cms-json/cms/v2/users/me`, { headers: { Cookie: cookie, 'X-WP-Nonce': nonce } });
      expect(me.status).toBe(200);
      expect((await me.json()).id).toBe(user.id);
    } finally {
      await other.stop();
    }
  });

  it("answers a wrong login as HTTP Basic does, and sets no cookie; an application password is not the account's", async () => {
    const user = await app.asRole('author');
    const created = await app.api('POST', '/cms/v2/users/me/application-passwords', { headers: user.headers, json: { name: 'Tool' } });
    const cases = [
      ['nobody-here', 'x', 'invalid_username'],
      ['nobody@example.test', 'x', 'invalid_email'],
      [user.username, 'wrong', 'incorrect_password'],
      [user.username, created.body.password, 'incorrect_password'],
    ] as const;
    for (const [username, password, code] of cases) {
      const response = await app.site('POST', '/cms-admin/session', { json: { username, password } });
      expect(response.status, code).toBe(401);
      expect(response.body).toMatchObject({ code, data: { status: 401 } });
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });

  it('is counted by the login throttle as HTTP Basic is: a refused address gets 429 with Retry-After', async () => {
    const user = await app.asRole('author');
    for (let i = 0; i < 3; i++) {
      expect((await app.site('POST', '/cms-admin/session', { json: { username: user.username, password: 'wrong' } })).status).toBe(401);
    }
    const refused = await app.site('POST', '/cms-admin/session', { json: { username: user.username, password: user.password } });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('too_many_login_attempts');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The failures here and over Basic are one count.
    expect((await app.api('GET', '/cms/v2/users/me', { headers: user.headers })).status).toBe(429);
  });
});

describe('GET /cms-admin/session', () => {
  it('answers the signed-in user with a fresh nonce, 204 to a browser holding no session, and 401 cms_not_signed_in to a cookie naming none', async () => {
    const { cookie } = await signIn();
    const current = await app.site('GET', '/cms-admin/session', { headers: { Cookie: cookie } });
    expect(current.status).toBe(200);
    expect(current.body.user.id).toBe(1);
    expect(current.headers.get('cache-control')).toBe('no-store');
    const nonce = await app.site('GET', '/cms-admin/session/nonce', { headers: { Cookie: cookie } });
    expect(nonce.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: cookie, 'X-WP-Nonce': nonce.text } })).body.id).toBe(1);
    // Nobody signed in is what the page asks about before sign-in: an answer, not an error.
    const nobody = await app.site('GET', '/cms-admin/session', { headers: { Cookie: 'other=1' } });
    expect(nobody.status).toBe(204);
    expect(nobody.text).toBe('');
    expect(nobody.headers.get('cache-control')).toBe('no-store');
    for (const headers of [{}, { Cookie: 'cms_session=not-a-session' } as Record<string, string>, { Cookie: `cms_session=${'A'.repeat(43)}` }]) {
      for (const route of ['/cms-admin/session', '/cms-admin/session/nonce']) {
        if (route === '/cms-admin/session' && !headers.Cookie) continue;
        const anonymous = await app.site('GET', route, { headers });
        expect(anonymous.status).toBe(401);
        expect(anonymous.body).toEqual({ code: 'cms_not_signed_in', message: 'You are not signed in.', data: { status: 401 } });
      }
    }
  });
});

describe('the API with a session cookie', () => {
  it('authenticates with the nonce in X-WP-Nonce or _wpnonce, answering a fresh nonce; at /cms-json/ and ?rest_route= alike', async () => {
    const { cookie, nonce } = await signIn();
    const viaHeader = await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: cookie, 'X-WP-Nonce': nonce } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.id).toBe(1);
    const fresh = viaHeader.headers.get('x-wp-nonce')!;
    expect(fresh).toMatch(/^[0-9a-f]{10}$/);
    expect(viaHeader.headers.get('cache-control')).toContain('no-store');
    const viaQuery = await app.site('GET', '/', { query: { rest_route: '/cms/v2/users/me', _wpnonce: fresh }, headers: { Cookie: cookie } });
    expect(viaQuery.body.id).toBe(1);
    const write = await app.api('POST', '/cms/v2/posts', { headers: { Cookie: cookie }, json: { title: 'Signed in', _wpnonce: nonce } });
    expect(write.status).toBe(201);
    expect(write.body.author).toBe(1);
  });

  it('ignores the cookie without a nonce, and refuses a wrong nonce with 403 rest_cookie_invalid_nonce', async () => {
    const { cookie, nonce } = await signIn();
    const ignored = await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: cookie } });
    expect(ignored.status).toBe(401);
    expect(ignored.body.code).toBe('rest_not_logged_in');
    expect(ignored.headers.get('x-wp-nonce')).toBeNull();
    const other = await signIn();
    for (const headers of [{ 'X-WP-Nonce': other.nonce }, { 'X-WP-Nonce': '' }, { 'X-WP-Nonce': nonce.toUpperCase() }]) {
      const refused = await app.api('GET', '/cms/v2/posts', { headers: { Cookie: cookie, ...headers } });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: 'rest_cookie_invalid_nonce', message: 'Cookie check failed', data: { status: 403 } });
    }
    const listed = await app.api('GET', '/cms/v2/posts', { headers: { Cookie: cookie }, query: { '_wpnonce[]': nonce } });
    expect(listed.status).toBe(403);
  });

  it('takes a write with the cookie but no nonce as anonymous however it is sent: _method, X-HTTP-Method-Override, ?rest_route=, a form, a batch', async () => {
    const { cookie } = await signIn();
    const post = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Kept', status: 'publish' } });
    const path = `/cms/v2/posts/${post.body.id}`;
    const attempts = [
      await app.api('POST', path, { headers: { Cookie: cookie }, query: { _method: 'DELETE' } }),
      await app.api('POST', path, { headers: { Cookie: cookie, 'X-HTTP-Method-Override': 'DELETE' } }),
      await app.site('POST', '/', { query: { rest_route: path }, headers: { Cookie: cookie }, form: { title: 'Forged' } }),
      await app.site('POST', '/cms-admin/', { query: { rest_route: path }, headers: { Cookie: cookie }, form: { title: 'Forged' } }),
    ];
    expect(attempts.map((response) => response.status)).toEqual([401, 401, 401, 401]);
    const batch = await app.api('POST', '/batch/v1', {
      headers: { Cookie: cookie },
      json: { requests: [{ method: 'POST', path, body: { title: 'Forged' }, headers: { Cookie: cookie } }] },
    });
    expect(batch.body.responses.map((response: { status: number }) => response.status)).toEqual([401]);
    const kept = await app.api('GET', path, { headers: app.admin, query: { context: 'edit' } });
    expect([kept.body.title.raw, kept.body.status]).toEqual(['Kept', 'publish']);
  });

  it('never takes a cookie set before the sign-in as its session, and never logs the token (nor a Basic password)', async () => {
    const planted = 'p'.repeat(43);
    const response = await app.site('POST', '/cms-admin/session', { json: { username: 'admin', password: ADMIN_PASSWORD }, headers: { Cookie: `cms_session=${planted}` } });
    const cookie = sessionCookie(response);
    expect(cookie).not.toBe(`cms_session=${planted}`);
    expect((await app.site('GET', '/cms-admin/session', { headers: { Cookie: `cms_session=${planted}` } })).status).toBe(401);
    expect((await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: cookie }, query: { _wpnonce: response.body.nonce } })).status).toBe(200);
    const logged = JSON.stringify(app.logs);
    expect(logged).not.toContain(cookie.split('=')[1]);
    expect(logged).not.toContain(planted);
    expect(logged).not.toContain(app.admin.Authorization.slice('Basic '.length));
  });

  it('lets HTTP Basic take precedence over the cookie', async () => {
    const { cookie } = await signIn();
    const user = await app.asRole('author');
    const me = await app.api('GET', '/cms/v2/users/me', { headers: { ...user.headers, Cookie: cookie, 'X-WP-Nonce': 'wrong' } });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
  });

  it('is never answered from or kept in the anonymous response cache', async () => {
    const { cookie, nonce } = await signIn();
    const route = '/cms/v2/users';
    const anonymous = await app.api('GET', route);
    expect(anonymous.headers.get('etag')).not.toBeNull();
    const signedIn = await app.api('GET', route, { headers: { Cookie: cookie, 'X-WP-Nonce': nonce } });
    expect(signedIn.headers.get('etag')).toBeNull();
    expect(signedIn.body.map((user: { id: number }) => user.id)).toContain(1);
    const again = await app.api('GET', route);
    expect(again.body).toEqual(anonymous.body);
  });
});

describe('the end of a session', () => {
  it('signs out with the nonce: 204, the cookie cleared, and the old cookie no longer works anywhere', async () => {
    const { cookie, nonce } = await signIn();
    const withoutNonce = await app.site('DELETE', '/cms-admin/session', { headers: { Cookie: cookie } });
    expect(withoutNonce.status).toBe(403);
    expect(withoutNonce.body.code).toBe('rest_cookie_invalid_nonce');

    const signedOut = await app.site('DELETE', '/cms-admin/session', { headers: { Cookie: cookie, 'X-WP-Nonce': nonce } });
    expect(signedOut.status).toBe(204);
    expect(signedOut.text).toBe('');
    const cleared = signedOut.headers.getSetCookie()[0];
    expect(cleared).toMatch(/^cms_session=;/);
    expect(cleared).toContain('Expires=Thu, 01 Jan 1970');

    expect((await app.site('GET', '/cms-admin/session', { headers: { Cookie: cookie } })).status).toBe(401);
    expect((await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: cookie, 'X-WP-Nonce': nonce } })).status).toBe(403);
    expect((await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: cookie } })).body.code).toBe('rest_not_logged_in');
    const again = await app.site('DELETE', '/cms-admin/session', { headers: { Cookie: cookie, 'X-WP-Nonce': nonce } });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('cms_not_signed_in');
  });

  it('ends a session at its expiry, and a nonce after its two ticks', async () => {
    const short = await signIn();
    const remembered = await signIn('admin', ADMIN_PASSWORD, { remember: true });
    try {
      // A nonce is good in its twelve-hour tick and the next: for at least 12 hours and at most 24, whatever the hour it was made.
      ahead = 12 * HOUR - 60_000;
      expect((await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: short.cookie, 'X-WP-Nonce': short.nonce } })).status).toBe(200);
      ahead = 25 * HOUR;
      const stale = await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: short.cookie, 'X-WP-Nonce': short.nonce } });
      expect(stale.status).toBe(403);
      const renewed = await app.site('GET', '/cms-admin/session', { headers: { Cookie: short.cookie } });
      expect((await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: short.cookie, 'X-WP-Nonce': renewed.body.nonce } })).status).toBe(200);

      // Each expiry is checked on a session this process just read, then on one read anew.
      const expired = async (cookie: string) => {
        expect((await app.site('GET', '/cms-admin/session', { headers: { Cookie: cookie } })).status).toBe(401);
        await siteChanges(app.deps.store.db).changed();
        expect((await app.site('GET', '/cms-admin/session', { headers: { Cookie: cookie } })).status).toBe(401);
      };
      expect((await app.site('GET', '/cms-admin/session', { headers: { Cookie: remembered.cookie } })).status).toBe(200);
      ahead = 2 * DAY + 60_000;
      await expired(short.cookie);
      expect((await app.site('GET', '/cms-admin/session', { headers: { Cookie: remembered.cookie } })).status).toBe(200);
      ahead = 14 * DAY + 60_000;
      await expired(remembered.cookie);
      // A sign-in deletes sessions that expired.
      await signIn();
      await expect.poll(() => app.deps.store.db.collection('sessions').countDocuments({ expires: { $lte: new Date(Date.now() + ahead) } })).toBe(0);
    } finally {
      ahead = 0;
    }
  });

  it("ends a user's sessions when their password changes or they are deleted", async () => {
    const changing = await app.asRole('editor');
    const session = await signIn(changing.username, changing.password);
    await app.api('POST', `/cms/v2/users/${changing.id}`, { headers: app.admin, json: { password: 'a-new-password' } });
    expect(await app.deps.store.db.collection('sessions').countDocuments({ user: changing.id })).toBe(0);
    expect((await app.site('GET', '/cms-admin/session', { headers: { Cookie: session.cookie } })).status).toBe(401);

    const leaving = await app.asRole('editor');
    const last = await signIn(leaving.username, leaving.password);
    const deleted = await app.api('DELETE', `/cms/v2/users/${leaving.id}`, { headers: app.admin, query: { force: true, reassign: 1 } });
    expect(deleted.status).toBe(200);
    expect(await app.deps.store.db.collection('sessions').countDocuments({ user: leaving.id })).toBe(0);
    expect((await app.site('GET', '/cms-admin/session', { headers: { Cookie: last.cookie } })).status).toBe(401);
    expect((await app.api('GET', '/cms/v2/users/me', { headers: { Cookie: last.cookie, 'X-WP-Nonce': last.nonce } })).status).toBe(403);
  });

  it('ends sessions whose password was changed behind the service (the session is bound to the password)', async () => {
    const user = await app.asRole('editor');
    const session = await signIn(user.username, user.password);
    await app.deps.store.db.collection<{ _id: number }>('users').updateOne({ _id: user.id }, { $set: { passwordHash: 'scrypt$changed' } });
    // As a script's write would be announced: the process forgets what it read.
    await siteChanges(app.deps.store.db).changed();
    expect((await app.site('GET', '/cms-admin/session', { headers: { Cookie: session.cookie } })).status).toBe(401);
  });
});
