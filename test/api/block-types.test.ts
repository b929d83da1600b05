import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

type Headers = Record<string, string>;

let app: TestApp;
let contributor: Headers;
let subscriber: Headers;

beforeAll(async () => {
  app = await createTestApp();
  contributor = (await app.asRole('contributor')).headers;
  subscriber = (await app.asRole('subscriber')).headers;
});
afterAll(async () => {
  await app?.stop();
});

const refusal = (code: string, message: string, status: number) => ({ code, message, data: { status } });

const REQUIRED_CORE = [
  'paragraph', 'heading', 'list', 'list-item', 'quote', 'image', 'gallery', 'code', 'preformatted', 'table',
  'buttons', 'button', 'columns', 'column', 'group', 'separator', 'spacer', 'html', 'navigation', 'navigation-link',
  'template-part', 'post-title', 'post-content', 'site-title', 'site-logo', 'latest-posts', 'archives', 'categories',
  'search', 'widget-group',
].map((name) => `core/${name}`);

const FIELDS = [
  'api_version', 'title', 'name', 'description', 'icon', 'attributes', 'provides_context', 'uses_context', 'selectors',
  'supports', 'category', 'is_dynamic', 'editor_script_handles', 'script_handles', 'view_script_handles',
  'view_script_module_ids', 'editor_style_handles', 'style_handles', 'view_style_handles', 'styles', 'variations',
  'textdomain', 'parent', 'ancestor', 'allowed_blocks', 'keywords', 'example', 'block_hooks', 'editor_script', 'script',
  'view_script', 'editor_style', 'style',
];

