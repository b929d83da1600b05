import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('HTTP Basic', () => {
  it('runs requests without credentials as anonymous', async () => {
    const me = await app.api('GET', '/cms/v2/users/me');
    expect(me.body.code).toBe('rest_not_logged_in');
  });

  it('accepts the account password with the username or the email', async () => {
    const user = await app.asRole('author');
    expect((await app.api('GET', '/cms/v2/users/me', { headers: user.headers })).body.id).toBe(user.id);
    const byEmail = await app.api('GET', '/cms/v2/users/me', { headers: basic(`${user.username}@example.test`, user.password) });
    expect(byEmail.body.id).toBe(user.id);
  });

  it('answers wrong credentials with 401 on every route, public ones included', async () => {
    const user = await app.asRole('author');
    const cases = [
      [basic('nobody-here', 'x'), 'invalid_username'],
      [basic('nobody@example.test', 'x'), 'invalid_email'],
      [basic(user.username, 'wrong'), 'incorrect_password'],
    ] as const;
    for (const [headers, code] of cases) {
      for (const route of ['/', '/cms/v2/users/me']) {
        const response = await app.api('GET', route, { headers });
        expect(response.status, `${code} on ${route}`).toBe(401);
        expect(response.body.code).toBe(code);
      }
    }
  });
});

