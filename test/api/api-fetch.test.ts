import apiFetchImport from '@wordpress/api-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, createTestApp, type TestApp } from '../support/test-app.js';

// The package has no `"type": "module"`: to TypeScript's NodeNext its types are CommonJS (the
// function under `default`), while its ESM build exports the function itself.
const apiFetch = ((apiFetchImport as { default?: unknown }).default ?? apiFetchImport) as typeof apiFetchImport.default;

// WordPress's own client, `@wordpress/api-fetch`, in Node (it fetches with `globalThis.fetch`),
// batching as Gutenberg's navigation and widgets editors do (`@wordpress/core-data`'s batch:
// `require-all-validate`, each request's `data` as its body), then read back over plain GETs.

let app: TestApp;
let sessionCookie: string | undefined;

interface BatchAnswer {
  failed?: string;
  responses: ({ status: number; body: any } | null)[];
}

beforeAll(async () => {
  app = await createTestApp();
  apiFetch.use(apiFetch.createRootURLMiddleware(`${app.apiRoot}/`));
  // As the administrator over HTTP Basic, unless a test signed in (its cookie is sent as a browser would).
  apiFetch.use((options, next) => next({ ...options, headers: { ...options.headers, ...(sessionCookie ? {} : app.admin) } }));
});
afterAll(async () => {
  await app?.stop();
});

/** What core-data's `batch()` sends for a list of saves. */
const batch = (requests: { path: string; method?: string; data?: Record<string, unknown> }[]) =>
  apiFetch<BatchAnswer>({
    path: '/batch/v1',
    method: 'POST',
    data: { validation: 'require-all-validate', requests: requests.map(({ path, method = 'POST', data }) => ({ path, method, body: data })) },
  });

describe('@wordpress/api-fetch', () => {
  it('saves a menu in one batch of menu item updates, as the navigation editor does', async () => {
    const menu = await apiFetch<{ id: number }>({ path: '/cms/v2/menus', method: 'POST', data: { name: 'Api-fetch menu' } });
    const items: { id: number }[] = [];
    for (const title of ['First', 'Second', 'Third']) {
      items.push(await apiFetch({ path: '/cms/v2/menu-items', method: 'POST', data: { title, url: 'https://example.org/', menus: menu.id } }));
    }
    const answer = await batch([
      { path: `/cms/v2/menu-items/${items[0].id}`, method: 'PUT', data: { title: 'Third, now', menu_order: 3 } },
      { path: `/cms/v2/menu-items/${items[1].id}`, method: 'PUT', data: { menu_order: 1, parent: 0 } },
      { path: `/cms/v2/menu-items/${items[2].id}`, method: 'PUT', data: { title: 'Second, now', menu_order: 2, parent: items[1].id } },
      { path: '/cms/v2/menu-items', data: { title: 'Fourth', url: 'https://example.org/4', menus: menu.id, menu_order: 4 } },
    ]);
    expect(answer.failed).toBeUndefined();
    expect(answer.responses.map((response) => response?.status)).toEqual([200, 200, 200, 201]);

    const read = await app.api('GET', '/cms/v2/menu-items', { headers: app.admin, query: { menus: menu.id, orderby: 'menu_order', order: 'asc', context: 'edit' } });
    expect(read.body.map((item: { title: { raw: string }; menu_order: number; parent: number }) => [item.title.raw, item.menu_order, item.parent])).toEqual([
      ['Second', 1, 0],
      ['Second, now', 2, items[1].id],
      ['Third, now', 3, 0],
      ['Fourth', 4, 0],
    ]);
  });

  it('runs none of a batch with a request that does not validate, and says which', async () => {
    const item = await apiFetch<{ id: number }>({ path: '/cms/v2/menu-items', method: 'POST', data: { title: 'Untouched', url: 'https://example.org/' } });
    const answer = await batch([
      { path: `/cms/v2/menu-items/${item.id}`, method: 'PUT', data: { title: 'Touched' } },
      { path: `/cms/v2/menu-items/${item.id}`, method: 'PUT', data: { menu_order: 'first' } },
    ]);
    expect(answer.failed).toBe('validation');
    expect(answer.responses[0]).toBeNull();
    expect(answer.responses[1]).toMatchObject({ status: 400, body: { code: 'rest_invalid_param' } });
    expect((await app.api('GET', `/cms/v2/menu-items/${item.id}`, { headers: app.admin, query: { context: 'edit' } })).body.title.raw).toBe('Untouched');
  });

  it('moves widgets between sidebars in one batch, as the widgets editor does', async () => {
    const created: { id: string }[] = [];
    for (const title of ['Moved', 'Kept']) {
      created.push(await apiFetch({ path: '/cms/v2/widgets', method: 'POST', data: { id_base: 'text', sidebar: 'sidebar-1', instance: { raw: { title } } } }));
    }
    const answer = await batch([
      { path: `/cms/v2/widgets/${created[0].id}`, method: 'PUT', data: { sidebar: 'cms_inactive_widgets' } },
      { path: `/cms/v2/widgets/${created[1].id}`, method: 'PUT', data: { sidebar: 'sidebar-1', instance: { raw: { title: 'Kept, retitled' } } } },
    ]);
    expect(answer.failed).toBeUndefined();
    expect(answer.responses.map((response) => response?.status)).toEqual([200, 200]);

    const inactive = await app.api('GET', '/cms/v2/widgets', { headers: app.admin, query: { sidebar: 'cms_inactive_widgets', context: 'edit' } });
    expect(inactive.body.map((widget: { id: string }) => widget.id)).toContain(created[0].id);
    const active = await app.api('GET', '/cms/v2/widgets', { headers: app.admin, query: { sidebar: 'sidebar-1', context: 'edit' } });
    const kept = active.body.find((widget: { id: string }) => widget.id === created[1].id);
    expect(kept.instance.raw).toMatchObject({ title: 'Kept, retitled' });
    expect(active.body.map((widget: { id: string }) => widget.id)).not.toContain(created[0].id);
  });
});

