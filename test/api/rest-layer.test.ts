import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Authenticate } from '../../src/app.js';
import { RestServer } from '../../src/rest/rest-server.js';
import { asUser, demoAuthenticate } from '../support/demo-auth.js';
import { notesResource, renderCount } from '../support/demo-notes.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
/** The collections of the commands the app sent to the database, in order. */
const sentTo: string[] = [];
const admin = asUser(1);
const editor = asUser(2);

async function createNote(fields: Record<string, unknown>) {
  const response = await app.api('POST', '/demo/v1/notes', { json: fields, headers: admin });
  expect(response.status).toBe(201);
  return response.body as { id: number } & Record<string, unknown>;
}

beforeAll(async () => {
  app = await createTestApp({ resources: [notesResource], authenticate: demoAuthenticate, onCommand: (event) => sentTo.push(String(event.command[event.commandName])) });
});
afterAll(async () => {
  await app?.stop();
});

describe('discovery', () => {
  it('serves the index with every route, its methods and args', async () => {
    const { status, body } = await app.api('GET', '/');
    expect(status).toBe(200);
    expect(body).toMatchObject({ url: app.siteUrl, home: app.siteUrl, namespaces: ['demo/v1'] });
    expect(Object.keys(body.routes)).toEqual(
      expect.arrayContaining(['/', '/demo/v1', '/demo/v1/notes', '/demo/v1/notes/(?P<id>[\\d]+)']),
    );
    const notes = body.routes['/demo/v1/notes'];
    expect(notes.methods).toEqual(['GET', 'POST']);
    expect(notes._links.self[0].href).toBe(`${app.apiRoot}/demo/v1/notes`);
    expect(notes.endpoints[1].args.title).toEqual({ type: 'string', minLength: 1, maxLength: 50, required: true });
    expect(notes.endpoints[0].args.per_page).toMatchObject({ default: 10, minimum: 1, maximum: 100, required: false });
    expect(body.routes['/demo/v1/notes/(?P<id>[\\d]+)']._links).toBeUndefined();
    expect(body.routes['/demo/v1/notes'].schema).toBeUndefined();
    expect(body._links.help[0].href).toMatch(/^https:/);
  });

  it('serves a namespace index with only that namespace', async () => {
    const { status, body } = await app.api('GET', '/demo/v1');
    expect(status).toBe(200);
    expect(body.namespace).toBe('demo/v1');
    expect(Object.keys(body.routes).every((route) => route.startsWith('/demo/v1'))).toBe(true);
    expect(body._links.up[0].href).toBe(`${app.apiRoot}/`);
  });

  it('answers every route through ?rest_route=, with or without the leading slash', async () => {
    await createNote({ title: 'routed' });
    const pretty = await app.api('GET', '/demo/v1/notes', { query: { search: 'routed' } });
    for (const route of ['/demo/v1/notes', 'demo/v1/notes', '/demo/v1/notes/']) {
      const plain = await app.site('GET', `/?rest_route=${encodeURIComponent(route)}&search=routed`);
      expect(plain.status).toBe(200);
      expect(plain.body).toEqual(pretty.body);
      expect(plain.headers.get('x-wp-total')).toBe('1');
    }
    const index = await app.site('GET', '/?rest_route=/');
    expect(index.body.namespaces).toEqual(['demo/v1']);
  });

  it('points every page of the site at the API with a Link header', async () => {
    const expected = `<${app.apiRoot}/>; rel="https://api.w.org/"`;
    for (const path of ['/', '/cms-json/', '/cms-json/demo/v1/notes', '/healthz', '/no-such-page', '/cms-json/nothing']) {
      const response = await app.site('GET', path);
      expect(response.headers.get('link'), path).toContain(expected);
    }
    const root = await app.site('GET', '/');
    expect(root.text).toContain(`<link rel="https://api.w.org/" href="${app.apiRoot}/">`);
  });

  it('publishes an OpenAPI 3.1 document generated from the routes', async () => {
    const { status, body } = await app.api('GET', '/openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    const item = body.paths['/demo/v1/notes/{id}'];
    expect(Object.keys(item)).toEqual(['get', 'post', 'put', 'patch', 'delete']);
    expect(item.get.parameters).toContainEqual(expect.objectContaining({ name: 'id', in: 'path', required: true }));
    expect(item.get.parameters).toContainEqual(expect.objectContaining({ name: 'context', in: 'query' }));
    const create = body.paths['/demo/v1/notes'].post;
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['title']);
    const note = create.responses['201'].content['application/json'].schema.$ref.replace('#/components/schemas/', '');
    expect(body.components.schemas[note].properties.title.type).toBe('string');
  });
});

