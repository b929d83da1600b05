// The site hostile-input.test.ts attacks: a test app with one of everything a route's path can name
// (twice: DELETE is aimed at a throwaway set), the discovery index's endpoints with their paths
// filled, and a tally of what every request was answered, printed after the file's tests.
import { afterAll, beforeAll, expect } from 'vitest';
import { splitRoutePattern } from '../../src/rest/route.js';
import { CLOSED_PORT_URL, prototypeKeys, type ArgSpec } from './hostile-payloads.js';
import { createTestApp, later, type ApiResponse, type RequestOptions, type TestApp } from './test-app.js';

interface IndexEndpoint {
  methods: string[];
  allow_batch?: { v1?: boolean };
  args: Record<string, ArgSpec>;
}

/** One endpoint of the index, with its path filled from the fixtures. */
export interface Target {
  pattern: string;
  path: string;
  methods: string[];
  args: Record<string, ArgSpec>;
  headers: Record<string, string>;
  batched: boolean;
}
/** What the paths of the index's routes are filled with. */
export interface Fixtures {
  post: number;
  page: number;
  category: number;
  tag: number;
  menu: number;
  menuItem: number;
  user: number;
  revision: Record<'posts' | 'pages' | 'menu-items' | 'templates' | 'template-parts', number>;
  autosave: Record<'posts' | 'pages' | 'menu-items' | 'templates' | 'template-parts', number>;
  /** Templates of the site's own, with a revision and an autosave, by their `<theme>//<slug>` ids. */
  template: Record<'templates' | 'template-parts', string>;
  appPassword: string;
  plugin: string;
  globalStyles: number;
  widget: string;
  media: number;
  webhook: string;
  /** A delivery of the webhook (its ping). */
  delivery: string;
  /** A pending scheduled change of the post and of the page. */
  scheduledChange: Record<'posts' | 'pages', number>;
}

/** What is wrong with the answers of a test, one line each: expected empty. */
export type Failures = string[];

type Send = (method: string, route: string, options?: RequestOptions) => Promise<ApiResponse>;

export interface HostileSite {
  /** The service under attack, started before the file's tests and stopped after them. */
  readonly app: TestApp;
  /** What every endpoint but DELETE is aimed at. */
  readonly keep: Fixtures;
  /** What DELETE is aimed at: all of it must still be there at the end. */
  readonly throwaway: Fixtures;
  /** The administrator DELETE /users/me is sent as (the main one keeps its account). */
  readonly deleteMeAdmin: { id: number; headers: Record<string, string> };
  /** The prototypes' own keys before the service started. */
  readonly prototypesBefore: Record<string, string[]>;
  /** Every endpoint of the discovery index, its path filled (DELETE: from the throwaway fixtures). */
  readonly targets: Target[];
  /** A request to the API, counted for the summary. */
  send: Send;
  /** A request to any URL of the site, counted for the summary. */
  site: Send;
  /** Counts a request sent some other way. */
  counted(requests?: number): void;
  /** Records what is wrong with one answer: a 5xx, an error without the error shape, or another status than expected. */
  check(failures: Failures, what: string, response: ApiResponse, expected?: { status: number; code?: string }): void;
}

