import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

type Headers = Record<string, string>;

let app: TestApp;
let editor: Headers;
let contributor: Headers;
let subscriber: Headers;

beforeAll(async () => {
  app = await createTestApp();
  editor = (await app.asRole('editor')).headers;
  contributor = (await app.asRole('contributor')).headers;
  subscriber = (await app.asRole('subscriber')).headers;
});
afterAll(async () => {
  await app?.stop();
});

describe('GET /themes', () => {
  it('lists every theme folder with its status, in WordPress’s shape, as one page', async () => {
    const response = await app.api('GET', '/cms/v2/themes', { headers: app.admin });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-wp-total')).toBe(String(response.body.length));
    expect(response.headers.get('x-wp-totalpages')).toBe('1');
    const theme = response.body.find((item: { stylesheet: string }) => item.stylesheet === 'cornerstone');
    expect(theme).toMatchObject({
      stylesheet: 'cornerstone',
      template: 'cornerstone',
      status: 'active',
      name: { raw: 'Cornerstone', rendered: 'Cornerstone' },
      version: '1.0.0',
      is_block_theme: true,
      textdomain: 'cornerstone',
      requires_cms: '1.0',
      requires_runtime: '20.19',
    });
    expect(theme.description.raw).toMatch(/default theme/);
    expect(theme.tags.raw).toContain('full-site-editing');
    expect(theme.theme_supports['block-templates']).toBe(true);
    expect(theme.theme_supports['editor-color-palette']).toContainEqual({ name: 'Accent', slug: 'accent', color: '#2f5d8a' });
    expect(theme.theme_supports['editor-font-sizes']).toContainEqual({ name: 'Small', slug: 'small', size: '0.875rem' });
    expect(theme._links.self[0].href).toBe(`${app.apiRoot}/cms/v2/themes/cornerstone`);
  });

  it('links the active theme to its user global styles, one record however many ask at once', async () => {
    const answers = await Promise.all([
      ...[1, 2, 3].map(() => app.api('GET', '/cms/v2/themes/cornerstone', { headers: app.admin })),
      app.api('GET', '/cms/v2/themes', { headers: contributor, query: { status: ['active'] } }),
    ]);
    const list = answers[3];
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const href: string = list.body[0]._links['wp:user-global-styles'][0].href;
    expect(href).toMatch(new RegExp(`^${app.apiRoot}/cms/v2/global-styles/\\d+$`));
    for (const response of answers.slice(0, 3)) expect(response.body._links['wp:user-global-styles'][0].href).toBe(href);
    expect(await app.deps.store.db.collection('global_styles').countDocuments({ theme: 'cornerstone' })).toBe(1);
    const styles = await app.api('GET', href.slice(app.apiRoot.length), { headers: app.admin });
    expect(styles.status).toBe(200);
    expect(styles.body.id).toBe(href.split('/').pop());
  });

  it('filters by status', async () => {
    const inactive = await app.api('GET', '/cms/v2/themes', { headers: app.admin, query: { status: ['inactive'] } });
    expect(inactive.status).toBe(200);
    expect(inactive.body.every((theme: { status: string }) => theme.status === 'inactive')).toBe(true);
    const bad = await app.api('GET', '/cms/v2/themes', { headers: app.admin, query: { status: ['broken'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('rest_invalid_param');
  });

  it('lets only theme managers list every theme; others may ask for the active one if they edit posts', async () => {
    const anonymous = await app.api('GET', '/cms/v2/themes');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_cannot_view_themes');
    const asEditor = await app.api('GET', '/cms/v2/themes', { headers: editor });
    expect(asEditor.status).toBe(403);
    expect(asEditor.body.code).toBe('rest_cannot_view_themes');
    const activeOnly = await app.api('GET', '/cms/v2/themes', { headers: editor, query: { status: ['active'] } });
    expect(activeOnly.status).toBe(200);
    const asSubscriber = await app.api('GET', '/cms/v2/themes', { headers: subscriber, query: { status: ['active'] } });
    expect(asSubscriber.status).toBe(403);
    expect(asSubscriber.body.code).toBe('rest_cannot_view_active_theme');
    const anonymousActive = await app.api('GET', '/cms/v2/themes', { query: { status: ['active'] } });
    expect(anonymousActive.status).toBe(401);
  });
});

describe('GET /themes/<stylesheet>', () => {
  it('answers the active theme to anyone who edits posts, and 404 for an unknown theme', async () => {
    const asContributor = await app.api('GET', '/cms/v2/themes/cornerstone', { headers: contributor });
    expect(asContributor.status).toBe(200);
    expect(asContributor.body.status).toBe('active');
    const missing = await app.api('GET', '/cms/v2/themes/no-such-theme', { headers: app.admin });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('rest_theme_not_found');
  });

  it('refuses another theme, or any theme to those who edit nothing', async () => {
    const other = await app.api('GET', '/cms/v2/themes/no-such-theme', { headers: editor });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('rest_cannot_view_themes');
    const asSubscriber = await app.api('GET', '/cms/v2/themes/cornerstone', { headers: subscriber });
    expect(asSubscriber.status).toBe(403);
    expect(asSubscriber.body.code).toBe('rest_cannot_view_active_theme');
    const anonymous = await app.api('GET', '/cms/v2/themes/cornerstone');
    expect(anonymous.status).toBe(401);
  });

  it('is read-only', async () => {
    const write = await app.api('POST', '/cms/v2/themes/cornerstone', { headers: app.admin, json: { status: 'inactive' } });
    expect(write.status).toBe(404);
    expect(write.body.code).toBe('rest_no_route');
  });
});
