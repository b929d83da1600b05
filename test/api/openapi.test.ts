import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRetention } from '../../src/store/projections/change-feed.js';
import { OpenApiConformance } from '../support/openapi-conformance.js';
import { createTestApp, type ApiResponse, type RequestOptions, type TestApp } from '../support/test-app.js';

let app: TestApp;
let document: Record<string, any>;
let conformance: OpenApiConformance;
let subscriber: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp();
  subscriber = (await app.asRole('subscriber')).headers;
  document = (await app.api('GET', '/openapi.json')).body;
  conformance = new OpenApiConformance(document);
});
afterAll(async () => {
  await app?.stop();
});

/** Sends requests and keeps each answer, to check them all against the document at the end. */
function recorder() {
  const seen: { method: string; route: string; response: ApiResponse }[] = [];
  const send = async (method: string, route: string, options: RequestOptions = {}) => {
    const response = await app.api(method, route, options);
    seen.push({ method, route, response });
    return response;
  };
  const asAdmin = (method: string, route: string, options: RequestOptions = {}) =>
    send(method, route, { ...options, headers: { ...app.admin, ...options.headers } });
  const problems = () => seen.flatMap(({ method, route, response }) => conformance.problems(method, route, response));
  const statuses = () => seen.map(({ method, route, response }) => `${method} ${route.replace(/\/[\da-f-]*\d[\da-f-]*(?=\/|$)/g, '/N')} ${response.status}`);
  return { send, asAdmin, problems, statuses };
}

