import http from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LIST_ITEMS, MAX_SEARCH_LENGTH } from '../../src/rest/args.js';
import { MAX_JSON_VALUES, MAX_PARAMS } from '../../src/rest/client-input.js';
import { MAX_FIELDS, MAX_FIELDS_LENGTH } from '../../src/rest/fields.js';
import { MAX_EMBED_RELATIONS } from '../../src/rest/links.js';
import { MAX_DIFF_CHARS } from '../../src/lib/text-diff.js';
import { MAX_PAGE_CHARS } from '../../src/resources/changes/changes.schema.js';
import { MAX_DIFF_EDITS } from '../../src/resources/revisions/revision.diff.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { currentServiceWork } from '../../src/store/queries/service-work.js';
import {
  basePairs,
  baseValues,
  eachLimited,
  encodeKey,
  encodePairs,
  HOSTILE_BODIES,
  HOSTILE_FIELDS,
  HOSTILE_NAMES,
  HOSTILE_VALUES,
  isNumeric,
  JSON_INFINITY,
  prototypeKeys,
  withQuery,
} from '../support/hostile-payloads.js';
import { hostileSite, pathFor, type Failures } from '../support/hostile-site.js';
import { ADMIN_PASSWORD, createTestApp, type ApiResponse, type RequestOptions, type TestApp } from '../support/test-app.js';

// Hostile names and values through every parameter and body field the discovery index lists: no
// client-chosen name may reach a prototype, no value may reach a query as an operator, NUL
// characters, non-finite numbers and deep nesting are refused with a 400, and nothing is ever a 5xx.
// The service runs in this process (createTestApp), so a polluted `Object.prototype` shows here too.

// The fixtures (one of everything a path can name), the endpoints of the index and the hostile
// values are made in test/support/hostile-site.ts and hostile-payloads.ts.
const given = hostileSite();
const { app, send, check } = given;

const readTargets = () => given.targets.filter((target) => target.methods.includes('GET') || target.methods.includes('DELETE'));
const writeTargets = () => given.targets.filter((target) => ['POST', 'PUT', 'PATCH'].some((method) => target.methods.includes(method)));

