// The contract every resource keeps, checked over every readable route the index lists rather than
// resource by resource: context filtering by the route's schema, `_fields`, 401 for anonymous
// callers and 403 for users when refused, OPTIONS, an unknown context, and links that lead
// somewhere. An item route is checked at the first item its collection lists; the data is made
// over HTTP, as a client makes it.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';

interface IndexedRoute {
  namespace: string;
  methods: string[];
  endpoints: { methods: string[]; args: Record<string, { enum?: string[] }> }[];
}

interface SchemaProperty {
  context?: string[];
}

interface CheckedRoute {
  pattern: string;
  /** The route's URL, relative to the API root, with its parameters filled in. */
  path: string;
  route: IndexedRoute;
  contexts: string[];
  /** The schema's properties, as OPTIONS shows them. */
  properties: Record<string, SchemaProperty>;
  /** OPTIONS at `path`, as the administrator. */
  options: ApiResponse;
  /** The answer is an object of items keyed by name (statuses, types) rather than a list or an item. */
  keyed: boolean;
}

let app: TestApp;
let subscriber: Record<string, string>;
let checked: CheckedRoute[];

// A named group `(?P<name>regex)`, its regex holding groups two deep at most.
const PARAMETER = /\(\?P<(\w+)>(?:[^()]|\((?:[^()]|\([^()]*\))*\))+\)/g;

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The items of an answer: a list's, a keyed collection's, or the one item of an item route. */
function itemsOf(body: unknown, keyed: boolean): Record<string, unknown>[] {
  if (Array.isArray(body)) return body.filter(isObject);
  if (!isObject(body)) return [];
  return keyed ? Object.values(body).filter(isObject) : [body];
}

/**
 * The route's URL with each parameter filled in from the first item the URL before it lists
 * (`/posts/(?P<parent>…)/revisions/(?P<id>…)`: a post's id, then one of its revisions'); undefined
 * when a list is empty.
 */
async function concretePath(pattern: string): Promise<string | undefined> {
  let resolved = '';
  let from = 0;
  for (const match of pattern.matchAll(PARAMETER)) {
    const collection = resolved + pattern.slice(from, match.index).replace(/\/$/, '');
    const listed = await app.api('GET', collection, { headers: app.admin, query: { context: 'edit' } });
    if (listed.status !== 200) return undefined;
    const first: unknown = Array.isArray(listed.body) ? listed.body[0] : undefined;
    const value = isObject(first) ? first[match[1]] ?? first.id ?? first.slug : isObject(listed.body) ? Object.keys(listed.body)[0] : undefined;
    if (typeof value !== 'string' && typeof value !== 'number') return undefined;
    resolved = `${collection}/${encodeURIComponent(String(value))}`;
    from = match.index + match[0].length;
  }
  return resolved + pattern.slice(from);
}

beforeAll(async () => {
  app = await createTestApp();
  subscriber = (await app.asRole('subscriber')).headers;
  // Something in every content collection, made as a client makes it.
  const post = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Contract', content: '<p>Checked.</p>', status: 'publish' } });
  expect(post.status).toBe(201);
  expect((await app.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: app.admin, json: { content: '<p>Checked again.</p>' } })).status).toBe(200);
  expect((await app.api('POST', '/cms/v2/pages', { headers: app.admin, json: { title: 'Contract page', status: 'publish' } })).status).toBe(201);
  expect((await app.api('POST', '/cms/v2/tags', { headers: app.admin, json: { name: 'contract' } })).status).toBe(201);
  const menu = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Contract menu' } });
  expect(menu.status).toBe(201);
  const item = await app.api('POST', '/cms/v2/menu-items', { headers: app.admin, json: { title: 'Home', url: 'https://example.org/', menus: menu.body.id, status: 'publish' } });
  expect(item.status).toBe(201);
  const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#808080' } }).png().toBuffer();
  const upload = await app.api('POST', '/cms/v2/media', {
    raw: { body: new Uint8Array(png), contentType: 'image/png' },
    headers: { ...app.admin, 'Content-Disposition': 'attachment; filename="contract.png"' },
  });
  expect(upload.status).toBe(201);

  const { routes } = (await app.api('GET', '/')).body as { routes: Record<string, IndexedRoute> };
  checked = [];
  for (const [pattern, route] of Object.entries(routes)) {
    if (route.namespace !== 'cms/v2' || !route.methods.includes('GET')) continue;
    const path = await concretePath(pattern);
    if (path === undefined) continue;
    const read = await app.api('GET', path, { headers: app.admin });
    if (read.status !== 200) continue;
    const keyed = !pattern.includes('(?P<') && isObject(read.body) && Object.values(read.body).length > 0 && Object.values(read.body).every(isObject);
    const readEndpoint = route.endpoints.find((endpoint) => endpoint.methods.includes('GET'))!;
    const options = await app.api('OPTIONS', path, { headers: app.admin });
    const properties = (options.body?.schema?.properties ?? {}) as Record<string, SchemaProperty>;
    checked.push({ pattern, path, route, contexts: readEndpoint.args.context?.enum ?? [], properties, options, keyed });
  }
});
afterAll(async () => {
  await app?.stop();
});

