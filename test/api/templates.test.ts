import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testAppForFile, usersFor, type TestApp } from '../support/test-app.js';

type Headers = Record<string, string>;

// The describes that customize or create templates share the file's site; the one that reads the
// theme's files as shipped has a site of its own, which nobody customizes.
const app = testAppForFile();

const indexFile = fs.readFileSync(path.resolve('themes/cornerstone/templates/index.html'), 'utf8');
const headerFile = fs.readFileSync(path.resolve('themes/cornerstone/parts/header.html'), 'utf8');

const get = (app: TestApp, route: string, headers: Headers = app.admin, query?: Record<string, string>) => app.api('GET', `/cms/v2${route}`, { headers, query });
const post = (app: TestApp, route: string, json: unknown, headers: Headers = app.admin) => app.api('POST', `/cms/v2${route}`, { headers, json });
const del = (app: TestApp, route: string, query?: Record<string, string>, headers: Headers = app.admin) => app.api('DELETE', `/cms/v2${route}`, { headers, query });
const adminIdOf = async (app: TestApp): Promise<number> => (await app.api('GET', '/cms/v2/users/me', { headers: app.admin })).body.id;

describe('theme templates', () => {
  // Not the file's: these tests read the theme's templates and parts as shipped, which other describes customize.
  const app = testAppForFile();

  it('lists the active theme’s templates with WordPress’s values for theme files', async () => {
    const response = await get(app, '/templates');
    expect(response.status).toBe(200);
    const slugs = response.body.map((item: { slug: string }) => item.slug);
    expect(slugs).toEqual(expect.arrayContaining(['index', 'home', 'single', 'page', 'archive', 'search', '404']));
    const index = response.body.find((item: { slug: string }) => item.slug === 'index');
    expect(index).toMatchObject({
      id: 'cornerstone//index',
      theme: 'cornerstone',
      slug: 'index',
      type: 'cms_template',
      source: 'theme',
      origin: null,
      content: { raw: indexFile },
      title: { raw: 'Index', rendered: 'Index' },
      status: 'publish',
      cms_id: 0,
      has_theme_file: true,
      is_custom: false,
      author: 0,
    });
    expect(index.content.rendered).toBeUndefined();
    expect(index._links.self[0].href).toBe(`${app.apiRoot}/cms/v2/templates/cornerstone//index`);
  });

  it('reads one template by id, and accepts the id with its double slash collapsed', async () => {
    const response = await get(app, '/templates/cornerstone//single', app.admin, { context: 'edit' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'cornerstone//single', title: { raw: 'Single Posts' }, content: { block_version: 1 } });
    const collapsed = await get(app, '/templates/cornerstone/single');
    expect(collapsed.status).toBe(200);
    expect(collapsed.body.id).toBe('cornerstone//single');
    const custom = await get(app, '/templates/cornerstone//page-no-title');
    expect(custom.body).toMatchObject({ is_custom: true, title: { raw: 'Page without title' } });
  });

  it('answers 404 for unknown ids, another theme’s files and anything naming a path', async () => {
    // `templates/../parts/header.html` exists: an id that became a path would find it.
    for (const id of ['cornerstone//..%252Fparts%252Fheader', 'cornerstone//nope', 'othertheme//index', 'cornerstone//%252E%252E%252Ftheme-manifest', 'cornerstone//..%252Ftheme', '%252E%252E//index', 'index']) {
      const response = await get(app, `/templates/${id}`);
      expect(response.status, id).toBe(404);
      expect(['rest_template_not_found', 'rest_no_route'], id).toContain(response.body.code);
    }
    // `.` is not in the route's pattern, however it is written.
    const dotted = await get(app, '/templates/cornerstone//%2E%2E%2F%2E%2E%2Fpackage');
    expect(dotted.status).toBe(404);
    expect(dotted.body.code).toBe('rest_no_route');
    const encoded = await get(app, '/templates/cornerstone//%252E%252E%252F%252E%252E%252Fpackage');
    expect(encoded.status).toBe(404);
    expect(encoded.body.code).toBe('rest_template_not_found');
  });

  it('filters by post_type: only custom templates declaring it', async () => {
    const forPages = await get(app, '/templates', app.admin, { post_type: 'page' });
    expect(forPages.status).toBe(200);
    expect(forPages.body.map((item: { slug: string }) => item.slug)).toEqual(['page-no-title']);
    const forPosts = await get(app, '/templates', app.admin, { post_type: 'post' });
    expect(forPosts.body).toEqual([]);
  });

  it('lists parts with their areas and filters by area', async () => {
    const response = await get(app, '/template-parts');
    expect(response.status).toBe(200);
    const areas = Object.fromEntries(response.body.map((item: { slug: string; area: string }) => [item.slug, item.area]));
    expect(areas).toEqual({ footer: 'footer', header: 'header', sidebar: 'uncategorized' });
    expect(response.body[0].is_custom).toBeUndefined();
    const headers = await get(app, '/template-parts', app.admin, { area: 'header' });
    expect(headers.body.map((item: { id: string }) => item.id)).toEqual(['cornerstone//header']);
    expect(headers.body[0]).toMatchObject({ type: 'cms_template_part', content: { raw: headerFile }, title: { raw: 'Header' } });
  });
});