describe('argument validation', () => {
  it('reports an out-of-range per_page as WordPress does', async () => {
    const { status, body } = await app.api('GET', '/demo/v1/notes', { query: { per_page: 0 } });
    expect(status).toBe(400);
    expect(body).toEqual({
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): per_page',
      data: {
        status: 400,
        params: { per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)' },
        details: {
          per_page: {
            code: 'rest_out_of_bounds',
            message: 'per_page must be between 1 (inclusive) and 100 (inclusive)',
            data: { status: 400, param: 'per_page' },
          },
        },
      },
    });
    const tooMany = await app.api('GET', '/demo/v1/notes', { query: { per_page: 101 } });
    expect(tooMany.status).toBe(400);
  });

  it('reports every bad parameter at once, each with its code', async () => {
    const { status, body } = await app.api('GET', '/demo/v1/notes', {
      query: { per_page: 'many', order: 'sideways', page: '1.5', context: 'print' },
    });
    expect(status).toBe(400);
    expect(Object.keys(body.data.params).sort()).toEqual(['context', 'order', 'page', 'per_page']);
    expect(body.data.details.per_page.code).toBe('rest_invalid_type');
    expect(body.data.params.per_page).toBe('per_page is not of type integer.');
    expect(body.data.details.order.code).toBe('rest_not_in_enum');
    expect(body.data.params.order).toBe('order is not one of asc, desc.');
    expect(body.data.params.context).toBe('context is not one of view, embed, edit.');
  });

  it('names missing required parameters', async () => {
    const { status, body } = await app.api('POST', '/demo/v1/notes', { json: { priority: 2 }, headers: admin });
    expect(status).toBe(400);
    expect(body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): title',
      data: { status: 400, params: ['title'] },
    });
  });

  it('validates before checking permission', async () => {
    const { status, body } = await app.api('POST', '/demo/v1/notes', { json: { title: 'x', priority: 9 } });
    expect(status).toBe(400);
    expect(body.data.details.priority.code).toBe('rest_out_of_bounds');
  });

  it('maps formats and array rules to WordPress codes', async () => {
    const { body } = await app.api('POST', '/demo/v1/notes', {
      headers: admin,
      json: { title: '', email: 'not-an-email', due: 'yesterday', tags: ['a', 'a'], pinned: 'perhaps', status: 'gone' },
    });
    const codes = Object.fromEntries(Object.entries(body.data.details).map(([name, detail]: [string, any]) => [name, detail.code]));
    expect(codes).toEqual({
      title: 'rest_too_short',
      email: 'rest_invalid_email',
      due: 'rest_invalid_date',
      tags: 'rest_duplicate_items',
      pinned: 'rest_invalid_type',
      status: 'rest_not_in_enum',
    });
  });

  it('coerces query-string and form values to their schema types', async () => {
    const a = await createNote({ title: 'coerce-a' });
    const b = await createNote({ title: 'coerce-b' });
    for (const include of [`${a.id},${b.id}`, `${a.id} ${b.id}`]) {
      const list = await app.api('GET', '/demo/v1/notes', { query: { include } });
      expect(list.body.map((note: any) => note.id).sort()).toEqual([a.id, b.id].sort());
    }
    const arrayForm = await app.api('GET', '/demo/v1/notes', { query: { include: [a.id, b.id] } });
    expect(arrayForm.body).toHaveLength(2);

    const form = await app.api('POST', '/demo/v1/notes', {
      headers: admin,
      form: { title: 'form', priority: '5', pinned: 'true', 'tags[]': 'x', 'body[raw]': 'hello', due: '2026-01-02T03:04:05' },
    });
    expect(form.status).toBe(201);
    expect(form.body).toMatchObject({ title: 'form', priority: 5, pinned: true, tags: ['x'], body: { raw: 'hello' }, due: '2026-01-02T03:04:05' });

    const zero = await app.api('PATCH', `/demo/v1/notes/${form.body.id}`, { headers: admin, form: { pinned: '0' } });
    expect(zero.body.pinned).toBe(false);
  });

  it('reads multipart bodies', async () => {
    const body = new FormData();
    body.append('title', 'multipart');
    body.append('priority', '4');
    const response = await app.api('POST', '/demo/v1/notes', { headers: admin, raw: { body } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ title: 'multipart', priority: 4 });
  });

  it('applies schema defaults on create only', async () => {
    const note = await createNote({ title: 'defaults' });
    expect(note).toMatchObject({ priority: 3, status: 'publish', pinned: false });
    await app.api('POST', `/demo/v1/notes/${note.id}`, { headers: admin, json: { priority: 1 } });
    const updated = await app.api('PUT', `/demo/v1/notes/${note.id}`, { headers: admin, json: { title: 'renamed' } });
    expect(updated.body).toMatchObject({ title: 'renamed', priority: 1 });
  });
});