describe('the OpenAPI document describes what the service sends', () => {
  it('for posts and pages: lists, items, dates without an offset, trashed and deleted items', async () => {
    const { send, asAdmin, problems, statuses } = recorder();
    for (const base of ['posts', 'pages']) {
      const draft = (await asAdmin('POST', `/cms/v2/${base}`, { json: { title: 'Draft', content: 'One.' } })).body;
      const published = (await asAdmin('POST', `/cms/v2/${base}`, { json: { title: 'Out', content: 'Two.', status: 'publish' } })).body;
      expect(published.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      await send('GET', `/cms/v2/${base}`);
      await asAdmin('GET', `/cms/v2/${base}`, { query: { context: 'edit', status: 'any' } });
      await send('GET', `/cms/v2/${base}/${published.id}`);
      await asAdmin('GET', `/cms/v2/${base}/${draft.id}`, { query: { context: 'edit' } });
      await asAdmin('POST', `/cms/v2/${base}/${draft.id}`, { json: { content: 'One, again.' } });
      await asAdmin('PATCH', `/cms/v2/${base}/${draft.id}`, { json: { title: 'Draft, again' } });
      expect((await asAdmin('DELETE', `/cms/v2/${base}/${draft.id}`)).body.status).toBe('trash');
      await asAdmin('GET', `/cms/v2/${base}`, { query: { status: 'trash', context: 'edit' } });
      await asAdmin('GET', `/cms/v2/${base}/${draft.id}`, { query: { context: 'edit' } });
      expect((await asAdmin('DELETE', `/cms/v2/${base}/${published.id}`, { query: { force: 'true' } })).body.deleted).toBe(true);
      await send('GET', `/cms/v2/${base}/${published.id}`);
    }
    expect(statuses()).toContain('DELETE /cms/v2/posts/N 200');
    expect(problems()).toEqual([]);
  });

  it('for revisions, diffs, restore, autosaves and history', async () => {
    const { asAdmin, problems } = recorder();
    const post = (await asAdmin('POST', '/cms/v2/posts', { json: { title: 'Revisioned', content: 'First.', status: 'publish' } })).body;
    await asAdmin('POST', `/cms/v2/posts/${post.id}`, { json: { content: 'Second.' } });
    await asAdmin('POST', `/cms/v2/posts/${post.id}`, { json: { content: 'Third.' } });
    const revisions = (await asAdmin('GET', `/cms/v2/posts/${post.id}/revisions`, { query: { context: 'edit' } })).body;
    expect(revisions.length).toBeGreaterThan(1);
    await asAdmin('GET', `/cms/v2/posts/${post.id}/revisions/${revisions[0].id}`);
    await asAdmin('GET', `/cms/v2/posts/${post.id}/revisions/${revisions[0].id}/diff`);
    await asAdmin('POST', `/cms/v2/posts/${post.id}/revisions/${revisions[1].id}/restore`);
    const autosave = (await asAdmin('POST', `/cms/v2/posts/${post.id}/autosaves`, { json: { content: 'Typing.' } })).body;
    await asAdmin('GET', `/cms/v2/posts/${post.id}/autosaves`);
    await asAdmin('GET', `/cms/v2/posts/${post.id}/autosaves/${autosave.id}`, { query: { context: 'edit' } });
    await asAdmin('GET', `/cms/v2/posts/${post.id}/history`);
    // Saved over the caller's own draft, an autosave answers with the draft, dates not yet set.
    const draft = (await asAdmin('POST', '/cms/v2/posts', { json: { title: 'Draft' } })).body;
    expect((await asAdmin('POST', `/cms/v2/posts/${draft.id}/autosaves`, { json: { content: 'Typing over.' } })).body.date_gmt).toBeNull();
    await asAdmin('DELETE', `/cms/v2/posts/${post.id}/revisions/${revisions[1].id}`);
    await asAdmin('DELETE', `/cms/v2/posts/${post.id}/revisions/${revisions[1].id}`, { query: { force: 'true' } });
    await asAdmin('GET', `/cms/v2/posts/${post.id}/revisions/${revisions[1].id}`);
    expect(problems()).toEqual([]);
  });

  it('for menus, menu items and their revisions, templates trashed and deleted', async () => {
    const { asAdmin, problems } = recorder();
    const menu = (await asAdmin('POST', '/cms/v2/menus', { json: { name: 'Documented', locations: ['primary'] } })).body;
    const item = (await asAdmin('POST', '/cms/v2/menu-items', { json: { title: 'Docs', url: 'https://example.org/', menus: menu.id } })).body;
    await asAdmin('POST', `/cms/v2/menu-items/${item.id}`, { json: { classes: ['a'] } });
    await asAdmin('POST', `/cms/v2/menu-items/${item.id}/autosaves`, { json: { title: 'Docs, autosaved' } });
    const [revision] = (await asAdmin('GET', `/cms/v2/menu-items/${item.id}/revisions`, { query: { context: 'edit' } })).body;
    await asAdmin('GET', `/cms/v2/menu-items/${item.id}/revisions/${revision.id}/diff`);
    await asAdmin('GET', '/cms/v2/menu-items', { query: { menus: [menu.id], context: 'edit' } });
    await asAdmin('GET', '/cms/v2/menu-locations');
    await asAdmin('DELETE', `/cms/v2/menu-items/${item.id}`, { query: { force: true } });
    const template = (await asAdmin('POST', '/cms/v2/templates', { json: { slug: 'documented', title: 'Documented' } })).body;
    const route = `/cms/v2/templates/${encodeURIComponent(template.id)}`;
    expect((await asAdmin('DELETE', route)).body.status).toBe('trash');
    expect((await asAdmin('DELETE', route, { query: { force: true } })).body.deleted).toBe(true);
    expect(problems()).toEqual([]);
  });

  it('for URLs WordPress sends empty: a menu item whose object is gone, a plugin header naming none', async () => {
    const { asAdmin, problems } = recorder();
    const menu = (await asAdmin('POST', '/cms/v2/menus', { json: { name: 'Pointing nowhere' } })).body;
    const category = (await asAdmin('POST', '/cms/v2/categories', { json: { name: 'Soon gone' } })).body;
    const page = (await asAdmin('POST', '/cms/v2/pages', { json: { title: 'Soon gone too', status: 'publish' } })).body;
    const items = [
      (await asAdmin('POST', '/cms/v2/menu-items', { json: { type: 'taxonomy', object: 'category', object_id: category.id, menus: menu.id } })).body,
      (await asAdmin('POST', '/cms/v2/menu-items', { json: { type: 'post_type', object: 'page', object_id: page.id, menus: menu.id } })).body,
    ];
    await asAdmin('DELETE', `/cms/v2/categories/${category.id}`, { query: { force: true } });
    await asAdmin('DELETE', `/cms/v2/pages/${page.id}`, { query: { force: true } });
    for (const item of items) expect((await asAdmin('GET', `/cms/v2/menu-items/${item.id}`)).body.url).toBe('');
    // The fuzzer's case: an object named by the client is taken as sent (WordPress looks one up only
    // when none is sent), and a taxonomy item whose object is a post type points nowhere.
    const other = (await asAdmin('POST', '/cms/v2/pages', { json: { title: 'Not a term', status: 'publish' } })).body;
    const renamed = await asAdmin('PUT', `/cms/v2/menu-items/${items[0].id}`, { json: { type: 'taxonomy', object: 'page', object_id: other.id, status: 'draft', url: '' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ url: '', invalid: true });
    await asAdmin('GET', '/cms/v2/menu-items', { query: { menus: [menu.id], context: 'edit' } });
    // Its header names neither the plugin's site nor its author's.
    const plugin = (await asAdmin('POST', '/cms/v2/plugins', { json: { slug: 'reading-time' } })).body;
    expect([plugin.plugin_uri, plugin.author_uri]).toEqual(['', '']);
    await asAdmin('GET', '/cms/v2/plugins');
    await asAdmin('DELETE', `/cms/v2/plugins/${encodeURIComponent(plugin.plugin)}`);
    expect(problems()).toEqual([]);
  });

  it('for users and application passwords', async () => {
    const { send, asAdmin, problems } = recorder();
    const user = (await asAdmin('POST', '/cms/v2/users', { json: { username: 'openapi', email: 'openapi@example.test', password: 'a password' } })).body;
    await send('GET', '/cms/v2/users');
    await asAdmin('GET', '/cms/v2/users', { query: { context: 'edit' } });
    await asAdmin('GET', `/cms/v2/users/${user.id}`, { query: { context: 'edit' } });
    await asAdmin('GET', '/cms/v2/users/me');
    await asAdmin('POST', `/cms/v2/users/${user.id}`, { json: { name: 'Open API' } });
    const password = (await asAdmin('POST', `/cms/v2/users/${user.id}/application-passwords`, { json: { name: 'fuzzer' } })).body;
    await asAdmin('POST', `/cms/v2/users/${user.id}/application-passwords`, { json: { name: 'second' } });
    await asAdmin('GET', `/cms/v2/users/${user.id}/application-passwords`);
    await asAdmin('GET', `/cms/v2/users/${user.id}/application-passwords/${password.uuid}`);
    await asAdmin('POST', `/cms/v2/users/${user.id}/application-passwords/${password.uuid}`, { json: { name: 'renamed' } });
    await asAdmin('DELETE', `/cms/v2/users/${user.id}/application-passwords/${password.uuid}`);
    await asAdmin('DELETE', `/cms/v2/users/${user.id}/application-passwords`);
    expect((await asAdmin('DELETE', `/cms/v2/users/${user.id}`, { query: { reassign: 'false' } })).status).toBe(501);
    await asAdmin('DELETE', `/cms/v2/users/${user.id}`, { query: { force: 'true', reassign: 'false' } });
    await send('GET', '/cms/v2/users/me');
    expect(problems()).toEqual([]);
  });

  it('for terms, registries keyed by slug, settings and the indexes', async () => {
    const { send, asAdmin, problems } = recorder();
    for (const base of ['categories', 'tags']) {
      const term = (await asAdmin('POST', `/cms/v2/${base}`, { json: { name: `A ${base}` } })).body;
      await send('GET', `/cms/v2/${base}`);
      await send('GET', `/cms/v2/${base}/${term.id}`);
      await asAdmin('POST', `/cms/v2/${base}/${term.id}`, { json: { description: 'Described.' } });
      await asAdmin('DELETE', `/cms/v2/${base}/${term.id}`);
      await asAdmin('DELETE', `/cms/v2/${base}/${term.id}`, { query: { force: 'true' } });
    }
    for (const base of ['statuses', 'types', 'taxonomies']) {
      const list = await asAdmin('GET', `/cms/v2/${base}`, { query: { context: 'edit' } });
      expect(Array.isArray(list.body)).toBe(false);
      await send('GET', `/cms/v2/${base}`);
      await send('GET', `/cms/v2/${base}/${Object.keys(list.body)[0]}`);
    }
    await asAdmin('GET', '/cms/v2/settings');
    await asAdmin('POST', '/cms/v2/settings', { json: { title: 'Described' } });
    await send('GET', '/cms/v2');
    await send('GET', '/');
    expect(problems()).toEqual([]);
  });

  it('for the change feed: pages with and without items and diffs, a long poll, and its refusals', async () => {
    const { send, asAdmin, problems, statuses } = recorder();
    const post = (await asAdmin('POST', '/cms/v2/posts', { json: { title: 'Fed', content: 'One.', status: 'publish' } })).body;
    await asAdmin('POST', `/cms/v2/posts/${post.id}`, { json: { content: 'Two.' } });
    const all = await asAdmin('GET', '/cms/v2/changes', { query: { include: 'item' } });
    expect(all.body.changes.length).toBeGreaterThan(1);
    await asAdmin('GET', '/cms/v2/changes', { query: { include: 'diff', types: ['post'], subtypes: ['updated'] } });
    await send('GET', '/cms/v2/changes', { query: { include: 'diff' } });
    await send('GET', '/cms/v2/changes', { query: { since: all.body.last_position, feed: 'longpoll', timeout: 50 } });
    await send('GET', '/cms/v2/changes', { query: { since: all.body.last_position + 100 } });
    await recordRetention(app.deps.store.db, 3);
    await send('GET', '/cms/v2/changes', { query: { since: 0 } });
    expect(statuses()).toEqual(expect.arrayContaining(['GET /cms/v2/changes 200', 'GET /cms/v2/changes 400', 'GET /cms/v2/changes 410']));
    expect(problems()).toEqual([]);
  });

  it('for errors, in the contract\'s shape', async () => {
    const { send, problems, statuses } = recorder();
    await send('GET', '/cms/v2/posts/999999');
    await send('GET', '/cms/v2/posts', { query: { per_page: 0 } });
    await send('POST', '/cms/v2/posts', { json: { title: 'Anonymous' } });
    await send('POST', '/cms/v2/posts', { json: { title: 'Subscriber' }, headers: subscriber });
    await send('POST', '/cms/v2/users', { json: {}, headers: app.admin });
    await send('GET', '/cms/v2/posts', { query: { status: 'draft' } });
    expect(statuses()).toEqual([
      'GET /cms/v2/posts/N 404', 'GET /cms/v2/posts 400', 'POST /cms/v2/posts 401',
      'POST /cms/v2/posts 403', 'POST /cms/v2/users 400', 'GET /cms/v2/posts 400',
    ]);
    expect(problems()).toEqual([]);
  });

  it('for a batch: 207 with one envelope, or null, per request', async () => {
    const { asAdmin, problems, statuses } = recorder();
    const requests = [
      { path: '/cms/v2/tags', body: { name: 'Documented batch' } },
      { path: '/cms/v2/tags', body: { name: 'Documented batch, bad', count: 'x' } },
      { path: '/cms/v2/media' },
    ];
    await asAdmin('POST', '/batch/v1', { json: { requests } });
    await asAdmin('POST', '/batch/v1', { json: { validation: 'require-all-validate', requests: [{ path: '/cms/v2/tags', body: { name: 'Valid' } }, { path: '/batch/v1' }] } });
    await asAdmin('POST', '/batch/v1', { json: { requests: Array.from({ length: 26 }, () => requests[0]) } });
    expect(statuses()).toEqual(['POST /batch/v1 207', 'POST /batch/v1 207', 'POST /batch/v1 400']);
    expect(document.paths['/batch/v1'].post.requestBody.content['application/json'].schema.properties.requests.maxItems).toBe(25);
    expect(problems()).toEqual([]);
  });

  it('groups each operation under the resource its path names, each group listed once', () => {
    const tagged = Object.entries<Record<string, { tags: string[] }>>(document.paths).flatMap(([path, item]) => Object.values(item).map((operation) => [path, operation.tags] as const));
    expect(tagged.filter(([, tags]) => tags?.length !== 1)).toEqual([]);
    const tagOf = (path: string) => tagged.find(([p]) => p === path)![1][0];
    expect(tagOf('/cms/v2/posts/{parent}/revisions/{id}')).toBe('posts');
    expect(tagOf('/cms/v2/menu-items')).toBe('menu-items');
    expect(tagOf('/batch/v1')).toBe('batch');
    expect(tagOf('/cms/v2')).toBe('cms/v2');
    const names = document.tags.map((tag: { name: string }) => tag.name);
    expect(names).toEqual([...new Set(tagged.map(([, tags]) => tags[0]))].sort());
  });

  it('takes exactly the parameters and body fields that the index lists for each endpoint', async () => {
    const index = (await app.api('GET', '/')).body;
    const mismatches: string[] = [];
    for (const [pattern, route] of Object.entries<any>(index.routes)) {
      const path = pattern.replace(/\(\?P<(\w+)>(?:[^()]|\([^()]*\))*\)/g, '{$1}');
      for (const endpoint of route.endpoints) {
        for (const method of endpoint.methods) {
          const operation = document.paths[path]?.[method.toLowerCase()];
          if (!operation) {
            mismatches.push(`${method} ${path} is missing`);
            continue;
          }
          // An upload's body is the file (its fields are documented in the query): no JSON body to compare.
          const body = operation.requestBody?.content['application/json']?.schema;
          // Headers are no arguments; every write documents `Idempotency-Key`, and only that one.
          const headers = operation.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name);
          if (headers.join() !== (method === 'GET' ? '' : 'Idempotency-Key')) mismatches.push(`${method} ${path}: documents headers ${headers.join()}`);
          const documented = [...operation.parameters.filter((p: { in: string }) => p.in !== 'header').map((p: { name: string }) => p.name), ...Object.keys(body?.properties ?? {})];
          const declared = Object.keys(endpoint.args);
          const required = Object.entries<any>(endpoint.args).filter(([, arg]) => arg.required).map(([name]) => name);
          const documentedRequired = [
            ...operation.parameters.filter((p: { in: string; required: boolean }) => p.in !== 'path' && p.required).map((p: { name: string }) => p.name),
            ...(body?.required ?? []),
          ];
          const pathParameters = operation.parameters.filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name);
          if ([...new Set(documented)].sort().join() !== [...new Set([...declared, ...pathParameters])].sort().join()) {
            mismatches.push(`${method} ${path}: documents ${documented.sort().join()} for args ${declared.sort().join()}`);
          }
          if (documentedRequired.sort().join() !== required.filter((name) => !pathParameters.includes(name)).sort().join()) {
            mismatches.push(`${method} ${path}: requires ${documentedRequired.join()} for ${required.join()}`);
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe('the OpenAPI document lets a generator reach every route', () => {
  // Schemathesis drops every generated path value holding a `/` (or `%2F`) unless the parameter's
  // examples show one: an id shaped `<theme>//<slug>` was then almost never generated, and the
  // operation failed its health check.
  it('gives every path parameter whose ids hold a `/` examples that hold one, and every example matches its pattern', async () => {
    // WordPress's pattern, but the service's global styles ids are numbers: none holds a `/`.
    const neverSlashed = ['/cms/v2/global-styles/{id}'];
    const slashed: string[] = [];
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'path' || typeof parameter.schema.pattern !== 'string') continue;
          const pattern = new RegExp(parameter.schema.pattern);
          const examples = Object.values(parameter.examples ?? {}).map((example: any) => example.value as string);
          expect(examples.filter((value) => !pattern.test(value)), `${method} ${path} {${parameter.name}}`).toEqual([]);
          if (neverSlashed.includes(path) || !['a/b', 'a//b'].some((value) => pattern.test(value))) continue;
          slashed.push(`${method.toUpperCase()} ${path}`);
          expect(examples.filter((value) => value.includes('/')), `${method} ${path} {${parameter.name}}`).not.toEqual([]);
        }
      }
    }
    expect(slashed).toEqual(expect.arrayContaining(['PUT /cms/v2/templates/{id}', 'GET /cms/v2/template-parts/{id}', 'DELETE /cms/v2/template-parts/{id}', 'GET /cms/v2/plugins/{plugin}', 'GET /cms/v2/themes/{stylesheet}']));
  });

  it('with template ids that name the default theme’s own templates and parts', async () => {
    for (const base of ['templates', 'template-parts']) {
      const examples = Object.values(document.paths[`/cms/v2/${base}/{id}`].get.parameters.find((p: any) => p.name === 'id').examples);
      const found = await Promise.all(examples.map((example: any) => app.api('GET', `/cms/v2/${base}/${example.value}`, { headers: app.admin })));
      expect(found.map((response) => response.status)).toContain(200);
    }
  });
});
