import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

// WordPress's batch framework, `POST /batch/v1` (`WP_REST_Server::serve_batch_request_v1`): each
// request answered as if it came alone, in order, in one 207.

let app: TestApp;

interface Envelope {
  body: any;
  status: number;
  headers: Record<string, string | string[]>;
}

const batch = (json: unknown, headers: Record<string, string> = app.admin) => app.api('POST', '/batch/v1', { headers, json });

async function newPost(title: string): Promise<number> {
  const response = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title, status: 'publish' } });
  expect(response.status).toBe(201);
  return response.body.id;
}

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('the route', () => {
  it('is in the index as WordPress describes it, and answers OPTIONS with the same', async () => {
    const index = await app.api('GET', '/');
    const route = index.body.routes['/batch/v1'];
    expect(route).toEqual({
      namespace: '',
      methods: ['POST'],
      endpoints: [
        {
          methods: ['POST'],
          args: {
            validation: { type: 'string', enum: ['require-all-validate', 'normal'], default: 'normal', required: false },
            requests: {
              type: 'array',
              maxItems: 25,
              items: {
                type: 'object',
                properties: {
                  method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
                  path: { type: 'string', required: true },
                  body: { type: 'object', properties: {}, additionalProperties: true },
                  headers: { type: 'object', properties: {}, additionalProperties: { type: ['string', 'array'], items: { type: 'string' } } },
                },
              },
              required: true,
            },
          },
        },
      ],
      _links: { self: [{ href: `${app.apiRoot}/batch/v1` }] },
    });
    const options = await app.api('OPTIONS', '/batch/v1');
    expect(options.status).toBe(200);
    expect(options.body).toEqual(route);
    expect(options.headers.get('allow')).toBe('POST');
  });

  it('shows allow_batch {"v1": true} on the endpoints whose WordPress controllers declare it, and only there', async () => {
    const { routes } = (await app.api('GET', '/')).body as { routes: Record<string, { endpoints: { methods: string[]; allow_batch?: unknown }[] }> };
    const batched = ['posts', 'pages', 'categories', 'tags', 'menus', 'users', 'widgets', 'menu-items'].flatMap((base) => [
      `/cms/v2/${base}`,
      `/cms/v2/${base}/(?P<id>${base === 'widgets' ? '[\\w\\-]+' : '[\\d]+'})`,
    ]);
    for (const pattern of batched) {
      expect(routes[pattern], pattern).toBeDefined();
      for (const endpoint of routes[pattern].endpoints) expect(endpoint.allow_batch, `${endpoint.methods} ${pattern}`).toEqual({ v1: true });
      // Between `methods` and `args`, as WordPress writes it.
      expect(Object.keys(routes[pattern].endpoints[0])).toEqual(['methods', 'allow_batch', 'args']);
    }
    const others = Object.entries(routes).filter(([pattern]) => !batched.includes(pattern));
    expect(others.map(([pattern]) => pattern)).toEqual(expect.arrayContaining(['/cms/v2/media', '/cms/v2/users/me', '/cms/v2/posts/(?P<parent>[\\d]+)/revisions']));
    for (const [pattern, route] of others) {
      for (const endpoint of route.endpoints) expect(endpoint.allow_batch, `${endpoint.methods} ${pattern}`).toBeUndefined();
    }
    const single = await app.api('OPTIONS', '/cms/v2/posts/1');
    expect(single.body.endpoints.map((endpoint: { allow_batch?: unknown }) => endpoint.allow_batch)).toEqual([{ v1: true }, { v1: true }, { v1: true }]);
  });
});