describe('bodies and errors', () => {
  it('refuses invalid JSON with rest_invalid_json, after matching the route', async () => {
    const bad = { raw: { body: '{"title": ', contentType: 'application/json' }, headers: admin };
    const response = await app.api('POST', '/demo/v1/notes', bad);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('rest_invalid_json');
    expect(response.body.data.status).toBe(400);
    const unknown = await app.api('POST', '/demo/v1/nowhere', bad);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('rest_no_route');
  });

  it('answers unknown routes and methods with 404 rest_no_route', async () => {
    for (const [method, route] of [['GET', '/demo/v1/nowhere'], ['PATCH', '/demo/v1/notes'], ['GET', '/demo/v1/notes/abc']]) {
      const response = await app.api(method, route);
      expect(response.status, `${method} ${route}`).toBe(404);
      expect(response.body).toEqual({
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method.',
        data: { status: 404 },
      });
      expect(response.headers.get('allow')).toBeNull();
    }
  });

  it('hides the cause of an unexpected failure and logs it with the request id', async () => {
    const response = await app.api('GET', '/demo/v1/boom', { headers: { 'X-Request-Id': 'req-boom-1' } });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      code: 'internal_server_error',
      message: 'There has been a critical error on this website.',
      data: { status: 500 },
    });
    expect(response.text).not.toContain('kaboom');
    const line = app.logs.find((entry) => entry.msg === 'request failed' && (entry.err as any)?.message?.includes('kaboom'));
    expect(line?.reqId).toBe('req-boom-1');
  });

  it('refuses a body over the configured limit with 413', async () => {
    const small = await createTestApp({ resources: [notesResource], authenticate: demoAuthenticate, env: { CMS_BODY_LIMIT_BYTES: '1000' } });
    try {
      const json = await small.api('POST', '/demo/v1/notes', { headers: admin, json: { title: 'x'.repeat(5000) } });
      expect(json.status).toBe(413);
      expect(json.body.code).toBe('rest_request_too_large');
      const form = await small.api('POST', '/demo/v1/notes', { headers: admin, form: { title: 'x'.repeat(5000) } });
      expect(form.status).toBe(413);
      const ok = await small.api('POST', '/demo/v1/notes', { headers: admin, json: { title: 'fits' } });
      expect(ok.status).toBe(201);
    } finally {
      await small.stop();
    }
  });

  it('finds a request\'s route once, and authenticates a large body once', async () => {
    const authentications: string[] = [];
    const counting: Authenticate = (credentials) => {
      authentications.push(credentials.headers['x-demo-user'] ?? '');
      return demoAuthenticate(credentials);
    };
    const small = await createTestApp({ resources: [notesResource], authenticate: counting, env: { CMS_ANONYMOUS_BODY_LIMIT_BYTES: '1000' } });
    const lookups = vi.spyOn(RestServer.prototype, 'lookup');
    try {
      // Over the anonymous limit: the caller is found before the body is read, and that answer is kept.
      const created = await small.api('POST', '/demo/v1/notes', { headers: admin, json: { title: 'large', body: { raw: 'x'.repeat(5000) } } });
      expect(created.status).toBe(201);
      expect(authentications).toEqual(['1']);
      expect(lookups).toHaveBeenCalledTimes(1);
      const read = await small.api('GET', `/demo/v1/notes/${created.body.id}`, { headers: editor });
      expect(read.status).toBe(200);
      expect(authentications).toEqual(['1', '2']);
      expect(lookups).toHaveBeenCalledTimes(2);
    } finally {
      lookups.mockRestore();
      await small.stop();
    }
  });

  it('answers failed authentication with its own error on any route', async () => {
    const response = await app.api('GET', '/demo/v1/notes', { headers: { 'X-Demo-User': 'bad' } });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('invalid_username');
  });
});

