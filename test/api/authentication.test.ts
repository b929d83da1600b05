import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createTestApp, startServiceOn, type TestApp } from '../support/test-app.js';

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
  it('are refused with 429 for a while once the limit is reached, for that address at that account only', async () => {
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
      // The same account by its email is the same account.
      expect((await limited.api('GET', '/cms/v2/users/me', { headers: basic(`${user.username}@example.test`, user.password) })).status).toBe(429);
      // Another account from the same address is not: a client behind the same address logs in.
      const other = await limited.asRole('author');
      expect((await limited.api('GET', '/cms/v2/users/me', { headers: other.headers })).status).toBe(200);
      // Anonymous requests are not logins and go through.
      expect((await limited.api('GET', '/')).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  it('count exactly under concurrency: 50 wrong passwords from 25 clients at once get at most the limit of 401s', async () => {
    const limited = await createTestApp({ env: { CMS_LOGIN_MAX_FAILURES: '10', CMS_LOGIN_WINDOW_SECONDS: '600', CMS_LOGIN_SLOWDOWN_MS: '20' } });
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

      // A guesser at 127.0.0.2 uses up its failures at the account, then is refused there.
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

  it('count a user\'s username and email logins as one account, and check concurrent guesses at it one slowdown apart, across processes', async () => {
    const slowdownMs = 250;
    const env = { CMS_LOGIN_MAX_FAILURES: '4', CMS_LOGIN_WINDOW_SECONDS: '600', CMS_LOGIN_SLOWDOWN_MS: String(slowdownMs), CMS_AUTH_CACHE_SECONDS: '0' };
    const limited = await createTestApp({ env });
    const second = await startServiceOn(limited.databaseName, { env });
    try {
      const user = await limited.asRole('author');
      const email = `${user.username}@example.test`;
      const slots = limited.deps.store.db.collection<{ account: string; slot: number; at: Date }>('login_slots');
      const me = (service: { siteUrl: string }) => `${service.siteUrl}/cms-json/cms/v2/users/me`;

      // Two failures by username and two by email, at once, from one address: the pair's four.
      const guesses = await Promise.all(
        [user.username, email, user.username, email].map((login, i) => fromAddress('127.0.0.2', me(limited), basic(login, `guess-${i}`))),
      );
      expect(guesses.map((guess) => guess.status)).toEqual([401, 401, 401, 401]);
      for (const login of [user.username, email]) expect((await fromAddress('127.0.0.2', me(limited), basic(login, user.password))).status).toBe(429);
      expect(await slots.countDocuments({ account: `user:${user.id}` })).toBe(0);

      // The account has had its four: six guesses at once from six other addresses, by username
      // and by email, through two processes, are checked one at a time, each in a slot of its own.
      const started = performance.now();
      const startedAt = Date.now();
      const burst = await Promise.all(
        Array.from({ length: 6 }, (_, i) => fromAddress(`127.0.0.${10 + i}`, me(i % 2 ? second : limited), basic(i % 3 ? email : user.username, `burst-${i}`))),
      );
      const elapsed = performance.now() - started;
      expect(burst.map((guess) => guess.status)).toEqual(Array(6).fill(401));
      const taken = (await slots.find({ account: `user:${user.id}` }).toArray()).map((doc) => doc.at.getTime()).sort((a, b) => a - b);
      expect(taken).toHaveLength(6);
      for (let i = 1; i < taken.length; i++) expect(taken[i] - taken[i - 1]).toBeGreaterThanOrEqual(slowdownMs);
      // Each guess is answered after its slot's time: the i-th answer no earlier than the i-th slot.
      const answered = burst.map((guess) => guess.endedAt).sort((a, b) => a - b);
      answered.forEach((at, i) => expect(at, `answer ${i + 1}`).toBeGreaterThanOrEqual(taken[i]));
      expect(taken[0]).toBeGreaterThanOrEqual(startedAt + slowdownMs);
      expect(elapsed).toBeGreaterThanOrEqual(6 * slowdownMs);

      // The owner, from an address of its own, still gets in (in its turn), by either name.
      expect((await fromAddress('127.0.0.20', me(second), basic(email, user.password))).status).toBe(200);
      expect((await fromAddress('127.0.0.21', me(limited), user.headers)).status).toBe(200);
      expect(await slots.countDocuments({ account: `user:${user.id}` })).toBe(8);
    } finally {
      await second.stop();
      await limited.stop();
    }
  });

  it('refuse an address spraying many accounts where it has not logged in, never an application password or a fresh address', async () => {
    const env = { CMS_LOGIN_MAX_FAILURES: '3', CMS_LOGIN_MAX_ADDRESS_FAILURES: '6', CMS_LOGIN_WINDOW_SECONDS: '600', CMS_LOGIN_SLOWDOWN_MS: '100', CMS_AUTH_CACHE_SECONDS: '0' };
    const limited = await createTestApp({ env });
    try {
      const me = `${limited.apiRoot}/cms/v2/users/me`;
      const created = await limited.api('POST', '/cms/v2/users/me/application-passwords', { headers: limited.admin, json: { name: 'Deploy' } });
      const adminApplicationPassword = basic('admin', created.body.password);
      const regular = await limited.asRole('author');
      const bystander = await limited.asRole('author');

      // The attacker's address logs in once as a user of its own, then guesses at the
      // administrator until that pair is refused, and at accounts nobody has.
      const attacker = '127.0.0.2';
      expect((await fromAddress(attacker, me, regular.headers)).status).toBe(200);
      for (let attempt = 0; attempt < 3; attempt++) expect((await fromAddress(attacker, me, basic('admin', `guess-${attempt}`))).status).toBe(401);
      expect((await fromAddress(attacker, me, limited.admin)).status).toBe(429);
      for (let attempt = 0; attempt < 3; attempt++) expect((await fromAddress(attacker, me, basic(`nobody-${attempt}`, 'guess'))).status).toBe(401);
      // Six failures: the address is refused at the accounts it has not logged in to...
      const sprayed = await fromAddress(attacker, me, bystander.headers);
      expect(sprayed.status).toBe(429);
      expect(sprayed.body.code).toBe('too_many_login_attempts');
      // ...but not at its own, nor with the administrator's application password.
      expect((await fromAddress(attacker, me, regular.headers)).status).toBe(200);
      expect((await fromAddress(attacker, me, adminApplicationPassword)).status).toBe(200);

      // Guessers elsewhere slow the administrator's account down; from a fresh address its
      // password gets in all the same, and the application password is never slowed.
      for (const address of ['127.0.0.3', '127.0.0.4']) {
        for (let attempt = 0; attempt < 3; attempt++) expect((await fromAddress(address, me, basic('admin', `guess-${attempt}`))).status).toBe(401);
      }
      expect((await fromAddress('127.0.0.5', me, limited.admin)).status).toBe(200);
      expect((await fromAddress(attacker, me, adminApplicationPassword)).status).toBe(200);
      expect((await fromAddress('127.0.0.5', me, bystander.headers)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  it('take the client\'s address from X-Forwarded-For only when the peer is a proxy CMS_TRUSTED_PROXIES names, and never without it', async () => {
    const limited = await createTestApp({ env: { CMS_LOGIN_MAX_FAILURES: '2', CMS_LOGIN_WINDOW_SECONDS: '600', CMS_TRUSTED_PROXIES: '127.0.0.2', CMS_LOGIN_SLOWDOWN_MS: '50', CMS_AUTH_CACHE_SECONDS: '0' } });
    try {
      const user = await limited.asRole('author');
      const me = `${limited.apiRoot}/cms/v2/users/me`;
      const forwarded = (address: string, headers: Record<string, string>) => ({ ...headers, 'X-Forwarded-For': address });
      const wrong = basic(user.username, 'guess');

      // Through the proxy: each client is counted on its own.
      for (let attempt = 0; attempt < 2; attempt++) expect((await fromAddress('127.0.0.2', me, forwarded('203.0.113.7', wrong))).status).toBe(401);
      expect((await fromAddress('127.0.0.2', me, forwarded('203.0.113.7', user.headers))).status).toBe(429);
      expect((await fromAddress('127.0.0.2', me, forwarded('198.51.100.9', user.headers))).status).toBe(200);

      // From a peer that is no trusted proxy, X-Forwarded-For is the client's say-so: ignored.
      for (let attempt = 0; attempt < 2; attempt++) expect((await fromAddress('127.0.0.3', me, forwarded(`192.0.2.${attempt}`, wrong))).status).toBe(401);
      expect((await fromAddress('127.0.0.3', me, forwarded('192.0.2.99', user.headers))).status).toBe(429);

      // An application password records the forwarded address, and so does the request log.
      const created = await limited.api('POST', '/cms/v2/users/me/application-passwords', { headers: user.headers, json: { name: 'Client' } });
      expect((await fromAddress('127.0.0.2', me, forwarded('198.51.100.23', basic(user.username, created.body.password)))).status).toBe(200);
      const used = await limited.api('GET', `/cms/v2/users/${user.id}/application-passwords/${created.body.uuid}`, { headers: user.headers });
      expect(used.body.last_ip).toBe('198.51.100.23');
      const logged = limited.logs.map((line) => line.req as { remoteAddress?: string; headers?: Record<string, string> } | undefined);
      expect(logged.find((req) => req?.headers?.['x-forwarded-for'] === '198.51.100.23')?.remoteAddress).toBe('198.51.100.23');
      expect(logged.find((req) => req?.headers?.['x-forwarded-for'] === '192.0.2.99')?.remoteAddress).toBe('127.0.0.3');
    } finally {
      await limited.stop();
    }

    // Without CMS_TRUSTED_PROXIES, every request is counted under its peer's address.
    const direct = await createTestApp({ env: { CMS_LOGIN_MAX_FAILURES: '2', CMS_LOGIN_WINDOW_SECONDS: '600', CMS_LOGIN_SLOWDOWN_MS: '50', CMS_AUTH_CACHE_SECONDS: '0' } });
    try {
      const user = await direct.asRole('author');
      const me = `${direct.apiRoot}/cms/v2/users/me`;
      for (let attempt = 0; attempt < 2; attempt++) {
        expect((await fromAddress('127.0.0.2', me, { ...basic(user.username, 'guess'), 'X-Forwarded-For': `203.0.113.${attempt}` })).status).toBe(401);
      }
      expect((await fromAddress('127.0.0.2', me, { ...user.headers, 'X-Forwarded-For': '198.51.100.9' })).status).toBe(429);
      // Another peer is another client, whatever it forwards.
      expect((await fromAddress('127.0.0.3', me, { ...user.headers, 'X-Forwarded-For': '203.0.113.0' })).status).toBe(200);
    } finally {
      await direct.stop();
    }
  });
});

/** A GET sent from a chosen local address (all of 127.0.0.0/8 is this machine), as a client elsewhere would. */
function fromAddress(localAddress: string, url: string, headers: Record<string, string>): Promise<{ status: number; ms: number; endedAt: number; body: any }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { localAddress, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, ms: performance.now() - started, endedAt: Date.now(), body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }),
        );
      })
      .on('error', reject);
  });
}