describe('serving a batch', () => {
  it('answers 207 with each response in order, as the request alone would be answered', async () => {
    const id = await newPost('Batched before');
    const response = await batch({
      requests: [
        { path: '/cms/v2/posts', body: { title: 'Batched new', status: 'draft' } },
        { method: 'PUT', path: `/cms/v2/posts/${id}?_fields=id,title`, body: { title: 'Batched after' } },
        { path: '/cms/v2/categories?_fields=name', body: { name: 'Batched category' } },
        { method: 'DELETE', path: `/cms/v2/posts/${id}` },
      ],
    });
    expect(response.status).toBe(207);
    expect(response.body).not.toHaveProperty('failed');
    const [created, updated, category, trashed] = response.body.responses as Envelope[];
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: { raw: 'Batched new' }, status: 'draft' });
    expect(created.body._links.self[0].href).toBe(`${app.apiRoot}/cms/v2/posts/${created.body.id}`);
    expect(created.headers.Location).toBe(`${app.apiRoot}/cms/v2/posts/${created.body.id}`);
    expect(created.headers.Allow).toBe('GET, POST');
    expect(updated).toMatchObject({ status: 200, body: { id, title: { raw: 'Batched after', rendered: 'Batched after' } } });
    expect(Object.keys(updated.body)).toEqual(['id', 'title']);
    expect(category).toMatchObject({ status: 201, body: { name: 'Batched category' } });
    expect(Object.keys(category.body)).toEqual(['name']);
    expect(trashed).toMatchObject({ status: 200, body: { id, status: 'trash' } });

    const read = await app.api('GET', `/cms/v2/posts/${created.body.id}`, { headers: app.admin, query: { context: 'edit' } });
    expect(read.body.title.raw).toBe('Batched new');
    expect((await app.api('GET', `/cms/v2/posts/${id}`, { headers: app.admin, query: { context: 'edit' } })).body).toMatchObject({ title: { raw: 'Batched after' }, status: 'trash' });
  });

  it('checks each request with its own permission, as the batch user', async () => {
    const contributor = await app.asRole('contributor');
    const response = await batch(
      {
        requests: [
          { path: '/cms/v2/posts', body: { title: 'By a contributor' } },
          { path: '/cms/v2/categories', body: { name: 'Not for contributors' } },
          { path: '/cms/v2/posts', body: { title: 'Published by a contributor', status: 'publish' } },
        ],
      },
      contributor.headers,
    );
    expect(response.status).toBe(207);
    const [post, category, published] = response.body.responses as Envelope[];
    expect(post.status).toBe(201);
    expect(post.body.author).toBe(contributor.id);
    expect(category).toMatchObject({ status: 403, body: { code: 'rest_cannot_create', data: { status: 403 } } });
    expect(published).toMatchObject({ status: 403, body: { code: 'rest_cannot_publish', data: { status: 403 } } });

    const anonymous = await app.api('POST', '/batch/v1', { json: { requests: [{ path: '/cms/v2/posts', body: { title: 'Anonymous' } }] } });
    expect(anonymous.status).toBe(207);
    expect(anonymous.body.responses[0]).toMatchObject({ status: 401, body: { code: 'rest_cannot_create' } });
  });

  it('passes headers to each request: a stale If-Match refuses only its own request', async () => {
    const id = await newPost('Guarded in a batch');
    const etag = (await app.api('GET', `/cms/v2/posts/${id}`, { headers: app.admin })).headers.get('etag')!;
    const response = await batch({
      requests: [
        { path: `/cms/v2/posts/${id}`, headers: { 'If-Match': etag }, body: { title: 'Guarded once' } },
        { path: `/cms/v2/posts/${id}`, headers: { 'If-Match': [etag] }, body: { title: 'Guarded twice' } },
      ],
    });
    expect(response.body.responses.map((item: Envelope) => item.status)).toEqual([200, 412]);
    expect(response.body.responses[1].body.code).toBe('rest_precondition_failed');
  });

  it('answers each refused request in its place and runs the others ("normal" validation)', async () => {
    const response = await batch({
      requests: [
        { path: '/cms/v2/tags', body: { name: 'Normal one' } },
        { path: '/cms/v2/categories', body: { name: 'Bad parent', parent: 'x' } },
        { path: '/cms/v2/tags', body: {} },
        { path: '/cms/v2/nowhere' },
        { path: '/cms/v2/media', body: { title: 'Not batched' } },
        { path: '/batch/v1', body: { requests: [{ path: '/cms/v2/tags', body: { name: 'Nested' } }] } },
        { path: '/cms/v2/tags', body: { name: 'Normal two' } },
      ],
    });
    expect(response.status).toBe(207);
    const statuses = (response.body.responses as Envelope[]).map((item) => [item.status, item.body.code]);
    expect(statuses).toEqual([
      [201, undefined],
      [400, 'rest_invalid_param'],
      [400, 'rest_missing_callback_param'],
      [404, 'rest_no_route'],
      [400, 'rest_batch_not_allowed'],
      [400, 'rest_batch_not_allowed'],
      [201, undefined],
    ]);
    expect(response.body.responses[4].body).toEqual({ code: 'rest_batch_not_allowed', message: 'The requested route does not support batch requests.', data: { status: 400 } });
    const names = (await app.api('GET', '/cms/v2/tags', { query: { search: 'Normal', _fields: 'name' } })).body.map((tag: { name: string }) => tag.name);
    expect(names.sort()).toEqual(['Normal one', 'Normal two']);
    expect((await app.api('GET', '/cms/v2/tags', { query: { search: 'Nested' } })).body).toEqual([]);
  });

  it('runs nothing when one request is refused with "require-all-validate"', async () => {
    const response = await batch({
      validation: 'require-all-validate',
      requests: [
        { path: '/cms/v2/tags', body: { name: 'All or nothing' } },
        { path: '/cms/v2/categories', body: { name: 'All or nothing, bad', parent: 'x' } },
      ],
    });
    expect(response.status).toBe(207);
    expect(response.body.failed).toBe('validation');
    expect(response.body.responses[0]).toBeNull();
    expect(response.body.responses[1]).toMatchObject({ status: 400, body: { code: 'rest_invalid_param', data: { status: 400, params: { parent: expect.any(String) } } } });
    expect((await app.api('GET', '/cms/v2/tags', { query: { search: 'All or nothing' } })).body).toEqual([]);

    const valid = await batch({ validation: 'require-all-validate', requests: [{ path: '/cms/v2/tags', body: { name: 'All valid' } }] });
    expect(valid.body).not.toHaveProperty('failed');
    expect(valid.body.responses[0].status).toBe(201);
  });

  it('refuses more than 25 requests, a method other than a write, and a request without a path, before running any', async () => {
    const tooMany = await batch({ requests: Array.from({ length: 26 }, (_, i) => ({ path: '/cms/v2/tags', body: { name: `Too many ${i}` } })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { requests: 'requests must contain at most 25 items.' } } });
    const get = await batch({ requests: [{ method: 'GET', path: '/cms/v2/tags' }] });
    expect(get.status).toBe(400);
    expect(get.body.data.params.requests).toBe('requests[0][method] is not one of POST, PUT, PATCH, DELETE.');
    const pathless = await batch({ requests: [{ body: { name: 'No path' } }] });
    expect(pathless.status).toBe(400);
    expect(pathless.body.code).toBe('rest_invalid_param');
    expect((await batch({})).body.code).toBe('rest_missing_callback_param');
    expect((await app.api('GET', '/cms/v2/tags', { query: { search: 'Too many' } })).body).toEqual([]);

    const full = await batch({ requests: Array.from({ length: 25 }, (_, i) => ({ path: '/cms/v2/tags', body: { name: `Twenty-five ${i}` } })) });
    expect(full.status).toBe(207);
    expect(full.body.responses.every((item: Envelope) => item.status === 201)).toBe(true);
  });

  it('puts each request through the client-input checks: hostile names stay names, deep keys and bad paths are refused', async () => {
    const response = await app.api('POST', '/batch/v1', {
      headers: app.admin,
      raw: {
        contentType: 'application/json',
        body: JSON.stringify({
          requests: [
            { path: '/cms/v2/tags?__proto__[polluted]=1&constructor[prototype][polluted]=1', body: { name: 'Hostile names' } },
            { path: '/cms/v2/tags', body: JSON.parse('{"name":"Proto body","__proto__":{"polluted":true}}') },
            { path: `/cms/v2/tags?${`a${'[a]'.repeat(100)}`}=1`, body: { name: 'Too deep' } },
            { path: '/cms/v2/tags/%E0%A4%A', body: { name: 'Bad path' } },
            { path: '/cms/v2/tags', headers: JSON.parse('{"__proto__":"x","constructor":["y"]}'), body: { name: 'Hostile headers' } },
          ],
        }),
      },
    });
    expect(response.status).toBe(207);
    const statuses = (response.body.responses as Envelope[]).map((item) => [item.status, item.body.code ?? 'ok']);
    expect(statuses).toEqual([
      [201, 'ok'],
      [201, 'ok'],
      [400, 'rest_invalid_param'],
      [400, 'parse_path_failed'],
      [201, 'ok'],
    ]);
    expect(response.text).not.toMatch(/polluted/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses the whole batch, before any request runs, for a NUL or a number that is not finite anywhere in it', async () => {
    const bodies = [
      '{"requests":[{"path":"/cms/v2/tags","body":{"name":"Before NUL"}},{"path":"/cms/v2/tags","body":{"name":"a\\u0000b"}}]}',
      '{"requests":[{"path":"/cms/v2/tags","body":{"name":"Before NUL"}},{"path":"/cms/v2/tags","headers":{"X-Bad":"a\\u0000b"}}]}',
      '{"requests":[{"path":"/cms/v2/tags","body":{"name":"Before NUL"}},{"path":"/cms/v2/tags","body":{"count":1e400}}]}',
    ];
    for (const body of bodies) {
      const response = await app.api('POST', '/batch/v1', { headers: app.admin, raw: { contentType: 'application/json', body } });
      expect(response.status, body).toBe(400);
      expect(response.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
    }
    expect((await app.api('GET', '/cms/v2/tags', { query: { search: 'Before NUL' } })).body).toEqual([]);
    // Without its fault, the same batch runs.
    const clean = await batch({ requests: [{ path: '/cms/v2/tags', body: { name: 'Before NUL' } }, { path: '/cms/v2/tags', body: { name: 'ab' } }] });
    expect(clean.status).toBe(207);
    expect((await app.api('GET', '/cms/v2/tags', { query: { search: 'Before NUL' } })).body).toHaveLength(1);
  });

  it('is a write for every cache: an anonymous read after a batch sees what it changed', async () => {
    const id = await newPost('Cached before');
    const before = await app.api('GET', `/cms/v2/posts/${id}`);
    expect(before.body.title.rendered).toBe('Cached before');
    expect((await app.api('GET', `/cms/v2/posts/${id}`)).headers.get('etag')).toBe(before.headers.get('etag'));
    const response = await batch({ requests: [{ path: `/cms/v2/posts/${id}`, body: { title: 'Cached after' } }] });
    expect(response.body.responses[0].status).toBe(200);
    expect((await app.api('GET', `/cms/v2/posts/${id}`)).body.title.rendered).toBe('Cached after');
  });

  it('records each write as its own change-log command', async () => {
    const id = await newPost('Logged once');
    await batch({
      requests: [
        { path: `/cms/v2/posts/${id}`, body: { title: 'Logged twice' } },
        { path: `/cms/v2/posts/${id}`, body: { title: 'Logged', status: 'nonsense' } },
        { path: `/cms/v2/posts/${id}`, body: { title: 'Logged thrice' } },
      ],
    });
    const events = await app.deps.store.db.collection('events').find({ stream: id }).sort({ seq: 1 }).toArray();
    expect(events.map((event) => [event.seq, event.type])).toEqual([[1, 'created'], [2, 'updated'], [3, 'updated']]);
    const read = await app.api('GET', `/cms/v2/posts/${id}`, { headers: app.admin, query: { context: 'edit' } });
    expect(read.body.title.raw).toBe('Logged thrice');
  });
});