describe('application passwords', () => {
  it('live from creation to deletion, and authenticate in the meantime', async () => {
    const user = await app.asRole('editor');
    const route = `/cms/v2/users/${user.id}/application-passwords`;
    const create = await app.api('POST', '/cms/v2/users/me/application-passwords', { headers: user.headers, json: { name: 'Publisher' } });
    expect(create.status).toBe(201);
    const { uuid, password } = create.body;
    expect(create.headers.get('location')).toBe(`${app.apiRoot}${route}/${uuid}`);
    expect(password).toMatch(/^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/);
    expect(create.body).toMatchObject({ name: 'Publisher', app_id: '', last_used: null, last_ip: null });
    expect(create.body.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);

    const list = await app.api('GET', route, { headers: user.headers });
    expect(list.body).toHaveLength(1);
    expect(list.body[0].password).toBeUndefined();
    expect(list.body[0]._links.self[0].href).toBe(`${app.apiRoot}${route}/${uuid}`);

    for (const form of [password, password.replace(/ /g, '')]) {
      const me = await app.api('GET', '/cms/v2/users/me', { headers: basic(user.username, form) });
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(user.id);
    }
    const used = await app.api('GET', `${route}/${uuid}`, { headers: user.headers });
    expect(used.body.last_used).toMatch(/^\d{4}-/);
    expect(used.body.last_ip).toMatch(/127\.0\.0\.1/);

    const introspect = await app.api('GET', '/cms/v2/users/me/application-passwords/introspect', { headers: basic(user.username, password) });
    expect(introspect.status).toBe(200);
    expect(introspect.body.uuid).toBe(uuid);
    const notApp = await app.api('GET', '/cms/v2/users/me/application-passwords/introspect', { headers: user.headers });
    expect(notApp.status).toBe(404);
    expect(notApp.body.code).toBe('rest_no_authenticated_app_password');

    const renamed = await app.api('PATCH', `${route}/${uuid}`, { headers: user.headers, json: { name: 'Renamed' } });
    expect(renamed.body.name).toBe('Renamed');

    const deleted = await app.api('DELETE', `${route}/${uuid}`, { headers: user.headers });
    expect(deleted.body).toMatchObject({ deleted: true, previous: { uuid, name: 'Renamed' } });
    const refused = await app.api('GET', '/cms/v2/users/me', { headers: basic(user.username, password) });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('incorrect_password');
  });

  it('refuses duplicate and blank names', async () => {
    const user = await app.asRole('author');
    await app.api('POST', '/cms/v2/users/me/application-passwords', { headers: user.headers, json: { name: 'Twice' } });
    const again = await app.api('POST', '/cms/v2/users/me/application-passwords', { headers: user.headers, json: { name: 'Twice' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('application_password_duplicate_name');
    const blank = await app.api('POST', '/cms/v2/users/me/application-passwords', { headers: user.headers, json: { name: '   ' } });
    expect(blank.status).toBe(400);
    expect(blank.body.code).toBe('rest_invalid_param');
  });

  it('deletes all of a user\'s passwords at once', async () => {
    const user = await app.asRole('author');
    for (const name of ['one', 'two']) await app.api('POST', '/cms/v2/users/me/application-passwords', { headers: user.headers, json: { name } });
    const response = await app.api('DELETE', `/cms/v2/users/${user.id}/application-passwords`, { headers: app.admin });
    expect(response.body).toEqual({ deleted: true, count: 2 });
  });

  it('belong to their user and administrators only', async () => {
    const owner = await app.asRole('author');
    const other = await app.asRole('editor');
    const create = await app.api('POST', '/cms/v2/users/me/application-passwords', { headers: owner.headers, json: { name: 'Mine' } });
    const route = `/cms/v2/users/${owner.id}/application-passwords`;
    const checks = [
      ['GET', route, 'rest_cannot_list_application_passwords'],
      ['POST', route, 'rest_cannot_create_application_passwords'],
      ['DELETE', route, 'rest_cannot_delete_application_passwords'],
      ['GET', `${route}/${create.body.uuid}`, 'rest_cannot_read_application_password'],
      ['PUT', `${route}/${create.body.uuid}`, 'rest_cannot_edit_application_password'],
      ['DELETE', `${route}/${create.body.uuid}`, 'rest_cannot_delete_application_password'],
    ] as const;
    for (const [method, path, code] of checks) {
      const json = method === 'GET' || method === 'DELETE' ? undefined : { name: 'Stolen' };
      const denied = await app.api(method, path, { headers: other.headers, json });
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.code).toBe(code);
      const anonymous = await app.api(method, path, { json });
      expect(anonymous.status).toBe(401);
    }
    expect((await app.api('GET', route, { headers: app.admin })).body).toHaveLength(1);
    const introspect = await app.api('GET', `${route}/introspect`, { headers: other.headers });
    expect(introspect.status).toBe(403);
    expect(introspect.body.code).toBe('rest_cannot_introspect_app_password_for_non_authenticated_user');
    expect((await app.api('GET', '/cms/v2/users/me/application-passwords')).body.code).toBe('rest_not_logged_in');
    expect((await app.api('GET', '/cms/v2/users/999999/application-passwords', { headers: app.admin })).body.code).toBe('rest_user_invalid_id');
    const unknown = await app.api('GET', `${route}/no-such-uuid`, { headers: app.admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('rest_application_password_not_found');
  });
});

describe('failed logins', () => {
  it('are refused with 429 for a while once the limit is reached, per address and per username', async () => {
    const limited = await createTestApp({ env: { CMS_LOGIN_MAX_FAILURES: '3', CMS_LOGIN_WINDOW_SECONDS: '600' } });
    try {
      const user = await limited.asRole('author');
      for (let attempt = 0; attempt < 3; attempt++) {
        expect((await limited.api('GET', '/cms/v2/users/me', { headers: basic(user.username, 'guess') })).status).toBe(401);
      }
      const locked = await limited.api('GET', '/cms/v2/users/me', { headers: user.headers });
      expect(locked.status).toBe(429);
      expect(locked.body.code).toBe('too_many_login_attempts');
      expect(locked.body.data.retry_after).toBeGreaterThan(500);
      expect(locked.headers.get('retry-after')).toBe(String(locked.body.data.retry_after));
      // The address is locked too, so another account from it is refused as well.
      const other = await limited.asRole('author');
      expect((await limited.api('GET', '/cms/v2/users/me', { headers: other.headers })).status).toBe(429);
      // Anonymous requests are not logins and go through.
      expect((await limited.api('GET', '/')).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  it('count exactly under concurrency: 50 wrong passwords from 25 clients at once get at most the limit of 401s', async () => {
    const limited = await createTestApp({ env: { CMS_LOGIN_MAX_FAILURES: '10', CMS_LOGIN_WINDOW_SECONDS: '600' } });
    try {
      const user = await limited.asRole('author');
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: 25 }, async (_, client) => {
          for (let attempt = 0; attempt < 2; attempt++) {
            const answer = await limited.api('GET', '/cms/v2/users/me', { headers: basic(user.username, `guess-${client}-${attempt}`) });
            statuses.push(answer.status);
          }
        }),
      );
      expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
      expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(40);
    } finally {
      await limited.stop();
    }
  });

  it('let a client send its right password on many requests at once: they make one attempt, not one each', async () => {
    const limited = await createTestApp({ env: { CMS_LOGIN_MAX_FAILURES: '3', CMS_LOGIN_WINDOW_SECONDS: '600', CMS_AUTH_CACHE_SECONDS: '0' } });
    try {
      const user = await limited.asRole('author');
      const answers = await Promise.all(Array.from({ length: 20 }, () => limited.api('GET', '/cms/v2/users/me', { headers: user.headers })));
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    } finally {
      await limited.stop();
    }
  });

  it('cannot lock an account out from another address, application passwords included, yet slow a guesser down', async () => {
    const limited = await createTestApp({ env: { CMS_LOGIN_MAX_FAILURES: '3', CMS_LOGIN_WINDOW_SECONDS: '600', CMS_AUTH_CACHE_SECONDS: '0' } });
    try {
      const victim = await limited.asRole('editor');
      const created = await limited.api('POST', '/cms/v2/users/me/application-passwords', { headers: victim.headers, json: { name: 'Client' } });
      const applicationPassword = basic(victim.username, created.body.password);
      const me = `${limited.apiRoot}/cms/v2/users/me`;

      // A guesser at 127.0.0.2 uses up its address's failures, then is refused there.
      const wrong = basic(victim.username, 'guess');
      for (let attempt = 0; attempt < 3; attempt++) expect((await fromAddress('127.0.0.2', me, wrong)).status).toBe(401);
      expect((await fromAddress('127.0.0.2', me, victim.headers)).status).toBe(429);
      // Another address guessing at the same account is not refused, but each guess is slowed.
      const third = await fromAddress('127.0.0.3', me, wrong);
      expect(third.status).toBe(401);
      expect(third.ms).toBeGreaterThanOrEqual(900);

      // The owner, elsewhere, still gets in: with the account password, and with an application password.
      expect((await fromAddress('127.0.0.1', me, victim.headers)).status).toBe(200);
      expect((await fromAddress('127.0.0.1', me, applicationPassword)).status).toBe(200);
      expect((await fromAddress('127.0.0.4', me, applicationPassword)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

/** A GET sent from a chosen local address (all of 127.0.0.0/8 is this machine), as a client elsewhere would. */
function fromAddress(localAddress: string, url: string, headers: Record<string, string>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { localAddress, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - started }));
      })
      .on('error', reject);
  });
}
