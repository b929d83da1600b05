import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

type Headers = Record<string, string>;

let app: TestApp;
let themesDir: string;
let editor: Headers;

const INACTIVE = 'cms_inactive_widgets';
const SIDEBAR_1 = {
  id: 'sidebar-1',
  name: 'Main Sidebar',
  description: 'Beside the content.',
  class: 'main',
  before_widget: '<li id="%1$s" class="widget %2$s">',
  after_widget: '</li>',
  before_title: '<h2 class="widgettitle">',
  after_title: '</h2>',
};
const FOOTER = {
  id: 'footer-1',
  name: 'Footer',
  description: '',
  class: '',
  before_widget: '<div id="%1$s" class="%2$s">',
  after_widget: '</div>',
  before_title: '<h3>',
  after_title: '</h3>',
};

/** A classic theme (no `templates/index.html`), whose sidebars are active. */
function writeClassicTheme(root: string): void {
  const dir = path.join(root, 'classic');
  fs.mkdirSync(dir, { recursive: true });
  const manifest = { name: 'Classic', description: 'A classic theme.', version: '1.0.0', sidebars: [SIDEBAR_1, FOOTER] };
  fs.writeFileSync(path.join(dir, 'theme-manifest.json'), JSON.stringify(manifest));
}

beforeAll(async () => {
  themesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-widget-themes-'));
  writeClassicTheme(themesDir);
  app = await createTestApp({ env: { CMS_THEMES_DIR: themesDir, CMS_THEME: 'classic' } });
  editor = (await app.asRole('editor')).headers;
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(themesDir, { recursive: true, force: true });
});

const refusal = (code: string, message: string, status: number) => ({ code, message, data: { status } });
const cannotManage = (status: number) => refusal('rest_cannot_manage_widgets', 'Sorry, you are not allowed to manage widgets on this site.', status);

async function createWidget(json: Record<string, unknown>) {
  const response = await app.api('POST', '/cms/v2/widgets', { json, headers: app.admin });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as Record<string, any>;
}

async function widgetIds(sidebar: string): Promise<string[]> {
  const response = await app.api('GET', '/cms/v2/widgets', { query: { sidebar }, headers: app.admin });
  expect(response.status).toBe(200);
  return response.body.map((widget: { id: string }) => widget.id);
}

async function sidebarOf(id: string): Promise<string> {
  const response = await app.api('GET', `/cms/v2/widgets/${id}`, { headers: app.admin });
  expect(response.status).toBe(200);
  return response.body.sidebar;
}

const decode = (encoded: string) => JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));

describe('permissions', () => {
  const routes: [string, string, Record<string, unknown>?][] = [
    ['GET', '/cms/v2/widgets'],
    ['POST', '/cms/v2/widgets', { id_base: 'text' }],
    ['GET', '/cms/v2/widgets/text-2'],
    ['POST', '/cms/v2/widgets/text-2', { sidebar: 'sidebar-1' }],
    ['DELETE', '/cms/v2/widgets/text-2'],
    ['GET', '/cms/v2/sidebars'],
    ['GET', '/cms/v2/sidebars/sidebar-1'],
    ['POST', '/cms/v2/sidebars/sidebar-1', { widgets: [] }],
    ['GET', '/cms/v2/widget-types'],
    ['GET', '/cms/v2/widget-types/text'],
    ['POST', '/cms/v2/widget-types/text/encode', {}],
    ['POST', '/cms/v2/widget-types/text/render', {}],
  ];

  it.each(routes)('%s %s needs edit_theme_options: 401 for anonymous callers, 403 for an editor', async (method, route, json) => {
    const anonymous = await app.api(method, route, { json });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(cannotManage(401));
    const asEditor = await app.api(method, route, { json, headers: editor });
    expect(asEditor.status).toBe(403);
    expect(asEditor.body).toEqual(cannotManage(403));
  });

  it('checks the permission before looking the item up', async () => {
    expect((await app.api('GET', '/cms/v2/sidebars/nowhere')).status).toBe(401);
    expect((await app.api('GET', '/cms/v2/widget-types/nothing')).status).toBe(401);
    expect((await app.api('GET', '/cms/v2/widgets/nothing-9')).status).toBe(401);
  });

  it('changes nothing when a refused caller writes', async () => {
    const widget = await createWidget({ id_base: 'search', sidebar: 'footer-1' });
    expect((await app.api('POST', '/cms/v2/sidebars/footer-1', { json: { widgets: [] }, headers: editor })).status).toBe(403);
    expect((await app.api('DELETE', `/cms/v2/widgets/${widget.id}`, { query: { force: true }, headers: editor })).status).toBe(403);
    expect(await sidebarOf(widget.id)).toBe('footer-1');
    const before = (await app.api('GET', '/cms/v2/widgets', { headers: app.admin })).body.length;
    expect((await app.api('POST', '/cms/v2/widgets', { json: { id_base: 'text' }, headers: editor })).status).toBe(403);
    expect((await app.api('GET', '/cms/v2/widgets', { headers: app.admin })).body.length).toBe(before);
  });
});