describe('every readable route', () => {
  it('covers the collections and the items under them', () => {
    const collections = checked.filter((route) => !route.pattern.includes('(?P<'));
    expect(collections.length).toBeGreaterThan(20);
    expect(checked.length - collections.length).toBeGreaterThan(20);
    for (const required of ['/cms/v2/posts/(?P<id>[\\d]+)', '/cms/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)', '/cms/v2/statuses/(?P<status>[\\w-]+)', '/cms/v2/menu-items/(?P<id>[\\d]+)', '/cms/v2/media/(?P<id>[\\d]+)']) {
      expect(checked.map((route) => route.pattern)).toContain(required);
    }
  });

  it('answers OPTIONS with the route as the index shows it, its schema, and Allow', async () => {
    for (const { pattern, path, route, options } of checked) {
      expect(options.status, path).toBe(200);
      expect(options.body.namespace, path).toBe('cms/v2');
      expect(options.body.methods, path).toEqual(route.methods);
      expect(options.body.endpoints.length, path).toBe(route.endpoints.length);
      const allowed = options.headers.get('allow')?.split(', ') ?? [];
      expect(allowed, pattern).toContain('GET');
      for (const method of allowed) expect(route.methods, `${path} Allow`).toContain(method);
    }
  });

  it('shows in each context only the fields its schema gives that context', async () => {
    let filtered = 0;
    for (const { path, contexts, keyed, properties } of checked) {
      for (const context of contexts) {
        const answer = await app.api('GET', path, { headers: app.admin, query: { context } });
        if (answer.status !== 200) continue;
        for (const item of itemsOf(answer.body, keyed)) {
          for (const key of Object.keys(item)) {
            const allowedIn = properties[key]?.context;
            if (allowedIn) expect(allowedIn, `${path}?context=${context}: ${key}`).toContain(context);
          }
          filtered++;
        }
      }
    }
    expect(filtered).toBeGreaterThan(50);
  });

  it('refuses a context the route does not have with 400 rest_invalid_param, naming those it has', async () => {
    for (const { path, contexts } of checked) {
      if (!contexts.length) continue;
      const { status, body } = await app.api('GET', path, { headers: app.admin, query: { context: 'print' } });
      expect(status, path).toBe(400);
      expect(body.code, path).toBe('rest_invalid_param');
      // WordPress's `rest_validate_enum` wording, which names a lone value without "one of".
      const allowed = contexts.length === 1 ? contexts[0] : `one of ${contexts.join(', ')}`;
      expect(body.data.params, path).toEqual({ context: `context is not ${allowed}.` });
    }
  });

  it('keeps only the fields `_fields` names', async () => {
    let kept = 0;
    for (const { path, properties, keyed } of checked) {
      const field = Object.entries(properties).find(([, property]) => !property.context || property.context.includes('view'))?.[0];
      if (!field) continue;
      const answer = await app.api('GET', path, { headers: app.admin, query: { _fields: field } });
      if (answer.status !== 200) continue;
      for (const item of itemsOf(answer.body, keyed)) {
        expect(Object.keys(item).filter((key) => key !== field), `${path}?_fields=${field}`).toEqual([]);
        kept++;
      }
    }
    expect(kept).toBeGreaterThan(30);
  });

  it('refuses anonymous callers with 401 and users with 403, in the contract error shape', async () => {
    let refusals = 0;
    for (const { path, contexts } of checked) {
      const queries: Record<string, string>[] = [{}, ...(contexts.includes('edit') ? [{ context: 'edit' }] : [])];
      for (const query of queries) {
        const anonymous = await app.api('GET', path, { query });
        const user = await app.api('GET', path, { headers: subscriber, query });
        for (const [who, answer, refused] of [['anonymous', anonymous, 401], ['subscriber', user, 403]] as const) {
          if (answer.status !== 401 && answer.status !== 403) continue;
          refusals++;
          expect(answer.status, `${who} ${path} ${JSON.stringify(query)}`).toBe(refused);
          expect(answer.body, `${who} ${path}`).toMatchObject({ code: expect.any(String), message: expect.any(String), data: { status: refused } });
        }
      }
    }
    expect(refusals).toBeGreaterThan(20);
  });

  it('links each answer to URLs of the site, its self and collection links leading to a 200', async () => {
    let followed = 0;
    for (const { path, keyed } of checked) {
      const answer = await app.api('GET', path, { headers: app.admin });
      if (answer.status !== 200) continue;
      for (const item of itemsOf(answer.body, keyed).slice(0, 1)) {
        const links = item._links as Record<string, { href: string; templated?: boolean }[]> | undefined;
        for (const [relation, targets] of Object.entries(links ?? {})) {
          for (const { href, templated } of targets) {
            if (templated) continue;
            // Links to the site are absolute URLs of this site; others (WordPress's relation pages, a menu item's URL) leave it.
            if (new URL(href).hostname === new URL(app.siteUrl).hostname) expect(href.startsWith(`${app.siteUrl}/`), `${path} ${relation}: ${href}`).toBe(true);
            if ((relation === 'self' || relation === 'collection') && href.startsWith(`${app.apiRoot}/`)) {
              const target = await app.api('GET', href.slice(app.apiRoot.length), { headers: app.admin });
              expect(target.status, `${path} ${relation}: ${href}`).toBe(200);
              followed++;
            }
          }
        }
      }
    }
    expect(followed).toBeGreaterThan(20);
  });
});