describe('GET /cms/v2/block-types', () => {
  it('lists every core block the site needs, in one unpaginated answer, each with every field', async () => {
    const { status, body, headers } = await app.api('GET', '/cms/v2/block-types', { headers: contributor });
    expect(status).toBe(200);
    expect(headers.get('x-wp-total')).toBeNull();
    const names = body.map((block: { name: string }) => block.name);
    for (const name of REQUIRED_CORE) expect(names).toContain(name);
    // Registration order: the core folder's order, by name.
    expect(names).toEqual([...names].sort());
    for (const block of body) expect(Object.keys(block), block.name).toEqual([...FIELDS, '_links']);
  });

  it('maps block.json to the REST fields with WordPress defaults and the deprecated single handles', async () => {
    const { body } = await app.api('GET', '/cms/v2/block-types/core/separator', { headers: contributor });
    const { _links, supports, ...rest } = body;
    expect(rest).toEqual({
      api_version: 3,
      title: 'Separator',
      name: 'core/separator',
      description: 'Create a break between ideas or sections with a horizontal separator.',
      icon: null,
      attributes: {
        opacity: { type: 'string', default: 'alpha-channel' },
        tagName: { type: 'string', enum: ['hr', 'div'], default: 'hr' },
        lock: { type: 'object' },
        metadata: { type: 'object' },
      },
      provides_context: {},
      uses_context: [],
      selectors: {},
      category: 'design',
      is_dynamic: false,
      editor_script_handles: [],
      script_handles: [],
      view_script_handles: [],
      view_script_module_ids: [],
      editor_style_handles: ['wp-block-separator-editor'],
      style_handles: ['wp-block-separator'],
      view_style_handles: [],
      styles: [
        { name: 'default', label: 'Default', isDefault: true },
        { name: 'wide', label: 'Wide Line' },
        { name: 'dots', label: 'Dots' },
      ],
      variations: [],
      textdomain: 'default',
      parent: null,
      ancestor: null,
      allowed_blocks: null,
      keywords: ['horizontal-line', 'hr', 'divider'],
      example: null,
      block_hooks: {},
      editor_script: null,
      script: null,
      view_script: null,
      editor_style: 'wp-block-separator-editor',
      style: 'wp-block-separator',
    });
    expect(supports.align).toEqual(['center', 'wide', 'full']);
    expect(_links).toEqual({
      collection: [{ href: `${app.apiRoot}/cms/v2/block-types` }],
      self: [{ href: `${app.apiRoot}/cms/v2/block-types/core/separator` }],
      up: [{ href: `${app.apiRoot}/cms/v2/block-types/core` }],
    });
  });

  it('carries context, parents and allowed blocks as block.json declares them', async () => {
    const gallery = (await app.api('GET', '/cms/v2/block-types/core/gallery', { headers: contributor })).body;
    expect(gallery.provides_context).toEqual({ allowResize: 'allowResize', imageCrop: 'imageCrop', fixedHeight: 'fixedHeight' });
    expect(gallery.allowed_blocks).toEqual(['core/image']);
    const image = (await app.api('GET', '/cms/v2/block-types/core/image', { headers: contributor })).body;
    expect(image.uses_context).toContain('imageCrop');
    const listItem = (await app.api('GET', '/cms/v2/block-types/core/list-item', { headers: contributor })).body;
    expect(listItem.parent).toEqual(['core/list']);
  });

  it('marks the blocks WordPress renders on the server as dynamic, and links their renderer', async () => {
    const { body } = await app.api('GET', '/cms/v2/block-types', { headers: contributor, query: { _fields: 'name,is_dynamic' } });
    const dynamic = new Set(body.filter((block: { is_dynamic: boolean }) => block.is_dynamic).map((block: { name: string }) => block.name));
    for (const name of ['latest-posts', 'archives', 'categories', 'search', 'navigation', 'navigation-link', 'template-part', 'post-title', 'post-content', 'site-title', 'site-logo', 'widget-group']) {
      expect(dynamic.has(`core/${name}`), name).toBe(true);
    }
    for (const name of ['paragraph', 'list', 'list-item', 'quote', 'code', 'preformatted', 'table', 'buttons', 'columns', 'column', 'group', 'separator', 'spacer', 'html']) {
      expect(dynamic.has(`core/${name}`), name).toBe(false);
    }
    const latest = await app.api('GET', '/cms/v2/block-types/core/latest-posts', { headers: contributor });
    expect(latest.body._links['wp:render-block']).toEqual([{ href: `${app.apiRoot}/cms/v2/block-renderer/core/latest-posts?context=edit` }]);
  });

  it('filters by namespace, from the query or the route, comparing the part before the slash exactly', async () => {
    const all = await app.api('GET', '/cms/v2/block-types', { headers: contributor });
    const byQuery = await app.api('GET', '/cms/v2/block-types', { headers: contributor, query: { namespace: 'core' } });
    expect(byQuery.body.length).toBe(all.body.filter((block: { name: string }) => block.name.startsWith('core/')).length);
    const byRoute = await app.api('GET', '/cms/v2/block-types/core', { headers: contributor });
    expect(byRoute.status).toBe(200);
    expect(byRoute.body).toEqual(byQuery.body);
    for (const namespace of ['cor', 'unknown']) {
      const none = await app.api('GET', `/cms/v2/block-types/${namespace}`, { headers: contributor });
      expect(none.status).toBe(200);
      expect(none.body).toEqual([]);
    }
  });

  it('answers an unknown block type with 404 rest_block_type_invalid', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/block-types/core/no-such-block', { headers: contributor });
    expect(status).toBe(404);
    expect(body).toEqual(refusal('rest_block_type_invalid', 'Invalid block type.', 404));
    const dotted = await app.api('GET', '/cms/v2/block-types/core/para.graph', { headers: contributor });
    expect(dotted.body.code).toBe('rest_no_route');
  });

  it('is for callers with edit_posts: 401 anonymous, 403 subscriber, before any 404', async () => {
    const message = 'Sorry, you are not allowed to manage block types.';
    for (const route of ['/cms/v2/block-types', '/cms/v2/block-types/core', '/cms/v2/block-types/core/paragraph', '/cms/v2/block-types/core/no-such-block']) {
      const anonymous = await app.api('GET', route);
      expect(anonymous.status, route).toBe(401);
      expect(anonymous.body, route).toEqual(refusal('rest_block_type_cannot_view', message, 401));
      const refused = await app.api('GET', route, { headers: subscriber });
      expect(refused.status, route).toBe(403);
      expect(refused.body, route).toEqual(refusal('rest_block_type_cannot_view', message, 403));
    }
  });

  it('validates context', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/block-types', { headers: contributor, query: { context: 'everything' } });
    expect(status).toBe(400);
    expect(body.code).toBe('rest_invalid_param');
  });
});
