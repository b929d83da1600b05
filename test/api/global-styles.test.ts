import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { testAppForFile, usersFor, type TestApp } from '../support/test-app.js';

// The user styles are one record per theme: the describes that read it share the file's site, and
// the one that changes it has a site of its own, so no describe sees another's writes.
const app = testAppForFile();

const themeJson = JSON.parse(fs.readFileSync(path.resolve('themes/cornerstone/theme.json'), 'utf8'));

/** The route of the active theme's user styles, as the themes collection links it. */
async function userStylesRoute(app: TestApp): Promise<string> {
  const themes = await app.api('GET', '/cms/v2/themes', { headers: app.admin, query: { status: ['active'] } });
  return themes.body[0]._links['wp:user-global-styles'][0].href.slice(app.apiRoot.length);
}

describe('GET /global-styles/<id>', () => {
  const users = usersFor(app, ['editor', 'contributor', 'subscriber']);

  it('answers the active theme’s user styles, empty at first', async () => {
    const route = await userStylesRoute(app);
    const response = await app.api('GET', route, { headers: app.admin, query: { context: 'edit' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: route.split('/').pop(), styles: {}, settings: {}, title: { raw: 'Custom Styles', rendered: 'Custom Styles' } });
    expect(response.body._links.self[0].href).toBe(`${app.apiRoot}${route}`);
  });

  it('lets those who edit posts read, edit context only to theme managers', async () => {
    const route = await userStylesRoute(app);
    const asContributor = await app.api('GET', route, { headers: users.contributor.headers });
    expect(asContributor.status).toBe(200);
    // WordPress's schema gives `title.raw` the contexts view, edit and embed.
    expect(asContributor.body.title).toEqual({ raw: 'Custom Styles', rendered: 'Custom Styles' });
    const editContext = await app.api('GET', route, { headers: users.editor.headers, query: { context: 'edit' } });
    expect(editContext.status).toBe(403);
    expect(editContext.body.code).toBe('rest_forbidden_context');
    const asSubscriber = await app.api('GET', route, { headers: users.subscriber.headers });
    expect(asSubscriber.status).toBe(403);
    expect(asSubscriber.body.code).toBe('rest_cannot_view');
    const anonymous = await app.api('GET', route);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_cannot_view');
  });

  it('answers 404 for ids that name no record', async () => {
    for (const id of ['0', '999999', 'abc', '-1', 'themes']) {
      const response = await app.api('GET', `/cms/v2/global-styles/${id}`, { headers: app.admin });
      expect(response.status, id).toBe(404);
      expect(response.body.code, id).toBe('rest_global_styles_not_found');
    }
  });
});

describe('POST /global-styles/<id>', () => {
  // Not the file's: these tests change the record the other describes read as it is at first.
  const app = testAppForFile();
  const users = usersFor(app, ['editor', 'contributor']);

  it('stores styles and settings as sent, keys with dots and dollars included, and replaces only what is sent', async () => {
    const route = await userStylesRoute(app);
    const styles = {
      color: { background: '#000000' },
      blocks: { 'core/paragraph': { typography: { fontSize: '1rem' } }, 'acme.widgets/card': { color: { text: 'red' } } },
      elements: { link: { ':hover': { color: { text: 'blue' } } } },
    };
    const settings = { custom: { $spacing: { 'a.b': 1, nested: [[1, 2], { $gt: '' }] }, __proto__x: true }, color: { palette: [{ slug: 'ink', color: '#111' }] } };
    const response = await app.api('POST', route, { headers: app.admin, json: { styles, settings, title: 'Night' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ styles, settings, title: { raw: 'Night', rendered: 'Night' } });
    const stored = await app.deps.store.db.collection('global_styles').findOne({ theme: 'cornerstone' });
    expect(typeof stored!.styles).toBe('string');

    const titleOnly = await app.api('POST', route, { headers: app.admin, json: { title: { raw: 'Night again' } } });
    expect(titleOnly.body).toMatchObject({ styles, settings, title: { raw: 'Night again' } });
    const read = await app.api('GET', route, { headers: app.admin });
    expect(read.body.styles).toEqual(styles);
    expect(read.body.settings).toEqual(settings);

    const replaced = await app.api('PUT', route, { headers: app.admin, json: { styles: { color: { text: '#fff' } } } });
    expect(replaced.body.styles).toEqual({ color: { text: '#fff' } });
    expect(replaced.body.settings).toEqual(settings);
  });

  it('keeps a __proto__ key as a key', async () => {
    const route = await userStylesRoute(app);
    const body = '{"settings":{"custom":{"__proto__":{"polluted":true}}}}';
    const response = await app.api('POST', route, { headers: app.admin, raw: { body, contentType: 'application/json' } });
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body.settings)).toBe('{"custom":{"__proto__":{"polluted":true}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses what theme.json does not allow, and changes nothing', async () => {
    const route = await userStylesRoute(app);
    const before = await app.api('GET', route, { headers: app.admin });
    const refusals: [unknown, string][] = [
      [{ styles: 'red' }, 'styles'],
      [{ styles: { colour: { text: 'red' } } }, 'styles'],
      [{ settings: { color: { palette: [{ name: 'no slug' }] } } }, 'settings'],
      [{ settings: { layout: { contentSize: 12 } } }, 'settings'],
    ];
    for (const [json, param] of refusals) {
      const response = await app.api('POST', route, { headers: app.admin, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.code).toBe('rest_invalid_param');
      expect(Object.keys(response.body.data.params)).toEqual([param]);
    }
    const css = await app.api('POST', route, { headers: app.admin, json: { styles: { css: 'body{} </style><script>x</script>' } } });
    expect(css.status).toBe(400);
    expect(css.body.code).toBe('rest_custom_css_illegal_markup');
    const after = await app.api('GET', route, { headers: app.admin });
    expect(after.body).toEqual(before.body);
  });

  it('lets only theme managers write', async () => {
    const route = await userStylesRoute(app);
    for (const [headers, status] of [[undefined, 401], [users.editor.headers, 403], [users.contributor.headers, 403]] as const) {
      const response = await app.api('POST', route, { headers, json: { title: 'Mine' } });
      expect(response.status).toBe(status);
      expect(response.body.code).toBe('rest_cannot_edit');
    }
    const missing = await app.api('POST', '/cms/v2/global-styles/999999', { headers: app.admin, json: { title: 'x' } });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('rest_global_styles_not_found');
  });
});

describe('the theme’s own styles', () => {
  const users = usersFor(app, ['editor']);

  it('answers theme.json’s settings and styles for the active theme', async () => {
    const response = await app.api('GET', '/cms/v2/global-styles/themes/cornerstone', { headers: app.admin });
    expect(response.status).toBe(200);
    expect(response.body.settings).toEqual(themeJson.settings);
    expect(response.body.styles).toEqual(themeJson.styles);
    expect(response.body._links.self[0].href).toBe(`${app.apiRoot}/cms/v2/global-styles/themes/cornerstone`);
  });

  it('answers the style variations', async () => {
    const response = await app.api('GET', '/cms/v2/global-styles/themes/cornerstone/variations', { headers: app.admin });
    expect(response.status).toBe(200);
    expect(response.body.map((variation: { title: string }) => variation.title)).toEqual(['Evening', 'Paper']);
    const evening = JSON.parse(fs.readFileSync(path.resolve('themes/cornerstone/styles/evening.json'), 'utf8'));
    expect(response.body[0]).toMatchObject({ version: 3, settings: evening.settings, styles: evening.styles });
  });

  it('answers 404 for another theme and 401/403 without edit_theme_options', async () => {
    for (const suffix of ['', '/variations']) {
      const other = await app.api('GET', `/cms/v2/global-styles/themes/other${suffix}`, { headers: app.admin });
      expect(other.status).toBe(404);
      expect(other.body.code).toBe('rest_theme_not_found');
      const anonymous = await app.api('GET', `/cms/v2/global-styles/themes/cornerstone${suffix}`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('rest_cannot_manage_global_styles');
      const asEditor = await app.api('GET', `/cms/v2/global-styles/themes/cornerstone${suffix}`, { headers: users.editor.headers });
      expect(asEditor.status).toBe(403);
    }
  });
});