describe('hostile values in every parameter the index lists', () => {
  it('GET and DELETE: as query parameters', async () => {
    const failures: Failures = [];
    const cases = readTargets().flatMap((target) =>
      Object.entries(target.args).flatMap(([name, spec]) => [
        ...HOSTILE_VALUES.map((value) => ({ target, name, spec, value, numeric: false })),
        { target, name, spec, value: JSON_INFINITY, numeric: true },
      ]),
    );
    await eachLimited(cases, async ({ target, name, spec, value, numeric }) => {
      const method = target.methods[0];
      const query = encodePairs([...basePairs(target.args, method, name), ...value.pairs(name)]);
      const response = await send(method, withQuery(target.path, query), { headers: target.headers });
      const expected = value.refused && (!numeric || isNumeric(spec)) ? { status: 400 } : undefined;
      check(failures, `${method} ${target.pattern} ?${name}=${value.label}`, response, expected);
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it('POST, PUT and PATCH: as JSON body fields, 1e400 written raw', async () => {
    const failures: Failures = [];
    const cases = writeTargets().flatMap((target) =>
      Object.keys(target.args).flatMap((name) => [...HOSTILE_VALUES, JSON_INFINITY].map((value) => ({ target, name, value }))),
    );
    await eachLimited(cases, async ({ target, name, value }) => {
      const method = target.methods[0];
      const base = JSON.stringify(baseValues(target.args, name, method)).slice(1, -1);
      const body = `{${base ? `${base},` : ''}${JSON.stringify(name)}:${value.json}}`;
      const response = await send(method, target.path, { headers: target.headers, raw: { body, contentType: 'application/json' } });
      check(failures, `${method} ${target.pattern} {${name}: ${value.label}}`, response, value.refused ? { status: 400 } : undefined);
    });
    // The endpoint's other methods, each hostile value in every field at once.
    const others = writeTargets().flatMap((target) =>
      target.methods.slice(1).flatMap((method) => [...HOSTILE_VALUES, JSON_INFINITY].map((value) => ({ target, method, value }))),
    );
    await eachLimited(others, async ({ target, method, value }) => {
      const body = `{${Object.keys(target.args).map((name) => `${JSON.stringify(name)}:${value.json}`).join(',')}}`;
      const response = await send(method, target.path, { headers: target.headers, raw: { body, contentType: 'application/json' } });
      check(failures, `${method} ${target.pattern} {every field: ${value.label}}`, response, value.refused ? { status: 400 } : undefined);
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it('POST, PUT and PATCH: as a form body, every field at once', async () => {
    const failures: Failures = [];
    const cases = writeTargets().flatMap((target) => [...HOSTILE_VALUES, JSON_INFINITY].map((value) => ({ target, value })));
    await eachLimited(cases, async ({ target, value }) => {
      const method = target.methods[0];
      const body = encodePairs(Object.keys(target.args).flatMap((name) => value.pairs(name)));
      const response = await send(method, target.path, { headers: target.headers, raw: { body, contentType: 'application/x-www-form-urlencoded' } });
      // A form's 1e400 is text: refused only where a number is expected, which not every endpoint has.
      const expected = value.refused && value !== JSON_INFINITY ? { status: 400 } : undefined;
      check(failures, `${method} ${target.pattern} form, every field: ${value.label}`, response, expected);
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it('hostile top-level names, in the query, a form body and a JSON body', async () => {
    const failures: Failures = [];
    // PUT and PATCH parse exactly as POST does: the first method of each endpoint stands for them.
    await eachLimited(given.targets, async (target) => {
      const method = target.methods[0];
      for (const pairs of HOSTILE_NAMES) {
        // A write's required fields go in its form body below; a query of hostile names alone suffices here.
        const base = method === 'GET' || method === 'DELETE' ? basePairs(target.args, method) : [];
        const response = await send(method, withQuery(target.path, encodePairs([...base, ...pairs])), { headers: target.headers });
        check(failures, `${method} ${target.pattern} ?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`, response);
      }
      if (method === 'GET') return;
      for (const body of HOSTILE_BODIES) {
        const response = await send(method, target.path, { headers: target.headers, raw: { body, contentType: 'application/json' } });
        check(failures, `${method} ${target.pattern} body ${body}`, response);
      }
      for (const pairs of HOSTILE_NAMES) {
        const body = encodePairs([...basePairs(target.args, method), ...pairs]);
        const response = await send(method, target.path, { headers: target.headers, raw: { body, contentType: 'application/x-www-form-urlencoded' } });
        check(failures, `${method} ${target.pattern} form ${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`, response);
      }
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it('hostile _fields and _embed on every GET endpoint', async () => {
    const failures: Failures = [];
    const cases = given.targets.filter((target) => target.methods.includes('GET')).flatMap((target) => HOSTILE_FIELDS.map((query) => ({ target, query })));
    await eachLimited(cases, async ({ target, query }) => {
      const response = await send('GET', withQuery(target.path, query), { headers: target.headers });
      check(failures, `GET ${target.pattern} ?${query}`, response);
    });
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses keys nested 100 deep in a query or form body, and JSON nested 10,000 deep', async () => {
    const failures: Failures = [];
    const deepKey = `a${'[a]'.repeat(100)}`;
    await eachLimited(readTargets(), async (target) => {
      const response = await send(target.methods[0], `${target.path}?${deepKey}=1`, { headers: target.headers });
      check(failures, `${target.methods[0]} ${target.pattern} ?a[a]... (100 deep)`, response, { status: 400 });
    });
    await eachLimited(writeTargets(), async (target) => {
      const response = await send(target.methods[0], target.path, { headers: target.headers, raw: { body: `${deepKey}=1`, contentType: 'application/x-www-form-urlencoded' } });
      check(failures, `${target.methods[0]} ${target.pattern} form a[a]... (100 deep)`, response, { status: 400 });
    });
    const deepJson: [string, string][] = [
      ['objects 10,000 deep', `{"meta":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`],
      ['arrays 10,000 deep', `{"tags":${'['.repeat(10_000)}${']'.repeat(10_000)}}`],
      ['objects 600 deep', `{"x":${'{"a":'.repeat(600)}1${'}'.repeat(600)}}`],
    ];
    for (const [label, body] of deepJson) {
      const response = await send('POST', '/cms/v2/posts', { headers: app.admin, raw: { body, contentType: 'application/json' } });
      check(failures, `POST /cms/v2/posts JSON ${label}`, response, { status: 400, code: 'rest_invalid_json' });
    }
    // Nesting within the limits is not refused for its depth: an unknown field is ignored, as WordPress does.
    const shallow = await send('GET', `/cms/v2/posts?${`a${'[a]'.repeat(10)}`}=1`, { headers: app.admin });
    check(failures, 'GET /cms/v2/posts ?a[a]... (10 deep)', shallow, { status: 200 });
    const within = await send('POST', '/cms/v2/posts', { headers: app.admin, raw: { body: `{"title":"Deep but allowed","x":${'{"a":'.repeat(400)}1${'}'.repeat(400)}}`, contentType: 'application/json' } });
    check(failures, 'POST /cms/v2/posts JSON objects 400 deep', within, { status: 201 });
    expect(failures).toEqual([]);
  }, 60_000);
});

describe('the batch route, /batch/v1', () => {
  /** A batched request's answer, checked as an answer of its own. */
  const checkEnvelopes = (failures: Failures, what: string, response: ApiResponse, count: number) => {
    check(failures, what, response, { status: 207 });
    const responses = (response.body?.responses ?? []) as { body: unknown; status: number }[];
    if (responses.length !== count) failures.push(`${what}: ${responses.length} responses for ${count} requests`);
    responses.forEach((item, i) => check(failures, `${what} [${i}]`, { status: item.status, body: item.body, text: JSON.stringify(item.body), headers: new Headers() }));
  };
  const batch = (body: string) => send('POST', '/batch/v1', { headers: app.admin, raw: { body, contentType: 'application/json' } });

  it('hostile values in every field of every endpoint that takes batched requests', async () => {
    const failures: Failures = [];
    const batched = given.targets.filter((target) => target.batched && target.methods.some((method) => method !== 'GET'));
    expect(batched.length).toBeGreaterThan(10);
    const cases = batched.flatMap((target) =>
      Object.keys(target.args).flatMap((name) => [...HOSTILE_VALUES, JSON_INFINITY].map((value) => ({ target, name, value }))),
    );
    await eachLimited(cases, async ({ target, name, value }) => {
      const method = target.methods.find((m) => m !== 'GET')!;
      const base = JSON.stringify(baseValues(target.args, name, method)).slice(1, -1);
      const body = `{${base ? `${base},` : ''}${JSON.stringify(name)}:${value.json}}`;
      const path = method === 'DELETE' ? pathFor(target.pattern, given.throwaway)! : target.path;
      const response = await batch(`{"requests":[{"method":"${method}","path":${JSON.stringify(path)},"body":${body}}]}`);
      const what = `batch ${method} ${target.pattern} {${name}: ${value.label}}`;
      // NUL and 1e400 are refused with the whole batch, by the transport, before any request is looked at.
      if (value.refused) check(failures, what, response, { status: 400 });
      else checkEnvelopes(failures, what, response, 1);
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it('hostile paths, methods and headers of batched requests, a batch of batches, and more than 25 requests', async () => {
    const failures: Failures = [];
    const paths = [
      '/cms/v2/posts?__proto__[polluted]=1&constructor[prototype][polluted]=1',
      '/cms/v2/posts?_fields=__proto__.polluted',
      '/cms/v2/posts?_embed=1&_envelope=1&_jsonp=x&_method=DELETE',
      `/cms/v2/posts?${`a${'[a]'.repeat(100)}`}=1`,
      `/cms/v2/posts/${given.keep.post}/../../users`,
      '/cms/v2/posts/%E0%A4%A',
      '/cms/v2/posts%00',
      '//cms/v2/posts',
      'cms/v2/posts',
      'http://elsewhere.test/cms-json/cms/v2/posts',
      '/cms/v2/posts#fragment',
      '?rest_route=/cms/v2/posts',
      '',
      '/'.repeat(5000),
      '/cms/v2/media',
      `/cms/v2/posts/${given.keep.post}/revisions`,
      '/batch/v1',
      '/batch/v1?validation=normal',
    ];
    for (const path of paths) {
      const response = await batch(JSON.stringify({ requests: [{ path, body: { title: 'Hostile batch', requests: [{ path: '/cms/v2/posts', body: { title: 'Nested' } }] } }] }));
      checkEnvelopes(failures, `batch path ${JSON.stringify(path.slice(0, 60))}`, response, 1);
    }
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'post', '__proto__', '', 'POST\u0000']) {
      const response = await batch(`{"requests":[{"method":"${method}","path":"/cms/v2/posts","body":{"title":"Hostile method"}}]}`);
      check(failures, `batch method ${method}`, response, { status: 400 });
    }
    // Each header is a string or a list of strings, as WordPress declares them: anything else refuses the batch.
    const headerSets: [string, number][] = [
      ['{"__proto__":"polluted"}', 207],
      ['{"constructor":["prototype"]}', 207],
      ['{"Authorization":"Basic bm9ib2R5Om5vdGhpbmc="}', 207],
      ['{"X-HTTP-Method-Override":"DELETE"}', 207],
      ['{"Content-Type":"multipart/form-data; boundary=x"}', 207],
      ['{"Accept":"application/x-ndjson"}', 207],
      ['{"If-Match":["\\"1\\"","*"]}', 207],
      ['{"X-Long":"' + 'x'.repeat(20_000) + '"}', 207],
      ['{"__proto__":{"polluted":"x"}}', 400],
      ['{"If-Match":{"$gt":""}}', 400],
      ['{"If-Match":[["nested"]]}', 400],
    ];
    for (const [headers, status] of headerSets) {
      const response = await batch(`{"requests":[{"method":"PUT","path":"/cms/v2/posts/${given.keep.post}","headers":${headers},"body":{"excerpt":"Hostile headers"}}]}`);
      const what = `batch headers ${headers.slice(0, 60)}`;
      if (status === 207) checkEnvelopes(failures, what, response, 1);
      else check(failures, what, response, { status });
    }
    const survivor = await send('GET', `/cms/v2/posts/${given.keep.post}`, { headers: app.admin });
    if (survivor.status !== 200 || survivor.body.status === 'trash') failures.push(`a header in a batch changed the method: ${survivor.text.slice(0, 160)}`);
    // The user is the batch's: headers inside it never authenticate anyone.
    const anonymous = await send('POST', '/batch/v1', { json: { requests: [{ path: '/cms/v2/posts', headers: app.admin, body: { title: 'Borrowed credentials' } }] } });
    checkEnvelopes(failures, 'anonymous batch with credentials inside', anonymous, 1);
    if (anonymous.body?.responses?.[0]?.status !== 401) failures.push(`credentials inside a batch were used: ${anonymous.text.slice(0, 160)}`);

    const nested = (depth: number): unknown => (depth === 0 ? { path: '/cms/v2/posts', body: { title: 'Deep batch' } } : { path: '/batch/v1', body: { requests: [nested(depth - 1)] } });
    const batchOfBatches = await batch(JSON.stringify({ requests: [nested(1), nested(5), nested(50)] }));
    checkEnvelopes(failures, 'a batch of batches', batchOfBatches, 3);
    for (const item of batchOfBatches.body?.responses ?? []) if (item.body?.code !== 'rest_batch_not_allowed') failures.push(`a batch in a batch ran: ${JSON.stringify(item).slice(0, 160)}`);

    for (const count of [26, 1000]) {
      const response = await batch(JSON.stringify({ requests: Array.from({ length: count }, () => ({ path: '/cms/v2/posts', body: { title: 'Too many' } })) }));
      check(failures, `a batch of ${count}`, response, { status: 400, code: 'rest_invalid_param' });
    }
    const search = await send('GET', '/cms/v2/posts', { headers: app.admin, query: { search: 'Deep batch', status: 'any' } });
    if (search.body.length) failures.push('a request nested in a batch of batches was run');
    expect(failures).toEqual([]);
  }, 60_000);
});

describe("the admin page's sign-in, /cms-admin/session", () => {
  const signIn = (options: RequestOptions) => {
    return given.site('POST', '/cms-admin/session', options);
  };
  const asJson = (body: string) => ({ raw: { body, contentType: 'application/json' } });

  it('refuses a body that is not a JSON object of bounded strings with 400, before any password is checked', async () => {
    const failures: Failures = [];
    const cases: [string, RequestOptions, number, string?][] = [
      ['a form body', { form: { username: 'admin', password: 'x' } }, 400, 'rest_invalid_json'],
      ['text/plain', { raw: { body: '{"username":"admin","password":"x"}', contentType: 'text/plain' } }, 400, 'rest_invalid_json'],
      ['multipart', { raw: { body: 'garbage', contentType: 'multipart/form-data; boundary=x' } }, 400, 'rest_invalid_json'],
      ['no body', {}, 400],
      ['broken JSON', asJson('{"username":'), 400, 'rest_invalid_json'],
      ['a JSON list', asJson('["admin","x"]'), 400, 'rest_missing_callback_param'],
      ['JSON null', asJson('null'), 400, 'rest_invalid_json'],
      ['no password', { json: { username: 'admin' } }, 400, 'rest_missing_callback_param'],
      ['empty fields', { json: { username: '', password: '' } }, 400, 'rest_missing_callback_param'],
      ['a number', { json: { username: 1, password: 'x' } }, 400, 'rest_invalid_param'],
      ['a list', { json: { username: ['admin'], password: 'x' } }, 400, 'rest_invalid_param'],
      ['an operator', { json: { username: { $ne: null }, password: { $gt: '' } } }, 400, 'rest_invalid_param'],
      ['remember as a string', { json: { username: 'admin', password: 'x', remember: 'yes' } }, 400, 'rest_invalid_param'],
      ['a NUL in the username', { json: { username: 'adm\u0000in', password: 'x' } }, 400, 'rest_invalid_param'],
      ['a NUL in the password', { json: { username: 'admin', password: 'x\u0000' } }, 400, 'rest_invalid_param'],
      ['1e400', asJson('{"username":"admin","password":1e400}'), 400, 'rest_invalid_param'],
      ['a long username', { json: { username: 'a'.repeat(300), password: 'x' } }, 400, 'rest_invalid_param'],
      ['a long password', { json: { username: 'admin', password: 'x'.repeat(5000) } }, 400, 'rest_invalid_param'],
      ['JSON nested 5,000 deep', asJson(`{"username":${'['.repeat(5000)}${']'.repeat(5000)},"password":"x"}`), 400, 'rest_invalid_json'],
      ['a 1 MB body', { json: { username: 'admin', password: 'x'.repeat(1024 * 1024) } }, 413, 'rest_request_too_large'],
      ['a latin1 JSON body', { raw: { body: '{"username":"admin","password":"x"}', contentType: 'application/json; charset=latin1' } }, 415],
    ];
    for (const [what, options, status, code] of cases) {
      const response = await signIn(options);
      check(failures, `sign-in with ${what}`, response, { status, code });
      if (response.headers.getSetCookie().length) failures.push(`sign-in with ${what} set a cookie`);
    }
    expect(failures).toEqual([]);
  });

  it('keeps hostile names out of prototypes, and answers every other method in the error shape', async () => {
    const failures: Failures = [];
    const pollution = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"username":"nobody-hostile","password":"x"}';
    check(failures, 'sign-in with __proto__', await signIn(asJson(pollution)), { status: 401, code: 'invalid_username' });
    for (const method of ['PUT', 'PATCH']) {
      check(failures, `${method} /cms-admin/session`, await given.site(method, '/cms-admin/session', { json: {} }), { status: 404, code: 'rest_no_route' });
    }
    expect(failures).toEqual([]);
  });

  it('answers hostile cookies and nonces as no session (401) or a failed cookie check (403), never more', async () => {
    const failures: Failures = [];
    const cookies = [
      'cms_session=%00',
      'cms_session={"$ne":null}',
      `cms_session=${'a'.repeat(8000)}`,
      '__proto__=1; constructor=2; cms_session=x',
      Array.from({ length: 500 }, (_, i) => `c${i}=${i}`).join('; '),
      'cms_session=%E0%A4%A',
    ];
    for (const cookie of cookies) {
      // No session cookie at all: nobody is signed in (204); one that names no live session: 401.
      const current = await given.site('GET', '/cms-admin/session', { headers: { Cookie: cookie } });
      check(failures, `GET with ${cookie.slice(0, 40)}`, current, cookie.includes('cms_session=') ? { status: 401, code: 'cms_not_signed_in' } : { status: 204 });
      const signOut = await given.site('DELETE', '/cms-admin/session', { headers: { Cookie: cookie, 'X-WP-Nonce': 'x'.repeat(4000) } });
      check(failures, `DELETE with ${cookie.slice(0, 40)}`, signOut, { status: 401, code: 'cms_not_signed_in' });
      const api = await send('GET', '/cms/v2/posts', { headers: { Cookie: cookie, 'X-WP-Nonce': '\u00e9\u00e9' } });
      // A session cookie that names no live session, with a nonce: the cookie check fails.
      check(failures, `the API with ${cookie.slice(0, 40)}`, api, cookie.includes('cms_session=') ? { status: 403, code: 'rest_cookie_invalid_nonce' } : { status: 200 });
    }
    const signedIn = await signIn({ json: { username: 'admin', password: ADMIN_PASSWORD } });
    const cookie = signedIn.headers.getSetCookie()[0].split(';')[0];
    for (const nonce of ['', ' ', 'x'.repeat(4000), '{"$ne":null}', signedIn.body.nonce.slice(0, 9)]) {
      check(failures, `the API with the nonce ${nonce.slice(0, 20)}`, await send('GET', '/cms/v2/posts', { headers: { Cookie: cookie, 'X-WP-Nonce': nonce } }), { status: 403, code: 'rest_cookie_invalid_nonce' });
      check(failures, `DELETE with the nonce ${nonce.slice(0, 20)}`, await given.site('DELETE', '/cms-admin/session', { headers: { Cookie: cookie, 'X-WP-Nonce': nonce } }), { status: 403, code: 'rest_cookie_invalid_nonce' });
    }
    for (const query of ['_wpnonce[]=1', '_wpnonce[$ne]=1', '_wpnonce=%00']) {
      const response = await given.site('GET', `/cms-json/cms/v2/posts?${query}`, { headers: { Cookie: cookie } });
      check(failures, `the API with ${query}`, response, { status: query.includes('%00') ? 400 : 403 });
    }
    expect(failures).toEqual([]);
  });
});

describe('hostile points of the log: as_of and as_of_position', () => {
  const HOSTILE_POSITIONS = ['0', '-1', '1.5', '1e400', '9007199254740993', '99999999999999999999', 'abc', '', '0x10', '1,2', '1 OR 1'];
  const HOSTILE_TIMES = ['', 'now', 'yesterday', '2024-13-45T99:99:99Z', '2024-01-01T00:00:00', '2024-01-01', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2024-01-01T00:00:00+99:00', '1e400', 'x'.repeat(5000), '2024-01-01T00:00:00Z\u0000'];

  it('refuses every hostile point with a 400 in the error shape, on every as-of read and restore, and writes nothing', async () => {
    const failures: Failures = [];
    const events = app.deps.store.db.collection('events');
    const before = await events.countDocuments({});
    const routes: [string, string][] = [
      ['GET', `/cms/v2/posts/${given.keep.post}`],
      ['GET', `/cms/v2/pages/${given.keep.page}`],
      ['GET', `/cms/v2/menu-items/${given.keep.menuItem}`],
      ['GET', '/cms/v2/posts'],
      ['GET', '/cms/v2/pages'],
      ['GET', '/cms/v2/menu-items'],
      ['POST', `/cms/v2/posts/${given.keep.post}/restore`],
      ['POST', `/cms/v2/pages/${given.keep.page}/restore`],
      ['POST', `/cms/v2/menu-items/${given.keep.menuItem}/restore`],
      ['POST', `/cms/v2/menus/${given.keep.menu}/restore`],
    ];
    const cases: [string, string][] = [
      ...HOSTILE_POSITIONS.map((value): [string, string] => ['as_of_position', value]),
      ...HOSTILE_TIMES.map((value): [string, string] => ['as_of', value]),
      ['as_of_position[]', '1'],
      ['as_of[$gt]', ''],
      ['as_of_position[$gt]', '0'],
    ];
    await eachLimited(routes, async ([method, route]) => {
      for (const [name, value] of cases) {
        const query = `${encodeKey(name)}=${encodeURIComponent(value)}`;
        const response = await send(method, withQuery(route, query), { headers: app.admin });
        check(failures, `${method} ${route}?${name}=${value.slice(0, 40)}`, response, { status: 400 });
      }
      // Both at once name no one point.
      const both = await send(method, withQuery(route, `as_of_position=1&as_of=${encodeURIComponent(new Date().toISOString())}`), { headers: app.admin });
      check(failures, `${method} ${route} with both`, both, { status: 400, code: 'rest_invalid_param' });
    });
    expect(failures).toEqual([]);
    expect(await events.countDocuments({})).toBe(before);
  });
});

describe('after all of it', () => {
  it('left no prototype of this process changed', () => {
    expect(prototypeKeys()).toEqual(given.prototypesBefore);
    for (const key of ['polluted', 'force', 'id', 'prototype']) expect(Object.prototype, key).not.toHaveProperty(key);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).force).toBeUndefined();
  });

  it('deleted nothing for good: every fixture a DELETE was aimed at is still there', async () => {
    const stillThere: [string, string][] = [
      ['post', `/cms/v2/posts/${given.throwaway.post}`],
      ['page', `/cms/v2/pages/${given.throwaway.page}`],
      ['category', `/cms/v2/categories/${given.throwaway.category}`],
      ['tag', `/cms/v2/tags/${given.throwaway.tag}`],
      ['user', `/cms/v2/users/${given.throwaway.user}`],
      ['post revision', `/cms/v2/posts/${given.throwaway.post}/revisions/${given.throwaway.revision.posts}`],
      ['page revision', `/cms/v2/pages/${given.throwaway.page}/revisions/${given.throwaway.revision.pages}`],
      ['administrator of DELETE /users/me', `/cms/v2/users/${given.deleteMeAdmin.id}`],
      ['webhook', `/cms/v2/webhooks/${given.throwaway.webhook}`],
    ];
    const gone: string[] = [];
    for (const [what, route] of stillThere) {
      const response = await send('GET', route, { headers: app.admin, query: { context: 'edit' } });
      if (response.status !== 200) gone.push(`${what} ${route} -> ${response.status} ${response.body?.code}`);
    }
    expect(gone).toEqual([]);
  });

  it('still trashes without force, creates, and filters _fields', async () => {
    const created = await send('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'After the storm', status: 'publish' } });
    expect(created.status).toBe(201);
    const trashed = await send('DELETE', `/cms/v2/posts/${created.body.id}`, { headers: app.admin });
    expect(trashed.status).toBe(200);
    expect(trashed.body).toMatchObject({ id: created.body.id, status: 'trash' });
    const again = await send('GET', `/cms/v2/posts/${created.body.id}`, { headers: app.admin, query: { context: 'edit' } });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('trash');

    const fields = await send('GET', '/cms/v2/posts', { headers: app.admin, query: { _fields: 'id' } });
    expect(fields.status).toBe(200);
    expect(fields.body.length).toBeGreaterThan(0);
    for (const item of fields.body as Record<string, unknown>[]) expect(Object.keys(item)).toEqual(['id']);
    const fixture = await send('GET', `/cms/v2/posts/${given.keep.post}`, { headers: app.admin });
    expect(fixture.status).toBe(200);
  });
});

describe('the HTTP boundary', () => {
  const refused = async (response: ApiResponse | Promise<ApiResponse>, status: number, code?: string) => {
    const failures: Failures = [];
    check(failures, 'answer', await response, { status, code });
    expect(failures).toEqual([]);
  };
  const post = (options: RequestOptions) => send('POST', '/cms/v2/posts', { headers: app.admin, ...options });

  it('refuses a JSON body in a charset other than UTF-8 with 415', async () => {
    await refused(post({ raw: { body: '{"title":"Latin"}', contentType: 'application/json; charset=latin1' } }), 415);
  });

  it('refuses a body that is not in its Content-Encoding with 400, an unknown encoding with 415', async () => {
    const json = '{"title":"Plain"}';
    await refused(post({ headers: { ...app.admin, 'Content-Encoding': 'gzip' }, raw: { body: json, contentType: 'application/json' } }), 400);
    await refused(post({ headers: { ...app.admin, 'Content-Encoding': 'bogus' }, raw: { body: json, contentType: 'application/json' } }), 415);
  });

  it('refuses a broken multipart body with 400', async () => {
    await refused(post({ raw: { body: 'garbage', contentType: 'multipart/form-data; boundary=x' } }), 400);
  });

  it('answers a URL over 16 KB with 431 in the error shape', async () => {
    given.counted();
    const response = await fetch(`${app.siteUrl}/cms-json/cms/v2/posts?search=${'a'.repeat(17_000)}`);
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body).toMatchObject({ code: expect.any(String), message: expect.any(String), data: { status: 431 } });
  });

  it('refuses a term name with a NUL character with 400', async () => {
    await refused(send('POST', '/cms/v2/categories', { headers: app.admin, json: { name: 'Nul\u0000Category' } }), 400);
  });

  it('refuses 20 MB of content with 413', async () => {
    await refused(post({ json: { title: 'Too large', content: 'a'.repeat(20 * 1024 * 1024) } }), 413);
  });

  it('treats ?rest_route= like /cms-json/ for hostile names', async () => {
    const failures: Failures = [];
    for (const query of ['__proto__[force]=1', 'constructor[prototype][force]=1', 'per_page=1e400', 'search=a%00b']) {
      const response = await given.site('GET', `/?rest_route=/cms/v2/posts&${query}`, { headers: app.admin });
      const expected = query.startsWith('__') || query.startsWith('constructor') ? undefined : { status: 400 };
      check(failures, `GET ?rest_route=/cms/v2/posts&${query}`, response, expected);
    }
    expect(failures).toEqual([]);
  });
});

// Every input whose size the client chooses is bounded before the work it would cause: a 35 MB
// `_fields` list once kept a process busy for seconds. Each refusal below is shown to cost the
// service nothing: the request sends no command to the database (this app keeps no response cache,
// whose freshness check would be one).
describe('client-sized inputs, refused before any work', () => {
  let bounded: TestApp;
  let commands: string[] = [];
  let admin: Record<string, string>;

  beforeAll(async () => {
    bounded = await createTestApp({
      env: { CMS_RESPONSE_CACHE_BYTES: '0' },
      // Only what serving a request sends: start-up's own work may still be finishing. Every
      // request first looks at the change token, one read whatever it asks (docs/operations.md,
      // "What a process remembers"): no work the input causes.
      onCommand: (event) => {
        const command = `${event.commandName} ${String(event.command[event.commandName])}`;
        if (currentServiceWork() === 'request' && command !== 'find checkpoints') commands.push(command);
      },
    });
    admin = bounded.admin;
    // The administrator's first request reads its account; later ones within a second do not.
    await bounded.api('GET', '/cms/v2/users/me', { headers: admin });
  }, 60_000);
  afterAll(async () => {
    await bounded?.stop();
  });

  /** The answer to `request`, and the database commands sent while it was served. */
  async function counted(request: () => Promise<ApiResponse>): Promise<{ response: ApiResponse; commands: string[] }> {
    commands = [];
    given.counted();
    const response = await request();
    await nextTurn();
    return { response, commands };
  }

  /** A request with any method and body (fetch sends none with GET), answered before its body is read if the service so chooses. */
  function raw(method: string, route: string, options: { headers?: Record<string, string>; body?: string; contentType?: string; chunked?: boolean } = {}): Promise<ApiResponse> {
    return new Promise((resolve, reject) => {
      const body = options.body === undefined ? undefined : Buffer.from(options.body);
      const request = http.request(`${bounded.apiRoot}${route}`, {
        method,
        headers: {
          ...options.headers,
          ...(body ? { 'Content-Type': options.contentType ?? 'application/json' } : {}),
          ...(body ? (options.chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': String(body.length) }) : {}),
        },
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: response.statusCode ?? 0, headers: new Headers(response.headers as Record<string, string>), body: text ? JSON.parse(text) : text, text });
        });
      });
      // An answer given before the body was read may cut the upload short: the answer is what counts.
      request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
      if (body && options.chunked) {
        // Sent in pieces without a declared length: the limit is counted as it arrives.
        for (let at = 0; at < body.length; at += 16_384) request.write(body.subarray(at, at + 16_384));
        request.end();
      } else request.end(body);
    });
  }

  /**
   * Refused with `status` and `code` (and, for a parameter, named in `data.params` with `detail`'s
   * code), costing no database command; but for a body larger than an anonymous caller may send,
   * whose sender is authenticated before it is read (`authenticated`: its account may be read).
   */
  async function expectRefusedUnread(request: () => Promise<ApiResponse>, status: number, code: string, param?: { name: string; detail: string }, { authenticated = false } = {}) {
    const { response, commands: sent } = await counted(request);
    expect(response.status, response.text.slice(0, 300)).toBe(status);
    expect(response.body).toMatchObject({ code, data: { status } });
    if (param) {
      expect(Object.keys(response.body.data.params)).toEqual([param.name]);
      expect(response.body.data.details[param.name]).toMatchObject({ code: param.detail, data: { param: param.name } });
    }
    const work = authenticated ? sent.filter((command) => command !== 'find users') : sent;
    expect(work, 'database commands the refused request caused').toEqual([]);
  }

  const names = (count: number, prefix = 'f') => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

  it('refuses an anonymous body larger than an anonymous caller may send (413) unread, a logged-in caller\'s of the same size is read', async () => {
    const body = JSON.stringify({ _fields: names(150_000).join(',') });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    await expectRefusedUnread(() => raw('GET', '/cms/v2/posts?per_page=100', { body }), 413, 'rest_request_too_large');
    await expectRefusedUnread(() => raw('POST', '/cms/v2/posts', { body }), 413, 'rest_request_too_large');
    // Of unknown length (chunked): counted as it arrives, whatever parses it.
    await expectRefusedUnread(() => raw('GET', '/cms/v2/posts', { body, chunked: true }), 413, 'rest_request_too_large');
    // Many small fields, each within the limit, together past it.
    const multipart = `${names(500, 'p').map((name) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${'x'.repeat(200)}\r\n`).join('')}--b--\r\n`;
    await expectRefusedUnread(() => raw('POST', '/cms/v2/posts', { body: multipart, contentType: 'multipart/form-data; boundary=b', chunked: true }), 413, 'rest_request_too_large');
    await expectRefusedUnread(() => raw('POST', '/cms/v2/posts', { body: multipart, contentType: 'multipart/form-data; boundary=b' }), 413, 'rest_request_too_large');
    // The administrator may send as much; this one is refused for its `_fields`, not its size.
    const { response } = await counted(() => raw('GET', '/cms/v2/posts', { body, headers: admin }));
    expect(response.status).toBe(400);
    expect(response.body.data.params).toHaveProperty('_fields');
  });

  it(`refuses _fields of more than ${MAX_FIELDS} names or ${MAX_FIELDS_LENGTH} characters, in the query or the body`, async () => {
    await expectRefusedUnread(() => bounded.api('GET', `/cms/v2/posts?_fields=${names(MAX_FIELDS + 1).join(',')}`), 400, 'rest_invalid_param', { name: '_fields', detail: 'rest_too_many_items' });
    await expectRefusedUnread(() => bounded.api('GET', `/cms/v2/posts?_fields=${'a'.repeat(MAX_FIELDS_LENGTH + 1)}`), 400, 'rest_invalid_param', { name: '_fields', detail: 'rest_too_long' });
    await expectRefusedUnread(() => raw('GET', '/cms/v2/posts', { body: JSON.stringify({ _fields: names(1000) }), headers: admin }), 400, 'rest_invalid_param', { name: '_fields', detail: 'rest_too_long' });
    await expectRefusedUnread(() => raw('POST', '/cms/v2/posts', { body: JSON.stringify({ title: 'x', _fields: Array(MAX_FIELDS + 1).fill('id') }), headers: admin }), 400, 'rest_invalid_param', { name: '_fields', detail: 'rest_too_many_items' });
    // Within the bounds, and as a list of scalars only (`wp_parse_list`), it filters as before.
    const within = await bounded.api('GET', `/cms/v2/posts?_fields=${['id', ...names(MAX_FIELDS - 1)].join(',')}`);
    expect(within.status).toBe(200);
  });

  it(`refuses _embed naming more than ${MAX_EMBED_RELATIONS} relations`, async () => {
    await expectRefusedUnread(() => bounded.api('GET', `/cms/v2/posts?_embed=${names(MAX_EMBED_RELATIONS + 1, 'rel').join(',')}`), 400, 'rest_invalid_param', { name: '_embed', detail: 'rest_too_many_items' });
    await expectRefusedUnread(() => bounded.api('GET', `/cms/v2/posts?_embed=${'a'.repeat(2000)}`), 400, 'rest_invalid_param', { name: '_embed', detail: 'rest_too_long' });
  });

  it('refuses a _jsonp callback longer than 128 characters', async () => {
    const { response, commands: sent } = await counted(() => bounded.api('GET', `/cms/v2/posts?_jsonp=${'f'.repeat(129)}`));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ code: 'rest_callback_invalid' });
    expect(sent).toEqual([]);
  });

  it(`refuses more than ${MAX_PARAMS} parameters in a query string (400), a form body or a multipart body (413)`, async () => {
    const pairs = names(MAX_PARAMS + 1, 'p').map((name) => `${name}=1`).join('&');
    await expectRefusedUnread(() => bounded.api('GET', `/cms/v2/posts?${pairs}`), 400, 'rest_invalid_param');
    await expectRefusedUnread(() => raw('POST', '/cms/v2/posts', { body: `title=x&${pairs}`, contentType: 'application/x-www-form-urlencoded', headers: admin }), 413, 'rest_request_too_large');
    const multipart = `${names(MAX_PARAMS + 1, 'p').map((name) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n1\r\n`).join('')}--b--\r\n`;
    await expectRefusedUnread(() => raw('POST', '/cms/v2/posts', { body: multipart, contentType: 'multipart/form-data; boundary=b', headers: admin }), 413, 'rest_request_too_large');
  });

  it(`refuses a JSON body of more than ${MAX_JSON_VALUES} values (413) before parsing it, declared or chunked`, async () => {
    const members = names(MAX_JSON_VALUES + 1, 'k').map((key) => `"${key}":1`).join(',');
    const body = `{"title":"Wide","meta":{${members}}}`;
    const asAdmin = { authenticated: true };
    await expectRefusedUnread(() => raw('POST', '/cms/v2/posts', { body, headers: admin }), 413, 'rest_request_too_large', undefined, asAdmin);
    await expectRefusedUnread(() => raw('POST', '/cms/v2/posts', { body, headers: admin, chunked: true }), 413, 'rest_request_too_large', undefined, asAdmin);
    const list = `{"title":"Long","tags":[${Array(MAX_JSON_VALUES + 1).fill('""').join(',')}]}`;
    await expectRefusedUnread(() => raw('POST', '/cms/v2/posts', { body: list, headers: admin }), 413, 'rest_request_too_large', undefined, asAdmin);
    // Commas, brackets and braces inside strings are text, not values.
    const text = await bounded.api('POST', '/cms/v2/posts', { headers: admin, json: { title: 'Commas', content: '{[,'.repeat(MAX_JSON_VALUES) } });
    expect(text.status).toBe(201);
  });

  it(`refuses a list argument of more than ${MAX_LIST_ITEMS} items, however it is sent`, async () => {
    const ids = Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => i + 1);
    const include = { name: 'include', detail: 'rest_too_many_items' };
    await expectRefusedUnread(() => bounded.api('GET', `/cms/v2/posts?include=${ids.join(',')}`), 400, 'rest_invalid_param', include);
    await expectRefusedUnread(() => raw('GET', '/cms/v2/posts', { body: JSON.stringify({ include: ids }) }), 400, 'rest_invalid_param', include);
    await expectRefusedUnread(() => bounded.api('GET', `/cms/v2/categories?exclude=${ids.join(',')}`), 400, 'rest_invalid_param', { name: 'exclude', detail: 'rest_too_many_items' });
    await expectRefusedUnread(() => bounded.api('GET', `/cms/v2/posts?slug=${names(MAX_LIST_ITEMS + 1, 's').join(',')}`), 400, 'rest_invalid_param', { name: 'slug', detail: 'rest_too_many_items' });
  });

  it(`refuses a search term longer than ${MAX_SEARCH_LENGTH} characters`, async () => {
    const search = 'a'.repeat(MAX_SEARCH_LENGTH + 1);
    for (const route of ['/cms/v2/posts', '/cms/v2/pages', '/cms/v2/categories', '/cms/v2/tags', '/cms/v2/media']) {
      await expectRefusedUnread(() => bounded.api('GET', `${route}?search=${search}`), 400, 'rest_invalid_param', { name: 'search', detail: 'rest_too_long' });
    }
    const within = await bounded.api('GET', `/cms/v2/posts?search=${'a'.repeat(MAX_SEARCH_LENGTH)}`);
    expect(within.status).toBe(200);
  });

  it('states the bounds of every list and search argument in the index, for clients to see', async () => {
    const index = await bounded.api('GET', '/', { headers: admin });
    const unbounded: string[] = [];
    for (const [pattern, route] of Object.entries(index.body.routes as Record<string, { endpoints: { methods: string[]; args: Record<string, { type?: string | string[]; maxItems?: number; maxLength?: number }> }[] }>)) {
      for (const endpoint of route.endpoints) {
        for (const [name, arg] of Object.entries(endpoint.args)) {
          const types = ([] as string[]).concat(arg.type ?? []);
          if (types.includes('array') && arg.maxItems === undefined) unbounded.push(`${endpoint.methods.join(',')} ${pattern} ${name}`);
          if (name === 'search' && types.includes('string') && arg.maxLength === undefined) unbounded.push(`${endpoint.methods.join(',')} ${pattern} ${name}`);
        }
      }
    }
    expect(unbounded).toEqual([]);
  });

  it(`answers a diff of texts that differ in more than ${MAX_DIFF_EDITS} places as one hunk, marked as not minimal`, async () => {
    const text = (changed: (i: number) => boolean) => Array.from({ length: 3000 }, (_, i) => (changed(i) ? `changed line ${i}` : `line ${i}`)).join('\n');
    const post = await bounded.api('POST', '/cms/v2/posts', { headers: admin, json: { title: 'Diffed', content: text(() => false) } });
    await bounded.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: admin, json: { content: text(() => false).concat('\nend') } });
    await bounded.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: admin, json: { content: text((i) => i % 3 === 0) } });
    const revisions = await bounded.api('GET', `/cms/v2/posts/${post.body.id}/revisions`, { headers: admin, query: { _fields: 'id' } });
    const [newest, before] = revisions.body as { id: number }[];
    const diff = await bounded.api('GET', `/cms/v2/posts/${post.body.id}/revisions/${newest.id}/diff`, { headers: admin, query: { against: before.id } });
    expect(diff.status).toBe(200);
    const content = diff.body.fields.content;
    expect(content).toMatchObject({ changed: true, minimal: false, hunks: [{ oldStart: 1, oldLines: 3001, newStart: 1, newLines: 3000 }] });
    expect(content.hunks[0].lines.every((line: string) => line.startsWith('-') || line.startsWith('+'))).toBe(true);
    // The other fields are compared as before.
    expect(diff.body.fields.title).toEqual({ changed: false, hunks: [] });
  });

  it(`answers a diff longer than ${MAX_DIFF_CHARS} characters of lines with the hunks that fit, marked as truncated`, async () => {
    const text = (name: string) => Array.from({ length: 10_000 }, (_, i) => `${name} line ${i} ${'x'.repeat(32)}`).join('\n');
    const post = await bounded.api('POST', '/cms/v2/posts', { headers: admin, json: { title: 'Long diff', content: text('first') } });
    await bounded.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: admin, json: { content: text('second') } });
    await bounded.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: admin, json: { content: text('first') } });
    const revisions = await bounded.api('GET', `/cms/v2/posts/${post.body.id}/revisions`, { headers: admin, query: { _fields: 'id', per_page: 2 } });
    const [newest, before] = revisions.body as { id: number }[];
    const diff = await bounded.api('GET', `/cms/v2/posts/${post.body.id}/revisions/${newest.id}/diff`, { headers: admin, query: { against: before.id } });
    expect(diff.status).toBe(200);
    const content = diff.body.fields.content;
    expect(content).toMatchObject({ changed: true, minimal: false, truncated: true });
    const lines: string[] = content.hunks[0].lines;
    expect(lines.reduce((sum, line) => sum + line.length, 0)).toBeLessThanOrEqual(MAX_DIFF_CHARS);
    // The start of the texts, each side its share: a true patch of the lines it names.
    expect(content.hunks[0]).toMatchObject({ oldStart: 1, newStart: 1, oldLines: lines.filter((line) => line.startsWith('-')).length, newLines: lines.filter((line) => line.startsWith('+')).length });
    expect(lines[0]).toBe(`-second line 0 ${'x'.repeat(32)}`);
    expect(lines.at(-1)).toMatch(/^\+first line \d+ x+$/);
  });
});

describe('the change feed, /changes', () => {
  it('refuses a hostile Last-Event-ID or a position past the log\'s end with 400, before any stream opens', async () => {
    const failures: Failures = [];
    const stream = { ...app.admin, Accept: 'text/event-stream' };
    for (const resumed of ['-1', '1e400', 'NaN', 'abc', '__proto__', '9'.repeat(400), '1.5', '0x10', '9007199254740993']) {
      const response = await send('GET', '/cms/v2/changes', { headers: { ...stream, 'Last-Event-ID': resumed } });
      check(failures, `GET /changes Last-Event-ID: ${resumed.slice(0, 20)}`, response, { status: 400, code: 'rest_invalid_param' });
    }
    for (const since of ['9007199254740991', '1e15']) {
      for (const headers of [app.admin, stream, {}]) {
        const response = await send('GET', `/cms/v2/changes?since=${since}`, { headers });
        check(failures, `GET /changes?since=${since} (${headers === stream ? 'stream' : 'page'})`, response, { status: 400, code: 'rest_invalid_param' });
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers an anonymous page of diffs over a long post rewritten on every line within its bound, the rest on the next pages', async () => {
    const text = (name: string) => Array.from({ length: 6000 }, (_, i) => `${name} line ${i} ${'x'.repeat(32)}`).join('\n');
    const head = async () => (await changeLog(app.deps.store.db).firstFreePosition()) - 1;
    const since = await head();
    const post = await send('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Rewritten', content: text('first'), status: 'publish' } });
    for (let i = 0; i < 6; i++) await send('POST', `/cms/v2/posts/${post.body.id}`, { headers: app.admin, json: { content: text(i % 2 ? 'first' : 'second') } });
    const seqs: number[] = [];
    let cursor = since;
    while (cursor < (await head())) {
      const page = await send('GET', '/cms/v2/changes', { query: { since: cursor, limit: 500, include: 'diff' } });
      expect(page.status).toBe(200);
      expect(page.text.length).toBeLessThan(MAX_PAGE_CHARS + 3 * MAX_DIFF_CHARS + 64 * 1024);
      seqs.push(...page.body.changes.filter((change: { item: number }) => change.item === post.body.id).map((change: { seq: number }) => change.seq));
      cursor = page.body.last_position;
    }
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});