describe('permissions', () => {
  it('answers 401 to anonymous callers and 403 to users without the right', async () => {
    const note = await createNote({ title: 'guarded' });
    const anonymous = await app.api('POST', '/demo/v1/notes', { json: { title: 'x' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } });
    const denied = await app.api('DELETE', `/demo/v1/notes/${note.id}`, { headers: editor, query: { force: true } });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('rest_forbidden');
    const edit = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { context: 'edit' } });
    expect(edit.status).toBe(401);
    expect(edit.body.code).toBe('rest_forbidden_context');
  });

  it('lists in Allow only the methods the caller may use', async () => {
    const note = await createNote({ title: 'allow' });
    const route = `/demo/v1/notes/${note.id}`;
    expect((await app.api('GET', route)).headers.get('allow')).toBe('GET');
    expect((await app.api('GET', route, { headers: editor })).headers.get('allow')).toBe('GET, POST, PUT, PATCH');
    expect((await app.api('GET', route, { headers: admin })).headers.get('allow')).toBe('GET, POST, PUT, PATCH, DELETE');
    const failed = await app.api('POST', '/demo/v1/notes', { json: {} });
    expect(failed.status).toBe(400);
    expect(failed.headers.get('allow')).toBe('GET');
  });
});

describe('context, _fields and links', () => {
  it('filters fields and nested properties by context', async () => {
    const note = await createNote({ title: 'ctx', secret: 's3', body: { raw: 'text' } });
    const view = await app.api('GET', `/demo/v1/notes/${note.id}`);
    expect(view.body.secret).toBeUndefined();
    expect(view.body.body).toEqual({ rendered: '<p>text</p>' });
    const edit = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { context: 'edit' }, headers: editor });
    expect(edit.body).toMatchObject({ secret: 's3', body: { raw: 'text', rendered: '<p>text</p>' } });
    const embed = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { context: 'embed' } });
    expect(Object.keys(embed.body).sort()).toEqual(['_links', 'id', 'title']);
    expect(note.secret).toBe('s3');
  });

  it('returns only the fields asked for, and does not compute the others', async () => {
    const note = await createNote({ title: 'fields', body: { raw: 'b' } });
    const before = renderCount.value;
    const comma = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { _fields: 'id,title' } });
    expect(comma.body).toEqual({ id: note.id, title: 'fields' });
    expect(renderCount.value).toBe(before);
    const nested = await app.api('GET', `/demo/v1/notes/${note.id}`, {
      headers: editor,
      query: { context: 'edit', _fields: ['id', 'body.raw'] },
    });
    expect(nested.body).toEqual({ id: note.id, body: { raw: 'b' } });
    expect(renderCount.value).toBe(before + 1);
    const list = await app.api('GET', '/demo/v1/notes', { query: { _fields: 'title', include: note.id } });
    expect(list.body).toEqual([{ title: 'fields' }]);
    const withLinks = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { _fields: 'id,_links' } });
    expect(Object.keys(withLinks.body)).toEqual(['id', '_links']);
    const error = await app.api('GET', '/demo/v1/notes/999999999', { query: { _fields: 'id' } });
    expect(error.body.code).toBe('rest_note_invalid_id');
  });

  it('compacts api.w.org relations to wp: with curies', async () => {
    const target = await createNote({ title: 'target' });
    const note = await createNote({ title: 'linked', related: target.id });
    const { body } = await app.api('GET', `/demo/v1/notes/${note.id}`);
    expect(body._links['wp:related']).toEqual([{ href: `${app.apiRoot}/demo/v1/notes/${target.id}`, embeddable: true }]);
    expect(body._links.curies).toEqual([{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }]);
    expect(body._links.self[0].href).toBe(`${app.apiRoot}/demo/v1/notes/${note.id}`);
  });

  it('embeds embeddable links in embed context, all or only the named relations', async () => {
    const target = await createNote({ title: 'embedded target', secret: 'hidden' });
    const note = await createNote({ title: 'embedding', related: target.id });
    const all = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { _embed: '' } });
    expect(all.body._embedded['wp:related']).toEqual([
      { id: target.id, title: 'embedded target', _links: expect.objectContaining({ self: expect.any(Array) }) },
    ]);
    expect(all.body._embedded.collection).toBeUndefined();
    const named = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { _embed: 'wp:related' } });
    expect(named.body._embedded['wp:related'][0].id).toBe(target.id);
    const other = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { _embed: 'author' } });
    expect(other.body._embedded).toBeUndefined();
    const list = await app.api('GET', '/demo/v1/notes', { query: { _embed: 1, include: note.id } });
    expect(list.body[0]._embedded['wp:related'][0].title).toBe('embedded target');
    const fields = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { _embed: 1, _fields: 'id,_embedded' } });
    expect(Object.keys(fields.body)).toEqual(['id', '_embedded']);
  });

  it('embeds an error object when the linked item cannot be fetched', async () => {
    const note = await createNote({ title: 'dangling', related: 987654321 });
    const { body } = await app.api('GET', `/demo/v1/notes/${note.id}`, { query: { _embed: 1 } });
    expect(body._embedded['wp:related']).toEqual([
      { code: 'rest_note_invalid_id', message: 'Invalid note ID.', data: { status: 404 } },
    ]);
  });
});