describe('customizing a theme template', () => {
  it('creates a customized copy with the same id, and deleting it reverts to the theme file', async () => {
    const adminId = await adminIdOf(app);
    const updated = await post(app, '/templates/cornerstone//archive', { content: '<!-- wp:paragraph --><p>Mine</p><!-- /wp:paragraph -->' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: 'cornerstone//archive',
      source: 'custom',
      origin: 'theme',
      has_theme_file: true,
      author: adminId,
      title: { raw: 'All Archives' },
      content: { raw: '<!-- wp:paragraph --><p>Mine</p><!-- /wp:paragraph -->', block_version: 1 },
      is_custom: false,
      status: 'publish',
    });
    expect(updated.body.cms_id).toBeGreaterThan(0);
    expect(updated.body.modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);

    const read = await get(app, '/templates/cornerstone//archive');
    expect(read.body).toMatchObject({ source: 'custom', cms_id: updated.body.cms_id });
    const listed = await get(app, '/templates', app.admin, { wp_id: String(updated.body.cms_id) });
    expect(listed.body.map((item: { id: string }) => item.id)).toEqual(['cornerstone//archive']);
    const all = await get(app, '/templates');
    expect(all.body.filter((item: { slug: string }) => item.slug === 'archive')).toHaveLength(1);

    const again = await post(app, '/templates/cornerstone//archive', { title: { raw: 'Archive, mine' } });
    expect(again.body).toMatchObject({ cms_id: updated.body.cms_id, title: { raw: 'Archive, mine' }, content: { raw: updated.body.content.raw } });

    const deleted = await del(app, '/templates/cornerstone//archive', { force: 'true' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id: 'cornerstone//archive', source: 'custom', cms_id: updated.body.cms_id } });
    const reverted = await get(app, '/templates/cornerstone//archive');
    expect(reverted.body).toMatchObject({ source: 'theme', cms_id: 0, origin: null, title: { raw: 'All Archives' } });
    expect(reverted.body.content.raw).toBe(fs.readFileSync(path.resolve('themes/cornerstone/templates/archive.html'), 'utf8'));
  });

  it('makes one customized copy when several updates race for a theme file', async () => {
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((text) => post(app, '/templates/cornerstone//home', { content: text })));
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const ids = new Set(answers.map((answer) => answer.body.cms_id));
    expect(ids.size).toBe(1);
    expect(await app.deps.store.db.collection('templates').countDocuments({ theme: 'cornerstone', slug: 'home' })).toBe(1);
    await del(app, '/templates/cornerstone//home', { force: 'true' });
  });

  it('reverts with source=theme', async () => {
    await post(app, '/templates/cornerstone//search', { content: 'changed' });
    const reverted = await post(app, '/templates/cornerstone//search', { source: 'theme' });
    expect(reverted.status).toBe(200);
    expect(reverted.body).toMatchObject({ source: 'theme', cms_id: 0 });
    expect(await app.deps.store.db.collection('templates').countDocuments({ slug: 'search' })).toBe(0);
  });

  it('refuses to delete a theme file, with or without force', async () => {
    for (const query of [undefined, { force: 'true' }]) {
      const response = await del(app, '/templates/cornerstone//index', query);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('rest_invalid_template');
    }
    expect((await get(app, '/templates/cornerstone//index')).status).toBe(200);
  });

  it('answers 404 when updating an unknown template, and changes nothing', async () => {
    const response = await post(app, '/templates/cornerstone//missing', { content: 'x' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('rest_template_not_found');
    expect(await app.deps.store.db.collection('templates').countDocuments({ slug: 'missing' })).toBe(0);
  });
});