describe('GET /cms/v2/widget-types', () => {
  it('lists the service widget types sorted by id, each with its links', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/widget-types', { headers: app.admin });
    expect(status).toBe(200);
    expect(body.map((type: { id: string }) => type.id)).toEqual(['archives', 'block', 'categories', 'custom_html', 'recent-posts', 'search', 'text']);
    expect(body[6]).toEqual({
      id: 'text',
      name: 'Text',
      description: 'Arbitrary text.',
      is_multi: true,
      classname: 'widget_text',
      _links: {
        collection: [{ href: `${app.apiRoot}/cms/v2/widget-types` }],
        self: [{ href: `${app.apiRoot}/cms/v2/widget-types/text` }],
      },
    });
  });

  it('gets one type, and answers 404 rest_widget_type_invalid for an unknown one', async () => {
    const one = await app.api('GET', '/cms/v2/widget-types/recent-posts', { headers: app.admin });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: 'recent-posts', name: 'Recent Posts', classname: 'widget_recent_entries', is_multi: true });
    const unknown = await app.api('GET', '/cms/v2/widget-types/calendar', { headers: app.admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(refusal('rest_widget_type_invalid', 'Invalid widget type.', 404));
  });
});

describe('POST /cms/v2/widget-types/<id>/encode and /render', () => {
  it('encodes a form submission into settings, with the form named by the number and a preview', async () => {
    const { status, body } = await app.api('POST', '/cms/v2/widget-types/text/encode', {
      json: { number: 7, form_data: 'widget-text[7][title]=Hello&widget-text[7][text]=Some%20words&widget-text[7][filter]=on' },
      headers: app.admin,
    });
    expect(status).toBe(200);
    expect(body.instance.raw).toEqual({ title: 'Hello', text: 'Some words', filter: true });
    expect(decode(body.instance.encoded)).toEqual(body.instance.raw);
    expect(body.instance.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(body.form).toContain('name="widget-text[7][title]"');
    expect(body.form).toContain('value="Hello"');
    expect(body.preview).toBe('<div class="widget widget_text"><h2 class="widgettitle">Hello</h2><div class="textwidget"><p>Some words</p>\n</div></div>');
  });

  it('takes encoded settings back when their hash matches, and refuses a forged one', async () => {
    const first = await app.api('POST', '/cms/v2/widget-types/search/encode', { json: { form_data: 'widget-search[1][title]=Find' }, headers: app.admin });
    expect(first.status).toBe(200);
    const again = await app.api('POST', '/cms/v2/widget-types/search/encode', { json: { instance: first.body.instance }, headers: app.admin });
    expect(again.status).toBe(200);
    expect(again.body.instance).toEqual(first.body.instance);
    expect(again.body.form).toContain('name="widget-search[-1][title]"');

    const forged = { encoded: Buffer.from(JSON.stringify({ title: 'Forged' })).toString('base64'), hash: first.body.instance.hash };
    const refused = await app.api('POST', '/cms/v2/widget-types/search/encode', { json: { instance: forged }, headers: app.admin });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(refusal('rest_invalid_widget', 'The provided instance is malformed.', 400));
  });

  it('renders a preview from raw or encoded settings', async () => {
    const raw = await app.api('POST', '/cms/v2/widget-types/custom_html/render', { json: { instance: { raw: { title: 'T', content: '<b>x</b>' } } }, headers: app.admin });
    expect(raw.status).toBe(200);
    expect(raw.body).toEqual({ preview: '<div class="widget widget_custom_html"><h2 class="widgettitle">T</h2><div class="textwidget custom-html-widget"><b>x</b></div></div>' });
    const encoded = await app.api('POST', '/cms/v2/widget-types/search/encode', { json: { form_data: 'widget-search[2][title]=Look' }, headers: app.admin });
    const fromEncoded = await app.api('POST', '/cms/v2/widget-types/search/render', { json: { instance: encoded.body.instance }, headers: app.admin });
    expect(fromEncoded.body.preview).toContain('<h2 class="widgettitle">Look</h2><form role="search" method="get" class="search-form" action="' + app.siteUrl + '/">');
    const forged = await app.api('POST', '/cms/v2/widget-types/search/render', { json: { instance: { encoded: encoded.body.instance.encoded, hash: 'f'.repeat(64) } }, headers: app.admin });
    expect(forged.status).toBe(400);
    expect(forged.body.code).toBe('rest_invalid_widget');
    const unknown = await app.api('POST', '/cms/v2/widget-types/nothing/render', { json: {}, headers: app.admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('rest_widget_type_invalid');
  });

  it('renders block markup through the content renderer, the first block naming the class', async () => {
    const { body } = await app.api('POST', '/cms/v2/widget-types/block/render', {
      json: { instance: { raw: { content: '<!-- wp:paragraph --><p>Block text</p><!-- /wp:paragraph -->' } } },
      headers: app.admin,
    });
    expect(body.preview).toBe('<div class="widget widget_block widget_text"><p>Block text</p></div>');
  });

  it('renders recent posts, archives and categories from the published posts', async () => {
    const category = await app.api('POST', '/cms/v2/categories', { json: { name: 'Widgets news' }, headers: app.admin });
    const post = async (title: string, date: string, status = 'publish') => {
      const response = await app.api('POST', '/cms/v2/posts', { json: { title, date, status, categories: [category.body.id] }, headers: app.admin });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.id as number;
    };
    const older = await post('Older post', '2023-11-05T10:00:00');
    const newer = await post('Newer post', '2024-02-10T09:00:00');
    await post('Another February post', '2024-02-01T08:00:00');
    await post('A draft', '2024-03-01T08:00:00', 'draft');

    const render = async (type: string, raw: Record<string, unknown>) =>
      (await app.api('POST', `/cms/v2/widget-types/${type}/render`, { json: { instance: { raw } }, headers: app.admin })).body.preview as string;

    const recent = await render('recent-posts', { number: 2, show_date: true });
    expect(recent).toBe(
      '<div class="widget widget_recent_entries"><h2 class="widgettitle">Recent Posts</h2><ul>\n' +
        `<li>\n<a href="${app.siteUrl}/?p=${newer}">Newer post</a>\n<span class="post-date">February 10, 2024</span>\n</li>\n` +
        `<li>\n<a href="${app.siteUrl}/?p=${newer + 1}">Another February post</a>\n<span class="post-date">February 1, 2024</span>\n</li>\n` +
        '</ul>\n</div>',
    );
    expect(await render('recent-posts', { number: 10 })).toContain(`?p=${older}`);
    expect(await render('recent-posts', { number: 10 })).not.toContain('A draft');

    const archives = await render('archives', { title: 'By month', count: true });
    expect(archives).toBe(
      '<div class="widget widget_archive"><h2 class="widgettitle">By month</h2><ul>\n' +
        `\t<li><a href='${app.siteUrl}/?m=202402'>February 2024</a>&nbsp;(2)</li>\n` +
        `\t<li><a href='${app.siteUrl}/?m=202311'>November 2023</a>&nbsp;(1)</li>\n` +
        '</ul>\n</div>',
    );

    const categories = await render('categories', { count: true });
    expect(categories).toContain(`<li class="cat-item cat-item-${category.body.id}"><a href="${app.siteUrl}/?cat=${category.body.id}">Widgets news</a> (3)\n</li>`);
    expect(categories).not.toContain('Uncategorized');
  });
});

describe('POST /cms/v2/widgets', () => {
  it('creates a widget numbered after the highest of its type, appended to its sidebar, in edit context', async () => {
    const response = await app.api('POST', '/cms/v2/widgets', {
      json: { id_base: 'text', sidebar: 'sidebar-1', instance: { raw: { title: 'Hello <b>you</b>', text: 'Body', __proto__: { polluted: true } } } },
      headers: app.admin,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBeNull();
    const widget = response.body;
    expect(widget.id).toMatch(/^text-\d+$/);
    expect(widget).toMatchObject({ id_base: 'text', sidebar: 'sidebar-1' });
    expect(widget.rendered).toBe(`<li id="${widget.id}" class="widget widget_text"><h2 class="widgettitle">Hello you</h2><div class="textwidget">Body</div></li>`);
    expect(widget.instance.raw).toEqual({ title: 'Hello you', text: 'Body', filter: false });
    expect(decode(widget.instance.encoded)).toEqual(widget.instance.raw);
    expect(widget.rendered_form).toContain(`name="widget-text[${widget.id.split('-')[1]}][title]"`);
    expect(widget._links).toEqual({
      self: [{ href: `${app.apiRoot}/cms/v2/widgets/${widget.id}` }],
      collection: [{ href: `${app.apiRoot}/cms/v2/widgets` }],
      about: [{ embeddable: true, href: `${app.apiRoot}/cms/v2/widget-types/text` }],
      'wp:sidebar': [{ href: `${app.apiRoot}/cms/v2/sidebars/sidebar-1/` }],
      curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
    });
    expect((await widgetIds('sidebar-1')).at(-1)).toBe(widget.id);
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('starts each type at 2 and continues from the highest, reusing a number only when it was the highest', async () => {
    const first = await createWidget({ id_base: 'archives' });
    expect(first.id).toBe('archives-2');
    expect((await createWidget({ id_base: 'archives' })).id).toBe('archives-3');
    const third = await createWidget({ id_base: 'archives' });
    expect(third.id).toBe('archives-4');
    expect((await app.api('DELETE', '/cms/v2/widgets/archives-3', { query: { force: true }, headers: app.admin })).status).toBe(200);
    expect((await createWidget({ id_base: 'archives' })).id).toBe('archives-5');
    expect((await app.api('DELETE', '/cms/v2/widgets/archives-5', { query: { force: true }, headers: app.admin })).status).toBe(200);
    expect((await createWidget({ id_base: 'archives' })).id).toBe('archives-5');
  });

  it('gives concurrent creates distinct numbers', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => app.api('POST', '/cms/v2/widgets', { json: { id_base: 'categories', sidebar: 'footer-1' }, headers: app.admin })));
    expect(responses.map((response) => response.status)).toEqual(Array(6).fill(201));
    const ids = responses.map((response) => response.body.id);
    expect(new Set(ids).size).toBe(6);
    expect([...ids].sort()).toEqual(['categories-2', 'categories-3', 'categories-4', 'categories-5', 'categories-6', 'categories-7']);
    expect((await widgetIds('footer-1')).filter((id) => id.startsWith('categories-')).sort()).toEqual([...ids].sort());
  });

  it('puts a widget without a sidebar in the inactive sidebar, where it renders nothing', async () => {
    const widget = await createWidget({ id_base: 'search' });
    expect(widget.sidebar).toBe(INACTIVE);
    expect(widget.rendered).toBe('');
    expect(widget.instance.raw).toEqual({});
    expect(widget._links['wp:sidebar']).toEqual([{ href: `${app.apiRoot}/cms/v2/sidebars/${INACTIVE}/` }]);
  });

  it('takes settings from form_data and from encoded settings with their hash', async () => {
    const fromForm = await createWidget({ id_base: 'custom_html', sidebar: 'footer-1', form_data: 'widget-custom_html[1][title]=Form&widget-custom_html[1][content]=%3Cem%3Ehi%3C%2Fem%3E' });
    expect(fromForm.instance.raw).toEqual({ title: 'Form', content: '<em>hi</em>' });
    expect(fromForm.rendered).toBe(`<div id="${fromForm.id}" class="widget_custom_html"><h3>Form</h3><div class="textwidget custom-html-widget"><em>hi</em></div></div>`);
    const encoded = await createWidget({ id_base: 'custom_html', instance: { encoded: fromForm.instance.encoded, hash: fromForm.instance.hash } });
    expect(encoded.instance.raw).toEqual(fromForm.instance.raw);
  });

  it('refuses a write it cannot make with rest_invalid_widget, creating nothing', async () => {
    const before = (await app.api('GET', '/cms/v2/widgets', { headers: app.admin })).body.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ sidebar: 'sidebar-1' }, 'Widget type (id_base) is required.'],
      [{ id_base: 'calendar' }, 'The provided widget type (id_base) cannot be updated.'],
      [{ id_base: 'text', instance: { title: 'x' } }, 'The provided instance is invalid. Must contain raw OR encoded and hash.'],
      [{ id_base: 'text', instance: { encoded: Buffer.from('{"title":"x"}').toString('base64'), hash: 'abc' } }, 'The provided instance is malformed.'],
    ];
    for (const [json, message] of cases) {
      const response = await app.api('POST', '/cms/v2/widgets', { json, headers: app.admin });
      expect(response.status, message).toBe(400);
      expect(response.body).toEqual(refusal('rest_invalid_widget', message, 400));
    }
    const badType = await app.api('POST', '/cms/v2/widgets', { json: { id_base: 'text', instance: 'x' }, headers: app.admin });
    expect(badType.status).toBe(400);
    expect(badType.body.code).toBe('rest_invalid_param');
    expect((await app.api('GET', '/cms/v2/widgets', { headers: app.admin })).body.length).toBe(before);
  });

  it('refuses with 413 what the database could not store, changing nothing', async () => {
    const widget = await createWidget({ id_base: 'text', sidebar: 'sidebar-1', instance: { raw: { title: 'Small' } } });
    const huge = 'x'.repeat(9 * 1024 * 1024);
    const writes = [
      () => app.api('POST', '/cms/v2/widgets', { json: { id_base: 'custom_html', instance: { raw: { content: huge } } }, headers: app.admin }),
      () => app.api('POST', '/cms/v2/widgets', { json: { id_base: 'text', sidebar: 's'.repeat(600) }, headers: app.admin }),
      () => app.api('POST', `/cms/v2/widgets/${widget.id}`, { json: { instance: { raw: { title: 'Changed' } }, sidebar: 's'.repeat(600) }, headers: app.admin }),
    ];
    for (const write of writes) {
      const response = await write();
      expect(response.status).toBe(413);
      expect(response.body.code).toBe('rest_item_too_large');
    }
    const after = await app.api('GET', `/cms/v2/widgets/${widget.id}`, { query: { context: 'edit' }, headers: app.admin });
    expect(after.body).toMatchObject({ sidebar: 'sidebar-1', instance: { raw: { title: 'Small' } } });
  });

  it('saves a widget named by id, creating it when it does not exist', async () => {
    const created = await createWidget({ id: 'recent-posts-40', sidebar: 'footer-1', instance: { raw: { number: 3 } } });
    expect(created).toMatchObject({ id: 'recent-posts-40', id_base: 'recent-posts', sidebar: 'footer-1' });
    expect(created.instance.raw).toEqual({ title: '', number: 3, show_date: false });
    const saved = await createWidget({ id: 'recent-posts-40', sidebar: 'sidebar-1', instance: { raw: { number: 4 } } });
    expect(saved.instance.raw.number).toBe(4);
    expect(await sidebarOf('recent-posts-40')).toBe('sidebar-1');
    expect((await createWidget({ id_base: 'recent-posts' })).id).toBe('recent-posts-41');
    expect((await createWidget({ id: 'recent-posts-041' })).id).toBe('recent-posts-41');
    const concurrent = await Promise.all([1, 2, 3].map(() => app.api('POST', '/cms/v2/widgets', { json: { id: 'recent-posts-50', sidebar: 'footer-1' }, headers: app.admin })));
    expect(concurrent.map((response) => [response.status, response.body.id])).toEqual(Array(3).fill([201, 'recent-posts-50']));
    for (const id of ['recent-posts-0', 'recent-posts-99999999999999999999', 'recent-posts']) {
      const refused = await app.api('POST', '/cms/v2/widgets', { json: { id }, headers: app.admin });
      expect(refused.status, id).toBe(400);
      expect(refused.body).toEqual(refusal('rest_invalid_widget', 'The provided widget type (id_base) cannot be updated.', 400));
    }
  });
});

describe('GET /cms/v2/widgets', () => {
  it('lists widgets sidebar by sidebar, the inactive one first, in each sidebar order; filters by sidebar', async () => {
    const a = await createWidget({ id_base: 'text', sidebar: 'footer-1' });
    const b = await createWidget({ id_base: 'text', sidebar: 'footer-1' });
    const all = (await app.api('GET', '/cms/v2/widgets', { headers: app.admin })).body as { id: string; sidebar: string }[];
    const sidebars = all.map((widget) => widget.sidebar).filter((sidebar, i, list) => list.indexOf(sidebar) === i);
    expect(sidebars).toEqual([INACTIVE, 'sidebar-1', 'footer-1']);
    const footer = await widgetIds('footer-1');
    expect(footer.slice(-2)).toEqual([a.id, b.id]);
    expect(all.filter((widget) => widget.sidebar === 'footer-1').map((widget) => widget.id)).toEqual(footer);
  });

  it('keeps a widget in a sidebar no theme registers, after the known ones, rendering nothing', async () => {
    const widget = await createWidget({ id_base: 'search', sidebar: 'elsewhere' });
    expect(widget).toMatchObject({ sidebar: 'elsewhere', rendered: '' });
    const all = (await app.api('GET', '/cms/v2/widgets', { headers: app.admin })).body as { id: string }[];
    expect(all.at(-1)!.id).toBe(widget.id);
    expect(await widgetIds('elsewhere')).toEqual([widget.id]);
    const sidebars = (await app.api('GET', '/cms/v2/sidebars', { headers: app.admin })).body as { id: string; widgets: string[] }[];
    expect(sidebars.some((sidebar) => sidebar.widgets.includes(widget.id))).toBe(false);
    const moved = await app.api('POST', `/cms/v2/widgets/${widget.id}`, { json: { sidebar: 'footer-1' }, headers: app.admin });
    expect(moved.body.rendered).toContain(`<div id="${widget.id}" class="widget_search">`);
  });

  it('embeds the widget type', async () => {
    const widget = await createWidget({ id_base: 'block', sidebar: 'sidebar-1' });
    const { body } = await app.api('GET', `/cms/v2/widgets/${widget.id}`, { query: { _embed: 'about' }, headers: app.admin });
    expect(body._embedded.about).toEqual([expect.objectContaining({ id: 'block', name: 'Block', classname: 'widget_block' })]);
  });

  it('shows instance and form only in edit context', async () => {
    const widget = await createWidget({ id_base: 'search', sidebar: 'sidebar-1', instance: { raw: { title: 'S' } } });
    const view = await app.api('GET', `/cms/v2/widgets/${widget.id}`, { headers: app.admin });
    expect(Object.keys(view.body).sort()).toEqual(['_links', 'id', 'id_base', 'rendered', 'sidebar']);
    const edit = await app.api('GET', `/cms/v2/widgets/${widget.id}`, { query: { context: 'edit' }, headers: app.admin });
    expect(edit.body.instance).toEqual(widget.instance);
    expect(edit.body.rendered_form).toBe(widget.rendered_form);
    expect(edit.body).not.toHaveProperty('form_data');
  });

  it('answers 404 rest_widget_not_found for an unknown widget', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await app.api(method, '/cms/v2/widgets/text-9999', { json: method === 'POST' ? { sidebar: 'sidebar-1' } : undefined, headers: app.admin });
      expect(response.status).toBe(404);
      expect(response.body).toEqual(refusal('rest_widget_not_found', 'No widget was found with that id.', 404));
    }
  });
});