describe('global parameters', () => {
  it('overrides the method of a POST with _method or X-HTTP-Method-Override', async () => {
    const note = await createNote({ title: 'override' });
    const patched = await app.api('POST', `/demo/v1/notes/${note.id}`, {
      headers: { ...admin, 'X-HTTP-Method-Override': 'PATCH' },
      json: { title: 'patched' },
    });
    expect(patched.body.title).toBe('patched');
    const ignored = await app.api('GET', `/demo/v1/notes/${note.id}`, { headers: admin, query: { _method: 'DELETE', force: true } });
    expect(ignored.status).toBe(200);
    expect((await app.api('GET', `/demo/v1/notes/${note.id}`)).status).toBe(200);
    const deleted = await app.api('POST', `/demo/v1/notes/${note.id}`, { headers: admin, query: { _method: 'DELETE', force: true } });
    expect(deleted.body.deleted).toBe(true);
    expect((await app.api('GET', `/demo/v1/notes/${note.id}`)).status).toBe(404);
  });

  it('wraps the answer in an envelope with _envelope', async () => {
    await createNote({ title: 'enveloped' });
    const list = await app.api('GET', '/demo/v1/notes', { query: { _envelope: '', search: 'enveloped' } });
    expect(list.status).toBe(200);
    expect(list.body.status).toBe(200);
    expect(list.body.headers['X-WP-Total']).toBe('1');
    expect(list.body.body[0].title).toBe('enveloped');
    expect(list.headers.get('x-wp-total')).toBeNull();
    const missing = await app.api('GET', '/demo/v1/notes/123456789', { query: { _envelope: 1 } });
    expect(missing.status).toBe(200);
    expect(missing.body).toMatchObject({ status: 404, body: { code: 'rest_note_invalid_id' } });
  });

  it('wraps the answer in a JSONP callback, refusing unsafe names', async () => {
    const ok = await app.api('GET', '/demo/v1', { query: { _jsonp: 'my.callback_1' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/javascript; charset=UTF-8');
    expect(ok.text.startsWith('/**/my.callback_1({"namespace":"demo/v1"')).toBe(true);
    expect(ok.text.endsWith(')')).toBe(true);
    const bad = await app.api('GET', '/demo/v1', { query: { _jsonp: 'alert(1)//' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/javascript; charset=UTF-8');
    expect(JSON.parse(bad.text)).toEqual({ code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.' });
  });
});

describe('collections', () => {
  it('paginates with X-WP-Total, X-WP-TotalPages and Link prev/next', async () => {
    for (let i = 0; i < 5; i++) await createNote({ title: `paged ${i}` });
    const page2 = await app.api('GET', '/demo/v1/notes', { query: { search: 'paged', per_page: 2, page: 2 } });
    expect(page2.status).toBe(200);
    expect(page2.body.map((note: any) => note.title)).toEqual(['paged 2', 'paged 3']);
    expect(page2.headers.get('x-wp-total')).toBe('5');
    expect(page2.headers.get('x-wp-totalpages')).toBe('3');
    const link = page2.headers.get('link')!;
    expect(link).toContain(`<${app.apiRoot}/demo/v1/notes?search=paged&per_page=2&page=1>; rel="prev"`);
    expect(link).toContain(`<${app.apiRoot}/demo/v1/notes?search=paged&per_page=2&page=3>; rel="next"`);
    const last = await app.api('GET', '/demo/v1/notes', { query: { search: 'paged', per_page: 2, page: 3 } });
    expect(last.headers.get('link')).not.toContain('rel="next"');
    const offset = await app.api('GET', '/demo/v1/notes', { query: { search: 'paged', per_page: 2, offset: 3 } });
    expect(offset.body.map((note: any) => note.title)).toEqual(['paged 3', 'paged 4']);
  });

  it('refuses a page past the last, but not on an empty collection', async () => {
    const past = await app.api('GET', '/demo/v1/notes', { query: { search: 'paged', per_page: 2, page: 4 } });
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('rest_note_invalid_page_number');
    const empty = await app.api('GET', '/demo/v1/notes', { query: { search: 'no such title', page: 3 } });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect(empty.headers.get('x-wp-total')).toBe('0');
    expect(empty.headers.get('x-wp-totalpages')).toBe('0');
  });

  it('streams NDJSON', async () => {
    const response = await app.api('GET', '/demo/v1/notes/stream');
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=UTF-8');
    const lines = response.text.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(5);
    expect(lines[0]).toEqual({ id: expect.any(Number), title: expect.any(String) });
  });
});

describe('methods and headers', () => {
  it('creates with 201 and Location, updates with POST, PUT and PATCH, deletes with force', async () => {
    const response = await app.api('POST', '/demo/v1/notes', { headers: admin, json: { title: 'life' } });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${app.apiRoot}/demo/v1/notes/${response.body.id}`);
    const route = `/demo/v1/notes/${response.body.id}`;
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const updated = await app.api(method, route, { headers: admin, json: { title: method } });
      expect(updated.status).toBe(200);
      expect(updated.body.title).toBe(method);
    }
    const trash = await app.api('DELETE', route, { headers: admin });
    expect(trash.status).toBe(501);
    expect(trash.body.code).toBe('rest_trash_not_supported');
    const deleted = await app.api('DELETE', route, { headers: admin, query: { force: true } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id: response.body.id, title: 'PATCH' } });
    expect(deleted.body.previous._links).toBeUndefined();
  });

  it('answers HEAD like GET without a body', async () => {
    const get = await app.api('GET', '/demo/v1/notes', { query: { per_page: 1 } });
    const head = await app.api('HEAD', '/demo/v1/notes', { query: { per_page: 1 } });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('x-wp-total')).toBe(get.headers.get('x-wp-total'));
    expect(head.headers.get('link')).toBe(get.headers.get('link'));
  });

  it('describes a route on OPTIONS, and answers an unknown path with an empty list', async () => {
    const { status, body, headers } = await app.api('OPTIONS', '/demo/v1/notes');
    expect(status).toBe(200);
    expect(body.namespace).toBe('demo/v1');
    expect(body.methods).toEqual(['GET', 'POST']);
    expect(body.endpoints[1].args.title.required).toBe(true);
    expect(body.schema.properties.secret).toEqual({ type: 'string', context: ['edit'] });
    expect(body.schema.title).toBe('note');
    expect(headers.get('allow')).toBe('GET');
    const unknown = await app.api('OPTIONS', '/demo/v1/unknown');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual([]);
  });

  it('sends the headers WordPress sends on every API response', async () => {
    const plain = await app.api('GET', '/demo/v1');
    expect(plain.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(plain.headers.get('x-robots-tag')).toBe('noindex');
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
    // WordPress's, and the `Idempotency-Key` a browser client may send and the replay's mark it may read.
    expect(plain.headers.get('access-control-expose-headers')).toBe('X-WP-Total, X-WP-TotalPages, Link, Idempotent-Replayed');
    expect(plain.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(plain.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    expect(plain.headers.get('vary')).toBe('Origin');
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    expect(plain.headers.get('cache-control')).toBeNull();

    const cors = await app.api('GET', '/demo/v1', { headers: { Origin: 'https://editor.example' } });
    expect(cors.headers.get('access-control-allow-origin')).toBe('https://editor.example');
    expect(cors.headers.get('access-control-allow-credentials')).toBe('true');
    expect(cors.headers.get('access-control-allow-methods')).toBe('OPTIONS, GET, POST, PUT, PATCH, DELETE');

    const authenticated = await app.api('GET', '/demo/v1', { headers: editor });
    expect(authenticated.headers.get('cache-control')).toBe('no-cache, must-revalidate, max-age=0, no-store, private');
    expect(authenticated.headers.get('expires')).toBe('Wed, 11 Jan 1984 05:00:00 GMT');
  });

  it('drains before it stops: not ready, still serving, for CMS_DRAIN_MS', async () => {
    const other = await createTestApp({ resources: [notesResource], env: { CMS_DRAIN_MS: '1500' } });
    const stopped = other.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ready = await other.site('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'stopping' });
    expect((await other.site('GET', '/healthz')).status).toBe(200);
    expect((await other.api('GET', '/demo/v1')).status).toBe(200);
    await stopped;
    await expect(other.api('GET', '/demo/v1')).rejects.toThrow();
  });

  it('lets a request in flight finish when the service stops', async () => {
    const other = await createTestApp({ resources: [notesResource] });
    const slow = other.api('GET', '/demo/v1/slow');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await other.stop();
    const response = await slow;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ finished: true });
    await expect(other.api('GET', '/demo/v1')).rejects.toThrow();
  });

  it('answers liveness without the database, and readiness from a database ping', async () => {
    const live = await app.site('GET', '/healthz');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await app.site('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', database: 'up' });
    // A proxy asks several times a second: faults are looked for only while there may be one.
    const from = sentTo.length;
    for (let i = 0; i < 5; i++) expect((await app.site('GET', '/readyz')).status).toBe(200);
    expect(sentTo.slice(from).filter((collection) => collection === 'projection_faults').length).toBeLessThanOrEqual(1);
  });
});