describe('custom templates', () => {
  it('creates one (slug required, status publish by default), trashes it, then deletes it', async () => {
    const adminId = await adminIdOf(app);
    const missing = await post(app, '/templates', { title: 'No slug' });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('rest_missing_callback_param');

    const created = await post(app, '/templates', { slug: 'landing', title: 'Landing', content: { raw: '<!-- wp:paragraph /-->' }, description: 'For campaigns' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${app.apiRoot}/cms/v2/templates/cornerstone//landing`);
    expect(created.body).toMatchObject({
      id: 'cornerstone//landing',
      source: 'custom',
      origin: null,
      has_theme_file: false,
      is_custom: true,
      status: 'publish',
      title: { raw: 'Landing' },
      description: 'For campaigns',
      author: adminId,
    });

    const duplicate = await post(app, '/templates', { slug: 'landing' });
    expect(duplicate.status).toBe(201);
    expect(duplicate.body.id).toBe('cornerstone//landing-2');

    const trashed = await del(app, '/templates/cornerstone//landing');
    expect(trashed.status).toBe(200);
    expect(trashed.body.status).toBe('trash');
    const twice = await del(app, '/templates/cornerstone//landing');
    expect(twice.status).toBe(410);
    expect(twice.body.code).toBe('rest_template_already_trashed');
    expect((await get(app, '/templates/cornerstone//landing')).body.status).toBe('trash');
    const listed = await get(app, '/templates');
    expect(listed.body.map((item: { slug: string }) => item.slug)).not.toContain('landing');

    const gone = await del(app, '/templates/cornerstone//landing', { force: 'true' });
    expect(gone.status).toBe(200);
    expect(gone.body.deleted).toBe(true);
    expect((await get(app, '/templates/cornerstone//landing')).status).toBe(404);
  });

  it('refuses bad input before writing anything', async () => {
    const badStatus = await post(app, '/templates', { slug: 'bad-status', status: 'trash' });
    expect(badStatus.status).toBe(400);
    const badSlug = await post(app, '/templates', { slug: '../escape' });
    expect(badSlug.status).toBe(400);
    const badTheme = await post(app, '/templates', { slug: 'elsewhere', theme: '../../etc' });
    expect(badTheme.status).toBe(400);
    const badAuthor = await post(app, '/templates', { slug: 'orphan', author: 999999 });
    expect(badAuthor.status).toBe(400);
    expect(badAuthor.body.code).toBe('rest_invalid_author');
    expect(await app.deps.store.db.collection('templates').countDocuments({ slug: { $in: ['bad-status', 'elsewhere', 'orphan'] } })).toBe(0);
  });
});

describe('template parts', () => {
  it('creates a part in an area (unknown areas become uncategorized) and customizes the header', async () => {
    const created = await app.api('POST', '/cms/v2/template-parts', { headers: app.admin, json: { slug: 'promo', area: 'footer' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'cornerstone//promo', area: 'footer', type: 'cms_template_part' });
    const odd = await app.api('POST', '/cms/v2/template-parts', { headers: app.admin, json: { slug: 'odd', area: 'ceiling' } });
    expect(odd.body.area).toBe('uncategorized');
    const footers = await get(app, '/template-parts', app.admin, { area: 'footer' });
    expect(footers.body.map((item: { slug: string }) => item.slug).sort()).toEqual(['footer', 'promo']);
    const header = await post(app, '/template-parts/cornerstone//header', { content: 'new header' });
    expect(header.body).toMatchObject({ source: 'custom', origin: 'theme', area: 'header' });
    const template = await get(app, '/templates/cornerstone//header');
    expect(template.status).toBe(404);
  });
});

describe('permissions', () => {
  const users = usersFor(app, ['editor', 'subscriber']);

  it('asks for edit_theme_options on every write', async () => {
    const cases: [string, string, unknown?][] = [
      ['POST', '/templates', { slug: 'not-mine' }],
      ['POST', '/templates/cornerstone//index', { content: 'x' }],
      ['DELETE', '/templates/cornerstone//index'],
      ['POST', '/template-parts/cornerstone//header', { content: 'x' }],
    ];
    for (const [method, route, json] of cases) {
      const anonymous = await app.api(method, `/cms/v2${route}`, { json });
      expect(anonymous.status, `${method} ${route}`).toBe(401);
      expect(anonymous.body.code).toBe('rest_cannot_manage_templates');
      for (const headers of [users.editor.headers, users.subscriber.headers]) {
        const refused = await app.api(method, `/cms/v2${route}`, { json, headers });
        expect(refused.status, `${method} ${route}`).toBe(403);
        expect(refused.body.code).toBe('rest_cannot_manage_templates');
      }
    }
    expect(await app.deps.store.db.collection('templates').countDocuments({ slug: { $in: ['not-mine', 'index'] } })).toBe(0);
  });

  it('lets those who may edit posts read templates and template parts (WordPress 6.6+), no one else', async () => {
    const contributor = (await app.asRole('contributor')).headers;
    const reads = ['/templates', '/templates/cornerstone//index', '/template-parts', '/template-parts/cornerstone//header'];
    for (const route of reads) {
      for (const headers of [users.editor.headers, contributor]) {
        const read = await app.api('GET', `/cms/v2${route}`, { headers });
        expect(read.status, `GET ${route}`).toBe(200);
      }
      const anonymous = await app.api('GET', `/cms/v2${route}`);
      expect(anonymous.status, `GET ${route}`).toBe(401);
      expect(anonymous.body.code).toBe('rest_cannot_manage_templates');
      const refused = await app.api('GET', `/cms/v2${route}`, { headers: users.subscriber.headers });
      expect(refused.status, `GET ${route}`).toBe(403);
      expect(refused.body.code).toBe('rest_cannot_manage_templates');
    }
    const one = await app.api('GET', '/cms/v2/templates/cornerstone//index', { headers: contributor });
    expect(one.body).toMatchObject({ id: 'cornerstone//index', slug: 'index' });
    expect(one.headers.get('allow')).toBe('GET');
  });
});

describe('long slugs', () => {
  it('refuses a slug longer than a slug may be with 400, storing nothing', async () => {
    const response = await app.api('POST', '/cms/v2/templates', { headers: app.admin, json: { slug: 'a1b2'.repeat(300) } });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('rest_invalid_param');
    const theme = await app.api('POST', '/cms/v2/templates', { headers: app.admin, json: { slug: 'short', theme: 'c3d4'.repeat(300) } });
    expect(theme.status).toBe(400);
    expect(theme.body.code).toBe('rest_invalid_param');
  });
});

describe('duplicate slugs', () => {
  // `wp_unique_post_slug` has no limit on the suffix: a limit turned the next create into a 500.
  it('takes the next free suffix however many there are, as a form post too', async () => {
    const ids: string[] = [];
    for (let n = 1; n <= 22; n++) {
      const created = await app.api('POST', '/cms/v2/templates', { headers: app.admin, form: { slug: 'repeated' } });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    expect(ids.at(0)).toBe('cornerstone//repeated');
    expect(ids.at(-1)).toBe('cornerstone//repeated-22');
    expect(new Set(ids).size).toBe(22);
  });

  it('keeps a de-duplicated slug within 200 octets, cutting the slug before its suffix', async () => {
    const slug = 's'.repeat(200);
    expect((await post(app, '/templates', { slug })).status).toBe(201);
    const again = await post(app, '/templates', { slug });
    expect(again.status).toBe(201);
    expect(again.body.slug).toBe(`${'s'.repeat(198)}-2`);
  });
});
