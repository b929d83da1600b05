import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { can, type RoleName } from '../../src/auth/capabilities.js';
import { filterSavedValue, SAVED_FIELDS, type SavedField } from '../../src/registry/saved-fields.js';
import { type ApiResponse, createTestApp, type TestApp } from '../support/test-app.js';

// Every free-text field of the table of saved fields, written through the real routes with these
// payloads by every role that may write it, read back as stored (`edit`) and as anonymous readers see it.
const PAYLOADS = [
  '<svg onload=alert(document.domain)>',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  '<a href="javascript:alert(1)">link</a>',
  '<img src=x onerror=alert(1)>',
  '<b onmouseover="alert(1)">hover</b>',
  '<strong>bold</strong>',
];

// Markup that runs script: an element that can, an event attribute, a script URL in a link or source.
const DANGEROUS = /<svg|<script|<img[^>]*\son|<[a-z][^>]*\son\w+\s*=|<[a-z][^>]*(href|src)\s*=\s*["']?\s*javascript:/i;
const KSES = new Set(['wp_filter_kses', 'wp_kses_data', 'wp_filter_post_kses', '_wp_filter_post_meta_footnotes']);

type Caller = { id: number; headers: Record<string, string> };
type Route = 'create' | 'update' | 'autosave';

/** How the test reaches a resource: who may write it, and its routes. */
interface Fixture {
  roles: readonly RoleName[];
  /** One record for every write (a user's own profile, the settings): payloads are written one after another. */
  singleton?: boolean;
  /** The route whose writes are also read as anonymous readers see them (they read the same stored value). */
  publicOn?: Route;
  /** Parameters every write needs besides the field under test. */
  base?(field: SavedField): Record<string, unknown>;
  /** Parameters whose values must be unique (names): the payload gets a counter. */
  unique?: readonly string[];
  create?(caller: Caller, body: Record<string, unknown>): Promise<ApiResponse>;
  /** An item the caller may update (and autosave), made with harmless values. */
  make?(caller: Caller, field: SavedField): Promise<string>;
  update(caller: Caller, id: string, body: Record<string, unknown>): Promise<ApiResponse>;
  autosave?(caller: Caller, id: string, body: Record<string, unknown>): Promise<ApiResponse>;
  readEdit(caller: Caller, id: string): Promise<unknown>;
  /** What anonymous readers get, once an administrator published it where that is needed. */
  readPublic?(id: string): Promise<unknown>;
  /** What a field its filters emptied holds instead (an upload's title: its file name). */
  whenEmptied?: Record<string, string>;
  /** The id of an item from its create or update answer. */
  idOf?(body: any): string;
}

let app: TestApp;
let admin: Caller;
let counter = 0;
const users = new Map<RoleName, Caller>();
let globalStylesRoute = '';
const published = new Set<string>();

const ok = (response: ApiResponse) => {
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  return response;
};

function postFixture(base: 'posts' | 'pages', roles: readonly RoleName[]): Fixture {
  return {
    roles,
    create: (caller, body) => app.api('POST', `/cms/v2/${base}`, { headers: caller.headers, json: { status: 'draft', ...body } }),
    make: async (caller) => String(ok(await app.api('POST', `/cms/v2/${base}`, { headers: caller.headers, json: { title: 'Plain', status: 'draft' } })).body.id),
    update: (caller, id, body) => app.api('POST', `/cms/v2/${base}/${id}`, { headers: caller.headers, json: body }),
    // The author's own draft: saved in place.
    autosave: (caller, id, body) => app.api('POST', `/cms/v2/${base}/${id}/autosaves`, { headers: caller.headers, json: body }),
    readEdit: async (caller, id) => ok(await app.api('GET', `/cms/v2/${base}/${id}`, { headers: caller.headers, query: { context: 'edit' } })).body,
    async readPublic(id) {
      ok(await app.api('POST', `/cms/v2/${base}/${id}`, { headers: admin.headers, json: { status: 'publish' } }));
      return ok(await app.api('GET', `/cms/v2/${base}/${id}`)).body;
    },
  };
}

function termFixture(base: 'categories' | 'tags' | 'menus', roles: readonly RoleName[]): Fixture {
  const term = () => `Term ${++counter}`;
  return {
    roles,
    unique: ['name'],
    base: (field) => (field.param === 'name' ? {} : { name: term() }),
    create: (caller, body) => app.api('POST', `/cms/v2/${base}`, { headers: caller.headers, json: body }),
    make: async () => String(ok(await app.api('POST', `/cms/v2/${base}`, { headers: admin.headers, json: { name: term() } })).body.id),
    // Only those who may edit terms update them (an editor or an administrator).
    update: (_caller, id, body) => app.api('POST', `/cms/v2/${base}/${id}`, { headers: admin.headers, json: body }),
    readEdit: async (_caller, id) => ok(await app.api('GET', `/cms/v2/${base}/${id}`, { headers: admin.headers, query: { context: 'edit' } })).body,
    readPublic: base === 'menus' ? undefined : async (id) => ok(await app.api('GET', `/cms/v2/${base}/${id}`)).body,
  };
}

function templateFixture(base: 'templates' | 'template-parts'): Fixture {
  return {
    roles: ['administrator'],
    base: () => ({ slug: `custom-${++counter}` }),
    create: (caller, body) => app.api('POST', `/cms/v2/${base}`, { headers: caller.headers, json: body }),
    make: async (caller) => ok(await app.api('POST', `/cms/v2/${base}`, { headers: caller.headers, json: { slug: `custom-${++counter}`, title: 'Plain' } })).body.id,
    update: (caller, id, body) => app.api('POST', `/cms/v2/${base}/${id}`, { headers: caller.headers, json: body }),
    readEdit: async (caller, id) => ok(await app.api('GET', `/cms/v2/${base}/${id}`, { headers: caller.headers, query: { context: 'edit' } })).body,
  };
}

const WIDGET_TYPE: Record<string, string> = { title: 'text', text: 'text', content: 'custom_html' };

const FIXTURES: Record<string, Fixture> = {
  posts: postFixture('posts', ['administrator', 'editor', 'author', 'contributor']),
  pages: postFixture('pages', ['administrator', 'editor']),
  media: {
    roles: ['administrator', 'editor', 'author'],
    create(caller, body) {
      const form = new FormData();
      form.append('file', new Blob(['plain text'], { type: 'text/plain' }), 'notes.txt');
      for (const [name, value] of Object.entries(body)) form.append(name, String(value));
      return app.api('POST', '/cms/v2/media', { raw: { body: form }, headers: caller.headers });
    },
    make: async (caller) => String(ok(await FIXTURES.media.create!(caller, { title: 'Plain' })).body.id),
    update: (caller, id, body) => app.api('POST', `/cms/v2/media/${id}`, { headers: caller.headers, json: body }),
    readEdit: async (caller, id) => ok(await app.api('GET', `/cms/v2/media/${id}`, { headers: caller.headers, query: { context: 'edit' } })).body,
    readPublic: async (id) => ok(await app.api('GET', `/cms/v2/media/${id}`)).body,
    whenEmptied: { title: 'notes' },
  },
  'menu-items': {
    roles: ['administrator'],
    base: (field) => ({ ...(field.param === 'title' ? {} : { title: 'Item' }), ...(field.param === 'url' ? {} : { url: 'https://example.com/' }), status: 'draft' }),
    create: (caller, body) => app.api('POST', '/cms/v2/menu-items', { headers: caller.headers, json: body }),
    make: async (caller) => String(ok(await app.api('POST', '/cms/v2/menu-items', { headers: caller.headers, json: { title: 'Item', url: 'https://example.com/', status: 'draft' } })).body.id),
    update: (caller, id, body) => app.api('POST', `/cms/v2/menu-items/${id}`, { headers: caller.headers, json: body }),
    autosave: (caller, id, body) => app.api('POST', `/cms/v2/menu-items/${id}/autosaves`, { headers: caller.headers, json: body }),
    readEdit: async (caller, id) => ok(await app.api('GET', `/cms/v2/menu-items/${id}`, { headers: caller.headers, query: { context: 'edit' } })).body,
  },
  categories: termFixture('categories', ['administrator', 'editor']),
  tags: termFixture('tags', ['administrator', 'editor', 'author', 'contributor']),
  menus: termFixture('menus', ['administrator']),
  users: {
    roles: ['administrator', 'editor', 'author', 'contributor', 'subscriber'],
    singleton: true,
    publicOn: 'update',
    // Each user writes their own profile; an administrator also creates users.
    create: (caller, body) =>
      caller.id === admin.id
        ? app.api('POST', '/cms/v2/users', { headers: caller.headers, json: { username: `user${++counter}`, email: `user${counter}@example.com`, password: 'secret-password', ...body } })
        : Promise.resolve(undefined as unknown as ApiResponse),
    make: async (caller) => String(caller.id),
    update: (caller, _id, body) => app.api('POST', '/cms/v2/users/me', { headers: caller.headers, json: body }),
    readEdit: async (_caller, id) => ok(await app.api('GET', `/cms/v2/users/${id}`, { headers: admin.headers, query: { context: 'edit' } })).body,
    // Users are shown to anonymous readers once they have published something.
    async readPublic(id) {
      if (!published.has(id)) ok(await app.api('POST', '/cms/v2/posts', { headers: admin.headers, json: { title: 'By them', status: 'publish', author: Number(id) } }));
      published.add(id);
      return ok(await app.api('GET', `/cms/v2/users/${id}`)).body;
    },
  },
  'application-passwords': {
    roles: ['administrator', 'editor', 'author', 'contributor', 'subscriber'],
    unique: ['name'],
    create: (caller, body) => app.api('POST', `/cms/v2/users/${caller.id}/application-passwords`, { headers: caller.headers, json: body }),
    make: async (caller) => ok(await app.api('POST', `/cms/v2/users/${caller.id}/application-passwords`, { headers: caller.headers, json: { name: `App ${++counter}` } })).body.uuid,
    update: (caller, id, body) => app.api('POST', `/cms/v2/users/${caller.id}/application-passwords/${id}`, { headers: caller.headers, json: body }),
    readEdit: async (caller, id) => ok(await app.api('GET', `/cms/v2/users/${caller.id}/application-passwords/${id}`, { headers: caller.headers })).body,
    idOf: (body) => body.uuid,
  },
  templates: templateFixture('templates'),
  'template-parts': templateFixture('template-parts'),
  'global-styles': {
    roles: ['administrator'],
    singleton: true,
    make: async () => globalStylesRoute,
    update: (caller, route, body) => app.api('POST', route, { headers: caller.headers, json: body }),
    readEdit: async (caller, route) => ok(await app.api('GET', route, { headers: caller.headers, query: { context: 'edit' } })).body,
  },
  widgets: {
    roles: ['administrator'],
    create: (caller, body) => {
      const [name] = Object.keys((body.instance as { raw: object }).raw);
      return app.api('POST', '/cms/v2/widgets', { headers: caller.headers, json: { id_base: WIDGET_TYPE[name], sidebar: 'cms_inactive_widgets', ...body } });
    },
    make: async (caller, field) =>
      ok(await app.api('POST', '/cms/v2/widgets', { headers: caller.headers, json: { id_base: WIDGET_TYPE[field.param.split('.').pop()!], sidebar: 'cms_inactive_widgets', instance: { raw: {} } } })).body.id,
    update: (caller, id, body) => app.api('POST', `/cms/v2/widgets/${id}`, { headers: caller.headers, json: body }),
    readEdit: async (caller, id) => ok(await app.api('GET', `/cms/v2/widgets/${id}`, { headers: caller.headers, query: { context: 'edit' } })).body,
  },
  settings: {
    roles: ['administrator'],
    singleton: true,
    make: async () => 'settings',
    update: (caller, _id, body) => app.api('POST', '/cms/v2/settings', { headers: caller.headers, json: body }),
    readEdit: async (caller) => ok(await app.api('GET', '/cms/v2/settings', { headers: caller.headers })).body,
  },
};

/** `a.b.c` of a response; a list is read as its words (menu item classes). */
function at(body: unknown, path: string): unknown {
  const value = path.split('.').reduce<unknown>((inner, key) => (inner as Record<string, unknown> | undefined)?.[key], body);
  return Array.isArray(value) ? value.join(' ') : value;
}

/** A request body holding `value` at the field's parameter path. */
function bodyFor(field: SavedField, value: unknown): Record<string, unknown> {
  const path = field.param.split('.');
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

// How a payload is written into a field whose value has a shape of its own, and read back out of it.
const footnotes = {
  wrap: (payload: string) => JSON.stringify([{ id: 'note-1', content: payload }]),
  unwrap: (stored: unknown) => (JSON.parse(String(stored) || '[]') as { content: string }[]).map((note) => note.content).join(''),
};
const isFootnotes = (field: SavedField) => field.param === 'meta.footnotes';
const isList = (field: SavedField) => field.param === 'classes' || field.param === 'xfn';

/** What the field stores for `text` written by `role`: the table's own filters, applied as the service must. */
function expectedStored(field: SavedField, text: string, role: RoleName): string {
  const unfiltered = can({ id: 1, roles: [role] }, 'unfiltered_html');
  return filterSavedValue(field, isFootnotes(field) ? footnotes.wrap(text) : text, unfiltered);
}

function checkStored(field: SavedField, role: RoleName, text: string, stored: unknown, where: string): void {
  const value = isFootnotes(field) ? footnotes.unwrap(stored) : String(stored ?? '');
  const unfiltered = can({ id: 1, roles: [role] }, 'unfiltered_html');
  const filters = [...(field.everyone ?? []), ...(unfiltered ? [] : (field.withoutUnfilteredHtml ?? []))];
  const expected = isFootnotes(field) ? footnotes.unwrap(expectedStored(field, text, role)) : expectedStored(field, text, role);
  if (where === 'edit') expect(value, `${field.resource} ${field.param} as ${role}: ${text}`).toBe(isList(field) ? expected.split(' ').filter(Boolean).join(' ') : expected);
  if (filters.every((name) => name === 'trim')) {
    // Kept as sent, as WordPress keeps it for those with unfiltered_html.
    if (where === 'edit') expect(value).toBe(text.trim());
    return;
  }
  expect(value, `${field.resource} ${field.param} as ${role} (${where}): ${text}`).not.toMatch(DANGEROUS);
  if (filters.includes('esc_url_raw')) expect(value).not.toMatch(/^\s*javascript:/i);
  if (text.startsWith('<strong>') && where === 'edit') {
    const keepsMarkup = filters.some((name) => KSES.has(name)) && !filters.some((name) => ['sanitize_text_field', 'strip_tags', 'wp_strip_all_tags', 'esc_html', 'esc_url_raw', 'sanitize_html_class'].includes(name));
    if (keepsMarkup) expect(value).toContain('<strong>bold</strong>');
    else expect(value).not.toContain('<strong>');
  }
}

/** Writes the payload through one route and checks what was stored, and what anonymous readers get. */
async function writeAndCheck(fixture: Fixture, field: SavedField, role: RoleName, route: Route, payload: string): Promise<void> {
  const caller = role === 'administrator' ? admin : users.get(role)!;
  const text = fixture.unique?.includes(field.param) ? `${payload} ${++counter}` : payload;
  const value = isFootnotes(field) ? footnotes.wrap(text) : isList(field) ? [text] : text;
  const body = { ...(fixture.base?.(field) ?? {}), ...bodyFor(field, value) };
  let id: string | undefined;
  let response: ApiResponse | undefined;
  if (route === 'create') {
    response = await fixture.create!(caller, body);
    if (response === undefined) return;
  } else {
    id = await fixture.make!(caller, field);
    response = await (route === 'update' ? fixture.update : fixture.autosave!)(caller, id, route === 'update' ? bodyFor(field, value) : body);
  }
  // Refused (a URL its schema refuses, or a required field its filters empty): nothing is stored.
  if (response.status >= 400) {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    if (response.body.code !== 'rest_invalid_param') expect(expectedStored(field, text, role).trim()).toBe('');
    return;
  }
  id ??= fixture.idOf ? fixture.idOf(response.body) : String(response.body.id);
  const replacement = route === 'create' && expectedStored(field, text, role) === '' ? fixture.whenEmptied?.[field.param] : undefined;
  if (replacement !== undefined) {
    expect(at(await fixture.readEdit(caller, id), field.shown.edit!)).toBe(replacement);
    return;
  }
  checkStored(field, role, text, at(await fixture.readEdit(caller, id), field.shown.edit!), 'edit');
  if (fixture.readPublic && field.shown.view && route === (fixture.publicOn ?? 'create')) checkStored(field, role, text, at(await fixture.readPublic(id), field.shown.view), 'view');
}

beforeAll(async () => {
  app = await createTestApp();
  admin = { id: 1, headers: app.admin };
  for (const role of ['editor', 'author', 'contributor', 'subscriber'] as const) users.set(role, await app.asRole(role));
  const themes = await app.api('GET', '/cms/v2/themes', { headers: app.admin, query: { status: ['active'] } });
  globalStylesRoute = themes.body[0]._links['wp:user-global-styles'][0].href.slice(app.apiRoot.length);
});
afterAll(async () => {
  await app?.stop();
});

describe('the table of saved fields', () => {
  it('has a way through the API to every resource it names, and a response path for every field', () => {
    for (const field of SAVED_FIELDS) {
      expect(FIXTURES[field.resource], `no fixture for ${field.resource}`).toBeDefined();
      expect(field.shown.edit, `${field.resource} ${field.param}`).toBeTruthy();
    }
  });
});

/**
 * Every field, as every role that may write it, through its resource's first route (create, or
 * update where there is none); through its other routes (update, autosave) as the most and the
 * least trusted of those roles, which the filters tell apart by `unfiltered_html` alone.
 */
const CASES = SAVED_FIELDS.flatMap((field) => {
  const fixture = FIXTURES[field.resource];
  if (!fixture) return [];
  const routes: Route[] = [...(fixture.create ? ['create' as const] : []), 'update', ...(fixture.autosave ? ['autosave' as const] : [])];
  const first = fixture.publicOn ?? routes[0];
  const ends = [...new Set([fixture.roles[0], fixture.roles[fixture.roles.length - 1]])];
  return routes.flatMap((route) =>
    (route === first ? fixture.roles : ends).map((role) => ({ name: `${field.resource} ${field.param}, ${route}, as ${role}`, field, fixture, role, route })),
  );
});

const run = async ({ field, fixture, role, route }: (typeof CASES)[number]) => {
  if (fixture.singleton) for (const payload of PAYLOADS) await writeAndCheck(fixture, field, role, route, payload);
  else await Promise.all(PAYLOADS.map((payload) => writeAndCheck(fixture, field, role, route, payload)));
};

// Cases run a few at a time, and so do the payloads of a case; not on a record every write
// shares (a user's profile, the settings), where writes of different fields follow each other.
describe.concurrent('every saved field, through every route that writes it, as every role that may', () => {
  it.each(CASES.filter((entry) => !entry.fixture.singleton))('$name', { timeout: 120_000 }, run);
});
describe('every saved field of a shared record, through every route that writes it, as every role that may', () => {
  it.each(CASES.filter((entry) => entry.fixture.singleton))('$name', { timeout: 120_000 }, run);
});

describe('an upload without a title', () => {
  it("takes its file name as the title, through the title's filters", async () => {
    const author = users.get('author')!;
    for (const name of ['<svg onload=alert(document.domain)>', '<img src=x onerror=alert(1)>x', '<b onclick=alert(1)>bold']) {
      const response = ok(
        await app.api('POST', '/cms/v2/media', {
          raw: { body: 'plain text', contentType: 'text/plain' },
          headers: { ...author.headers, 'Content-Disposition': `attachment; filename="${name}.txt"` },
        }),
      );
      const field = SAVED_FIELDS.find((candidate) => candidate.resource === 'media' && candidate.param === 'title')!;
      expect(response.body.title.raw).toBe(filterSavedValue(field, name, false));
      expect(response.body.title.raw).not.toMatch(DANGEROUS);
      const shown = ok(await app.api('GET', `/cms/v2/media/${response.body.id}`)).body;
      expect(shown.title.rendered).not.toMatch(DANGEROUS);
    }
  });
});

describe('restoring a revision', () => {
  // A revision stored before the save filters existed: markup from someone without unfiltered_html.
  async function revisionWrittenBy(writer: Caller): Promise<{ post: number; revision: number }> {
    const contributor = users.get('contributor')!;
    const post = ok(await app.api('POST', '/cms/v2/posts', { headers: contributor.headers, json: { title: 'Plain', content: 'Plain' } })).body.id;
    ok(await app.api('POST', `/cms/v2/posts/${post}`, { headers: admin.headers, json: { title: '<svg onload=alert(1)>Old', content: '<p onclick="alert(1)">Old</p><script>alert(1)</script>' } }));
    ok(await app.api('POST', `/cms/v2/posts/${post}`, { headers: admin.headers, json: { title: 'Newer', content: 'Newer' } }));
    const revisions = ok(await app.api('GET', `/cms/v2/posts/${post}/revisions`, { headers: admin.headers, query: { context: 'edit' } })).body;
    const old = revisions.find((revision: any) => revision.title.raw.endsWith('Old'));
    await app.deps.store.db.collection('revisions').updateOne({ _id: old.id }, { $set: { author: writer.id } });
    return { post, revision: old.id };
  }

  it('filters the fields of a revision its writer could not have stored unfiltered, whoever restores it', async () => {
    const { post, revision } = await revisionWrittenBy(users.get('contributor')!);
    ok(await app.api('POST', `/cms/v2/posts/${post}/revisions/${revision}/restore`, { headers: users.get('editor')!.headers }));
    const restored = ok(await app.api('GET', `/cms/v2/posts/${post}`, { headers: admin.headers, query: { context: 'edit' } })).body;
    expect(restored.title.raw).toBe('Old');
    expect(restored.content.raw).toBe('<p>Old</p>alert(1)');
  });

  it('keeps the markup of a revision written and restored by users with unfiltered_html, as WordPress does', async () => {
    const { post, revision } = await revisionWrittenBy(admin);
    ok(await app.api('POST', `/cms/v2/posts/${post}/revisions/${revision}/restore`, { headers: users.get('editor')!.headers }));
    const restored = ok(await app.api('GET', `/cms/v2/posts/${post}`, { headers: admin.headers, query: { context: 'edit' } })).body;
    expect(restored.title.raw).toBe('<svg onload=alert(1)>Old');
    expect(restored.content.raw).toBe('<p onclick="alert(1)">Old</p><script>alert(1)</script>');
  });
});

describe('a post template', () => {
  it('must be one the theme offers for the type, or the one the item has', async () => {
    const refused = await app.api('POST', '/cms/v2/pages', { headers: admin.headers, json: { title: 'T', template: '<svg onload=alert(1)>' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
    // The theme's custom template for pages, and any template of the site's own (those the tests above made).
    expect(refused.body.data.params.template).toMatch(/^template is not one of (.*, )?page-no-title(, .*)?\.$/);
    const page = ok(await app.api('POST', '/cms/v2/pages', { headers: admin.headers, json: { title: 'T', template: 'page-no-title' } })).body;
    expect(page.template).toBe('page-no-title');
    // The page template is for pages only.
    const post = await app.api('POST', '/cms/v2/posts', { headers: admin.headers, json: { title: 'T', template: 'page-no-title' } });
    expect(post.status).toBe(400);
    expect(post.body.data.params.template).toMatch(/^template is not one of /);
    expect(post.body.data.params.template).not.toContain('page-no-title');
  });
});