describe('POST /cms/v2/widgets/<id>', () => {
  it('re-saves the settings and moves the widget to the end of another sidebar', async () => {
    const widget = await createWidget({ id_base: 'text', sidebar: 'sidebar-1', instance: { raw: { title: 'Before' } } });
    const other = await createWidget({ id_base: 'text', sidebar: 'footer-1' });
    const response = await app.api('POST', `/cms/v2/widgets/${widget.id}`, { json: { sidebar: 'footer-1', instance: { raw: { title: 'After', text: 'x' } } }, headers: app.admin });
    expect(response.status).toBe(200);
    expect(response.body.sidebar).toBe('footer-1');
    expect(response.body.instance.raw).toEqual({ title: 'After', text: 'x', filter: false });
    expect(response.body.rendered).toBe(`<div id="${widget.id}" class="widget_text"><h3>After</h3><div class="textwidget">x</div></div>`);
    const footer = await widgetIds('footer-1');
    expect(footer.slice(-2)).toEqual([other.id, widget.id]);
    expect(await widgetIds('sidebar-1')).not.toContain(widget.id);
  });

  it('updates from form_data for its own number, and leaves settings alone without instance or form_data', async () => {
    const widget = await createWidget({ id_base: 'text', sidebar: 'sidebar-1', instance: { raw: { title: 'Keep' } } });
    const number = widget.id.split('-')[1];
    const moved = await app.api('PUT', `/cms/v2/widgets/${widget.id}`, { json: { sidebar: 'sidebar-1' }, headers: app.admin });
    expect(moved.body.instance.raw.title).toBe('Keep');
    const viaForm = await app.api('PATCH', `/cms/v2/widgets/${widget.id}`, { json: { form_data: `widget-text[${number}][title]=Formed` }, headers: app.admin });
    expect(viaForm.status).toBe(200);
    expect(viaForm.body.instance.raw.title).toBe('Formed');
  });

  it('refuses forged settings and changes nothing', async () => {
    const widget = await createWidget({ id_base: 'text', sidebar: 'sidebar-1', instance: { raw: { title: 'Original' } } });
    const forged = { encoded: Buffer.from(JSON.stringify({ title: 'Forged' })).toString('base64'), hash: widget.instance.hash };
    const response = await app.api('POST', `/cms/v2/widgets/${widget.id}`, { json: { sidebar: 'footer-1', instance: forged }, headers: app.admin });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(refusal('rest_invalid_widget', 'The provided instance is malformed.', 400));
    const after = await app.api('GET', `/cms/v2/widgets/${widget.id}`, { query: { context: 'edit' }, headers: app.admin });
    expect(after.body.sidebar).toBe('sidebar-1');
    expect(after.body.instance.raw.title).toBe('Original');
  });
});