describe('@wordpress/api-fetch signed in with a session, as in wp-admin', () => {
  it('sends the nonce with its nonce middleware, and fetches a new one from the nonce endpoint when it went stale', async () => {
    const signIn = await app.site('POST', '/cms-admin/session', { json: { username: 'admin', password: ADMIN_PASSWORD } });
    sessionCookie = signIn.headers.getSetCookie()[0].split(';')[0];
    // A browser's cookie jar: the site's cookie goes with every request to the site (fetch in Node has none).
    const nodeFetch = globalThis.fetch;
    globalThis.fetch = (input, init = {}) => {
      const headers = new Headers(init.headers);
      if (String(input instanceof Request ? input.url : input).startsWith(app.siteUrl)) headers.set('Cookie', sessionCookie!);
      return nodeFetch(input, { ...init, headers });
    };
    const nonceMiddleware = apiFetch.createNonceMiddleware(signIn.body.nonce);
    apiFetch.nonceMiddleware = nonceMiddleware;
    apiFetch.nonceEndpoint = `${app.siteUrl}/cms-admin/session/nonce`;
    apiFetch.use(nonceMiddleware);
    try {
      const post = await apiFetch<{ id: number; author: number }>({ path: '/cms/v2/posts', method: 'POST', data: { title: 'From the admin page' } });
      expect(post.author).toBe(1);
      const answer = await apiFetch<Response, false>({ path: '/cms/v2/users/me', parse: false });
      expect((await answer.json()).id).toBe(1);
      nonceMiddleware.nonce = answer.headers.get('X-WP-Nonce')!;
      expect(nonceMiddleware.nonce).toMatch(/^[0-9a-f]{10}$/);
      const draft = await apiFetch<{ status: string }>({ path: `/cms/v2/posts/${post.id}?context=edit` });
      expect(draft.status).toBe('draft');

      // A stale nonce is refused (403 rest_cookie_invalid_nonce); api-fetch then asks the nonce endpoint and tries again.
      nonceMiddleware.nonce = 'stale';
      expect((await apiFetch<{ id: number }>({ path: '/cms/v2/users/me' })).id).toBe(1);
      expect(nonceMiddleware.nonce).toMatch(/^[0-9a-f]{10}$/);

      await apiFetch<Response, false>({ url: `${app.siteUrl}/cms-admin/session`, method: 'DELETE', parse: false });
      await expect(apiFetch({ path: '/cms/v2/users/me' })).rejects.toMatchObject({ code: 'rest_cookie_invalid_nonce' });
    } finally {
      globalThis.fetch = nodeFetch;
      apiFetch.unregister(nonceMiddleware);
      sessionCookie = undefined;
    }
  });
});