/** Starts the site before the file's tests (fixtures made, index read) and stops it after them. */
export function hostileSite(): HostileSite {
  const prototypesBefore = prototypeKeys();
  const started = Date.now();
  const tally = new Map<string, number>();
  let requests = 0;
  let app: TestApp | undefined;
  let given: { keep: Fixtures; throwaway: Fixtures; deleteMeAdmin: { id: number; headers: Record<string, string> }; targets: Target[] } | undefined;
  const ready = () => {
    if (!given) throw new Error('the hostile site is not ready: use it inside a test or a hook');
    return given;
  };
  const running = later('the hostile site', () => app);
  const send: Send = (method, route, options) => {
    requests++;
    return running.api(method, route, options);
  };
  const site: Send = (method, pathAndQuery, options) => {
    requests++;
    return running.site(method, pathAndQuery, options);
  };

  beforeAll(async () => {
    // Webhooks to a closed port of this machine: delivered nowhere, refused by no address check.
    app = await createTestApp({ env: { CMS_WEBHOOKS_ALLOW_ADDRESSES: '127.0.0.1' } });
    const keep = await createFixtures(app, send, 'keep');
    const throwaway = await createFixtures(app, send, 'throwaway');
    // `/users/me` acts on the caller: administrators of their own, so the main one keeps its account.
    const meAdmin = (await app.asRole('administrator')).headers;
    const deleteMeAdmin = await app.asRole('administrator');
    const targets = await discoverTargets(app, send, { keep, throwaway, meAdmin, deleteMeAdmin: deleteMeAdmin.headers });
    given = { keep, throwaway, deleteMeAdmin, targets };
  }, 60_000);
  afterAll(async () => {
    console.log(`hostile-input: ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // What the requests were answered, so a run that passes for the wrong reason (all 401s, all 404s) shows.
    console.log(`answers: ${[...tally].sort((x, y) => y[1] - x[1]).map(([answer, count]) => `${count} x ${answer}`).join(', ')}`);
    await app?.stop();
  });

  return {
    app: running,
    get keep() {
      return ready().keep;
    },
    get throwaway() {
      return ready().throwaway;
    },
    get deleteMeAdmin() {
      return ready().deleteMeAdmin;
    },
    get targets() {
      return ready().targets;
    },
    prototypesBefore,
    send,
    site,
    counted: (count = 1) => {
      requests += count;
    },
    check: (failures, what, response, expected) => check(tally, failures, what, response, expected),
  };
}

/** A post, a page, a menu item and templates with history, terms, a user, a plugin, media, a webhook...: one of everything a path can name. */
async function createFixtures(app: TestApp, send: Send, label: string): Promise<Fixtures> {
  const created = async (route: string, json: Record<string, unknown>, status = 201) => {
    const response = await send('POST', route, { headers: app.admin, json });
    expect(response.status, `${route} ${response.text}`).toBe(status);
    return response.body;
  };
  const withHistory = async (type: 'posts' | 'pages') => {
    const item = await created(`/cms/v2/${type}`, { title: `${label} ${type}`, content: 'First', status: 'publish' });
    await created(`/cms/v2/${type}/${item.id}`, { content: 'Second' }, 200);
    const revisions = await send('GET', `/cms/v2/${type}/${item.id}/revisions`, { headers: app.admin });
    expect(revisions.body.length, `revisions of ${type}`).toBeGreaterThan(0);
    // Published and saved again by its author: an autosave of its own, not an in-place save.
    const autosave = await created(`/cms/v2/${type}/${item.id}/autosaves`, { content: 'Autosaved' }, 200);
    expect(autosave.id, `autosave of ${type}`).not.toBe(item.id);
    const scheduled = await created(`/cms/v2/${type}/${item.id}/scheduled-changes`, { date_gmt: '2099-01-01T00:00:00', title: `${label} scheduled` });
    return { id: item.id as number, revision: revisions.body[0].id as number, autosave: autosave.id as number, scheduledChange: scheduled.id as number };
  };
  const post = await withHistory('posts');
  const page = await withHistory('pages');
  const category = await created('/cms/v2/categories', { name: `${label} category` });
  const tag = await created('/cms/v2/tags', { name: `${label} tag` });
  const menu = await created('/cms/v2/menus', { name: `${label} menu`, locations: label === 'keep' ? ['primary'] : [] });
  const menuItem = await created('/cms/v2/menu-items', { title: `${label} item`, url: 'https://example.org/', menus: menu.id });
  await created(`/cms/v2/menu-items/${menuItem.id}`, { title: `${label} item, renamed` }, 200);
  const menuItemRevision = (await send('GET', `/cms/v2/menu-items/${menuItem.id}/revisions`, { headers: app.admin })).body[0];
  const menuItemAutosave = await created(`/cms/v2/menu-items/${menuItem.id}/autosaves`, { title: `${label} item, autosaved` }, 200);
  const withTemplateHistory = async (base: 'templates' | 'template-parts') => {
    const template = await created(`/cms/v2/${base}`, { slug: `${label}-hostile`, content: 'First' });
    await created(`/cms/v2/${base}/${template.id}`, { content: 'Second' }, 200);
    const revision = (await send('GET', `/cms/v2/${base}/${template.id}/revisions`, { headers: app.admin })).body[0];
    const autosave = await created(`/cms/v2/${base}/${template.id}/autosaves`, { content: 'Autosaved' }, 200);
    return { id: template.id as string, revision: revision.id as number, autosave: autosave.id as number };
  };
  const template = await withTemplateHistory('templates');
  const templatePart = await withTemplateHistory('template-parts');
  const user = await app.asRole('subscriber');
  const appPassword = await created(`/cms/v2/users/${user.id}/application-passwords`, { name: `${label} app` });
  const plugin = await created('/cms/v2/plugins', { slug: label === 'keep' ? 'hello-blocks' : 'reading-time' });
  const themes = await send('GET', '/cms/v2/themes', { headers: app.admin, query: { status: ['active'] } });
  const globalStyles = Number(themes.body[0]._links['wp:user-global-styles'][0].href.split('/').pop());
  const widget = await created('/cms/v2/widgets', { id_base: 'text', sidebar: 'sidebar-1', instance: { raw: { title: `${label} widget` } } });
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const media = await send('POST', '/cms/v2/media', {
    headers: { ...app.admin, 'Content-Disposition': `attachment; filename="${label}.png"` },
    raw: { body: new Uint8Array(png), contentType: 'image/png' },
  });
  expect(media.status, media.text).toBe(201);
  const webhook = await created('/cms/v2/webhooks', { url: CLOSED_PORT_URL });
  const ping = await created(`/cms/v2/webhooks/${webhook.id}/ping`, {}, 200);
  return {
    post: post.id,
    page: page.id,
    category: category.id,
    tag: tag.id,
    menu: menu.id,
    menuItem: menuItem.id,
    user: user.id,
    revision: { posts: post.revision, pages: page.revision, 'menu-items': menuItemRevision.id, templates: template.revision, 'template-parts': templatePart.revision },
    autosave: { posts: post.autosave, pages: page.autosave, 'menu-items': menuItemAutosave.id, templates: template.autosave, 'template-parts': templatePart.autosave },
    template: { templates: template.id, 'template-parts': templatePart.id },
    appPassword: appPassword.uuid,
    plugin: plugin.plugin,
    globalStyles,
    widget: widget.id,
    media: media.body.id,
    webhook: webhook.id,
    delivery: ping.id,
    scheduledChange: { posts: post.scheduledChange, pages: page.scheduledChange },
  };
}

/** `(?P<name>regex)` groups replaced by `value(name, textBefore)`; undefined when one cannot be filled. */
function fillPattern(pattern: string, value: (name: string, before: string) => string | number | undefined): string | undefined {
  let out = '';
  for (const part of splitRoutePattern(pattern)) {
    const filled = typeof part === 'string' ? part : value(part.name, out);
    if (filled === undefined) return undefined;
    out += String(filled);
  }
  return out;
}

/** The path of an index route, its parameters filled from `fixtures`; undefined when one cannot be filled. */
export function pathFor(pattern: string, fixtures: Fixtures): string | undefined {
  const resource = pattern.split('/')[3] ?? '';
  const items: Record<string, number> = { posts: fixtures.post, pages: fixtures.page, categories: fixtures.category, tags: fixtures.tag, menus: fixtures.menu, 'menu-items': fixtures.menuItem, users: fixtures.user, media: fixtures.media };
  const path = fillPattern(pattern, (name, before) => {
    if (name === 'id' && before.endsWith('/revisions/')) return fixtures.revision[resource as keyof Fixtures['revision']];
    if (name === 'id' && before.endsWith('/autosaves/')) return fixtures.autosave[resource as keyof Fixtures['autosave']];
    // Under a template (its revisions, autosaves, history): one of the site's own, which has them.
    const templateBase = resource === 'templates' || resource === 'template-parts' ? resource : undefined;
    if (templateBase && (name === 'parent' || (name === 'id' && /\/(autosaves|history)$/.test(pattern)))) return fixtures.template[templateBase];
    if (name === 'id' && resource === 'templates') return 'cornerstone//index';
    if (name === 'id' && resource === 'template-parts') return 'cornerstone//header';
    if (name === 'id' && resource === 'global-styles') return fixtures.globalStyles;
    if (name === 'id' && resource === 'widgets') return fixtures.widget;
    if (name === 'id' && resource === 'sidebars') return 'sidebar-1';
    if (name === 'id' && resource === 'widget-types') return 'text';
    if (name === 'id' && resource === 'webhooks') return fixtures.webhook;
    if (name === 'delivery') return fixtures.delivery;
    if (name === 'sid') return fixtures.scheduledChange[resource as keyof Fixtures['scheduledChange']];
    if (name === 'id' || name === 'parent') return items[resource];
    if (name === 'user_id') return fixtures.user;
    if (name === 'uuid') return fixtures.appPassword;
    if (name === 'plugin') return fixtures.plugin;
    if (resource === 'block-types') return { namespace: 'core', name: 'paragraph' }[name];
    return { status: 'publish', type: 'post', taxonomy: 'category', location: 'primary', stylesheet: 'cornerstone' }[name];
  });
  return path?.replace(/^\/cms-json/, '');
}

/** Every endpoint of the discovery index, its path filled (DELETE: from the throwaway fixtures). */
async function discoverTargets(app: TestApp, send: Send, given: { keep: Fixtures; throwaway: Fixtures; meAdmin: Record<string, string>; deleteMeAdmin: Record<string, string> }): Promise<Target[]> {
  const index = await send('GET', '/', { headers: app.admin });
  expect(index.status).toBe(200);
  const found: Target[] = [];
  const unfillable: string[] = [];
  for (const [pattern, route] of Object.entries(index.body.routes as Record<string, { endpoints: IndexEndpoint[] }>)) {
    for (const endpoint of route.endpoints) {
      const deletes = endpoint.methods.includes('DELETE');
      const path = pathFor(pattern, deletes ? given.throwaway : given.keep);
      if (path === undefined) {
        unfillable.push(pattern);
        continue;
      }
      const me = pattern.endsWith('/users/me');
      const headers = me ? (deletes ? given.deleteMeAdmin : given.meAdmin) : app.admin;
      found.push({ pattern, path: path || '/', methods: endpoint.methods, args: endpoint.args, headers, batched: endpoint.allow_batch?.v1 === true });
    }
  }
  // A route whose path cannot be filled is a route left untested: name it rather than skip it.
  expect(unfillable, 'routes whose path parameters have no fixture').toEqual([]);
  expect(found.length).toBeGreaterThan(40);
  return found;
}

/** Records what is wrong with one answer: a 5xx, an error without the error shape, or another status than expected. */
function check(tally: Map<string, number>, failures: Failures, what: string, response: ApiResponse, expected?: { status: number; code?: string }): void {
  const body = response.body as { code?: unknown; message?: unknown; data?: { status?: unknown } } | string;
  const code = typeof body === 'object' && body !== null ? String(body.code) : '-';
  const problem = (reason: string) => failures.push(`${what} -> ${response.status} ${code}: ${reason} ${response.text.slice(0, 160)}`);
  tally.set(`${response.status} ${code}`, (tally.get(`${response.status} ${code}`) ?? 0) + 1);
  // WordPress's answer to a DELETE without force of what cannot be trashed: proof `force` stayed unset.
  const trashNotSupported = response.status === 501 && code === 'rest_trash_not_supported' && what.startsWith('DELETE ');
  if (response.status >= 500 && !trashNotSupported) problem('server error');
  else if (expected && response.status !== expected.status) problem(`expected ${expected.status}`);
  else if (expected?.code && code !== expected.code) problem(`expected code ${expected.code}`);
  if (response.status >= 400 && response.status < 600) {
    const shaped =
      typeof body === 'object' && body !== null && typeof body.code === 'string' && typeof body.message === 'string' && body.data?.status === response.status;
    if (!shaped) problem('not the error shape {code, message, data: {status}}');
  }
  if (response.status < 300 && /polluted/.test(response.text)) problem('a hostile name was stored or echoed');
}