describe('DELETE /cms/v2/widgets/<id>', () => {
  it('moves the widget to the inactive sidebar without force, and leaves it there when deleted again', async () => {
    const widget = await createWidget({ id_base: 'text', sidebar: 'sidebar-1', instance: { raw: { title: 'Gone' } } });
    const response = await app.api('DELETE', `/cms/v2/widgets/${widget.id}`, { headers: app.admin });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: widget.id, sidebar: INACTIVE, rendered: '' });
    expect(response.body.instance.raw.title).toBe('Gone');
    expect((await widgetIds(INACTIVE)).at(-1)).toBe(widget.id);
    expect(await widgetIds('sidebar-1')).not.toContain(widget.id);
    const again = await app.api('DELETE', `/cms/v2/widgets/${widget.id}`, { headers: app.admin });
    expect(again.status).toBe(200);
    expect(again.body.sidebar).toBe(INACTIVE);
  });

  it('removes the widget with force, answering with it as it was', async () => {
    const widget = await createWidget({ id_base: 'text', sidebar: 'sidebar-1', instance: { raw: { title: 'Last' } } });
    const response = await app.api('DELETE', `/cms/v2/widgets/${widget.id}`, { query: { force: true }, headers: app.admin });
    expect(response.status).toBe(200);
    expect(response.body.deleted).toBe(true);
    const { _links: _omitted, ...previous } = widget;
    expect(response.body.previous).toEqual(previous);
    expect((await app.api('GET', `/cms/v2/widgets/${widget.id}`, { headers: app.admin })).status).toBe(404);
    expect(await widgetIds('sidebar-1')).not.toContain(widget.id);
  });
});

describe('sidebars', () => {
  it('lists the inactive sidebar then the theme sidebars, with every field', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/sidebars', { headers: app.admin });
    expect(status).toBe(200);
    expect(body.map((sidebar: { id: string }) => sidebar.id)).toEqual([INACTIVE, 'sidebar-1', 'footer-1']);
    const { widgets, _links, ...inactive } = body[0];
    expect(inactive).toEqual({
      id: INACTIVE,
      name: 'Inactive widgets',
      description: '',
      class: '',
      before_widget: '',
      after_widget: '',
      before_title: '',
      after_title: '',
      status: 'inactive',
    });
    expect(widgets).toEqual(await widgetIds(INACTIVE));
    expect(body[1]).toMatchObject({ ...SIDEBAR_1, status: 'active' });
    expect(body[1].widgets).toEqual(await widgetIds('sidebar-1'));
    expect(body[1]._links).toEqual({
      collection: [{ href: `${app.apiRoot}/cms/v2/sidebars` }],
      self: [{ href: `${app.apiRoot}/cms/v2/sidebars/sidebar-1` }],
      'wp:widget': [{ embeddable: true, href: `${app.apiRoot}/cms/v2/widgets?sidebar=sidebar-1` }],
      curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
    });
  });

  it('gets one sidebar, and answers 404 rest_sidebar_not_found for an unknown one', async () => {
    const one = await app.api('GET', '/cms/v2/sidebars/footer-1', { headers: app.admin });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ ...FOOTER, status: 'active' });
    for (const method of ['GET', 'POST']) {
      const unknown = await app.api(method, '/cms/v2/sidebars/nowhere', { json: method === 'POST' ? { widgets: [] } : undefined, headers: app.admin });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(refusal('rest_sidebar_not_found', 'No sidebar exists with that id.', 404));
    }
  });

  it('reorders, pulls listed widgets from other sidebars, and sends dropped ones to the end of the inactive sidebar', async () => {
    await app.api('POST', '/cms/v2/sidebars/sidebar-1', { json: { widgets: [] }, headers: app.admin });
    const a = await createWidget({ id_base: 'text', sidebar: 'sidebar-1' });
    const b = await createWidget({ id_base: 'text', sidebar: 'sidebar-1' });
    const c = await createWidget({ id_base: 'text', sidebar: 'sidebar-1' });
    const d = await createWidget({ id_base: 'text', sidebar: 'footer-1' });
    const e = await createWidget({ id_base: 'text' });

    const response = await app.api('POST', '/cms/v2/sidebars/sidebar-1', { json: { widgets: [c.id, d.id, 'nothing-77', e.id, a.id] }, headers: app.admin });
    expect(response.status).toBe(200);
    expect(response.body.widgets).toEqual([c.id, d.id, e.id, a.id]);
    expect(response.body).toMatchObject({ id: 'sidebar-1', status: 'active' });
    expect(await widgetIds('sidebar-1')).toEqual([c.id, d.id, e.id, a.id]);
    expect(await widgetIds('footer-1')).not.toContain(d.id);
    const inactive = await widgetIds(INACTIVE);
    expect(inactive.at(-1)).toBe(b.id);
    expect(inactive).not.toContain(e.id);
    expect(await sidebarOf(b.id)).toBe(INACTIVE);

    const unchanged = await app.api('PATCH', '/cms/v2/sidebars/sidebar-1', { json: {}, headers: app.admin });
    expect(unchanged.body.widgets).toEqual([c.id, d.id, e.id, a.id]);

    const emptied = await app.api('PUT', '/cms/v2/sidebars/sidebar-1', { json: { widgets: [] }, headers: app.admin });
    expect(emptied.body.widgets).toEqual([]);
    expect((await widgetIds(INACTIVE)).slice(-4)).toEqual([b.id, c.id, d.id, e.id, a.id].slice(1));
  });

  it('reorders the inactive sidebar itself, keeping unlisted widgets there', async () => {
    const x = await createWidget({ id_base: 'search' });
    const y = await createWidget({ id_base: 'search' });
    const response = await app.api('POST', `/cms/v2/sidebars/${INACTIVE}`, { json: { widgets: [y.id] }, headers: app.admin });
    expect(response.status).toBe(200);
    expect(response.body.widgets[0]).toBe(y.id);
    expect(response.body.widgets).toContain(x.id);
  });

  it('refuses widgets that are not a list of ids', async () => {
    const response = await app.api('POST', '/cms/v2/sidebars/sidebar-1', { json: { widgets: [{ $gt: '' }] }, headers: app.admin });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('rest_invalid_param');
  });

  it('keeps a widget in exactly one sidebar when two requests move it at once', async () => {
    for (let round = 0; round < 5; round++) {
      const widget = await createWidget({ id_base: 'text', sidebar: 'sidebar-1' });
      const results = await Promise.all([
        app.api('POST', '/cms/v2/sidebars/footer-1', { json: { widgets: [...(await widgetIds('footer-1')), widget.id] }, headers: app.admin }),
        app.api('POST', `/cms/v2/widgets/${widget.id}`, { json: { sidebar: INACTIVE }, headers: app.admin }),
        app.api('POST', '/cms/v2/sidebars/sidebar-1', { json: { widgets: [widget.id] }, headers: app.admin }),
      ]);
      expect(results.map((result) => result.status)).toEqual([200, 200, 200]);
      const sidebars = (await app.api('GET', '/cms/v2/sidebars', { headers: app.admin })).body as { id: string; widgets: string[] }[];
      expect(sidebars.filter((sidebar) => sidebar.widgets.includes(widget.id))).toHaveLength(1);
    }
  });
});

describe('with a block theme active', () => {
  it('shows every sidebar as inactive', async () => {
    const blockApp = await createTestApp();
    try {
      const { body } = await blockApp.api('GET', '/cms/v2/sidebars', { headers: blockApp.admin });
      expect(body.map((sidebar: { id: string; status: string }) => [sidebar.id, sidebar.status])).toEqual([
        [INACTIVE, 'inactive'],
        ['sidebar-1', 'inactive'],
        ['footer-1', 'inactive'],
      ]);
    } finally {
      await blockApp.stop();
    }
  });
});
