// What each registry answers; what every resource answers alike (context filtering, `_fields`,
// 401 and 403, OPTIONS, links, an unknown context) is test/api/resource-contract.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
let subscriber: Record<string, string>;
let contributor: Record<string, string>;
let editor: Record<string, string>;

const curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];

beforeAll(async () => {
  app = await createTestApp();
  subscriber = (await app.asRole('subscriber')).headers;
  contributor = (await app.asRole('contributor')).headers;
  editor = (await app.asRole('editor')).headers;
});
afterAll(async () => {
  await app?.stop();
});

const refusal = (code: string, message: string, status: number) => ({ code, message, data: { status } });

describe('GET /cms/v2/statuses', () => {
  it('shows anonymous callers only the public status, keyed by slug, with its archive link', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/statuses');
    expect(status).toBe(200);
    expect(body).toEqual({
      publish: {
        name: 'Published',
        public: true,
        queryable: true,
        slug: 'publish',
        date_floating: false,
        _links: { archives: [{ href: `${app.apiRoot}/cms/v2/posts` }] },
      },
    });
  });

  it('shows a subscriber, who edits no post type, only the public status', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/statuses', { headers: subscriber });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['publish']);
  });

  it('shows a contributor the six statuses in WordPress order, with view-context fields only', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/statuses', { headers: contributor });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['publish', 'future', 'draft', 'pending', 'private', 'trash']);
    expect(body.private).toEqual({
      name: 'Private',
      public: false,
      queryable: false,
      slug: 'private',
      date_floating: false,
      _links: { archives: [{ href: `${app.apiRoot}/cms/v2/posts?status=private` }] },
    });
    expect(body.draft.date_floating).toBe(true);
  });

  it('gives every field in edit context to whoever edits some post type', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/statuses', { headers: contributor, query: { context: 'edit' } });
    expect(status).toBe(200);
    const fields = (slug: string) => {
      const { _links, ...rest } = body[slug];
      return rest;
    };
    const flags = (flags: Record<string, boolean>) => ({
      private: false, protected: false, public: false, queryable: false, show_in_list: true, date_floating: false, ...flags,
    });
    expect(fields('publish')).toEqual({ name: 'Published', slug: 'publish', ...flags({ public: true, queryable: true }) });
    expect(fields('future')).toEqual({ name: 'Scheduled', slug: 'future', ...flags({ protected: true }) });
    expect(fields('draft')).toEqual({ name: 'Draft', slug: 'draft', ...flags({ protected: true, date_floating: true }) });
    expect(fields('pending')).toEqual({ name: 'Pending', slug: 'pending', ...flags({ protected: true, date_floating: true }) });
    expect(fields('private')).toEqual({ name: 'Private', slug: 'private', ...flags({ private: true }) });
    expect(fields('trash')).toEqual({ name: 'Trash', slug: 'trash', ...flags({ show_in_list: false }) });
  });

  it('refuses edit context to callers who edit no post type: 401 anonymous, 403 subscriber', async () => {
    const message = 'Sorry, you are not allowed to manage post statuses.';
    const anonymous = await app.api('GET', '/cms/v2/statuses', { query: { context: 'edit' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(refusal('rest_cannot_view', message, 401));
    const refused = await app.api('GET', '/cms/v2/statuses', { headers: subscriber, query: { context: 'edit' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(refusal('rest_cannot_view', message, 403));
  });
});

describe('GET /cms/v2/statuses/<status>', () => {
  it('serves the public status to anyone, in any context', async () => {
    const view = await app.api('GET', '/cms/v2/statuses/publish');
    expect(view.status).toBe(200);
    expect(view.body).toEqual({
      name: 'Published',
      public: true,
      queryable: true,
      slug: 'publish',
      date_floating: false,
      _links: { archives: [{ href: `${app.apiRoot}/cms/v2/posts` }] },
    });
    // WordPress has no edit-context check on a single status.
    const edit = await app.api('GET', '/cms/v2/statuses/publish', { query: { context: 'edit' } });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ private: false, protected: false, show_in_list: true });
  });

  it('serves a non-public status to a contributor and refuses it to others', async () => {
    const draft = await app.api('GET', '/cms/v2/statuses/draft', { headers: contributor });
    expect(draft.status).toBe(200);
    expect(draft.body._links).toEqual({ archives: [{ href: `${app.apiRoot}/cms/v2/posts?status=draft` }] });
    const anonymous = await app.api('GET', '/cms/v2/statuses/draft');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(refusal('rest_cannot_read_status', 'Cannot view status.', 401));
    const refused = await app.api('GET', '/cms/v2/statuses/trash', { headers: subscriber });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(refusal('rest_cannot_read_status', 'Cannot view status.', 403));
  });

  it('never shows the internal statuses, not even to an administrator', async () => {
    for (const slug of ['inherit', 'auto-draft']) {
      const { status, body } = await app.api('GET', `/cms/v2/statuses/${slug}`, { headers: app.admin });
      expect(status, slug).toBe(403);
      expect(body).toEqual(refusal('rest_cannot_read_status', 'Cannot view status.', 403));
    }
  });

  it('answers an unknown status with 404 rest_status_invalid', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/statuses/sleeping', { headers: app.admin });
    expect(status).toBe(404);
    expect(body).toEqual(refusal('rest_status_invalid', 'Invalid status.', 404));
  });
});

describe('GET /cms/v2/types', () => {
  const allTypes = ['post', 'page', 'attachment', 'nav_menu_item', 'cms_template', 'cms_template_part', 'cms_global_styles'];

  it('lists every REST post type to anyone, keyed by slug, with view fields and links', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/types');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(allTypes);
    expect(body.post).toEqual({
      description: '',
      hierarchical: false,
      has_archive: false,
      name: 'Posts',
      slug: 'post',
      icon: 'dashicons-admin-post',
      taxonomies: ['category', 'post_tag'],
      rest_base: 'posts',
      rest_namespace: 'cms/v2',
      _links: {
        collection: [{ href: `${app.apiRoot}/cms/v2/types` }],
        'wp:items': [{ href: `${app.apiRoot}/cms/v2/posts` }],
        curies,
      },
    });
    expect(body.attachment._links['wp:items']).toEqual([{ href: `${app.apiRoot}/cms/v2/media` }]);
    expect(body.nav_menu_item).toMatchObject({ taxonomies: ['nav_menu'], rest_base: 'menu-items', icon: null });
    expect(body.page.hierarchical).toBe(true);
  });

  it('keeps only the types the caller can edit in edit context', async () => {
    const byContributor = await app.api('GET', '/cms/v2/types', { headers: contributor, query: { context: 'edit' } });
    expect(byContributor.status).toBe(200);
    expect(Object.keys(byContributor.body)).toEqual(['post', 'attachment']);
    const byEditor = await app.api('GET', '/cms/v2/types', { headers: editor, query: { context: 'edit' } });
    expect(Object.keys(byEditor.body)).toEqual(['post', 'page', 'attachment']);
    const byAdmin = await app.api('GET', '/cms/v2/types', { headers: app.admin, query: { context: 'edit' } });
    expect(Object.keys(byAdmin.body)).toEqual(allTypes);
  });

  it('refuses edit context to callers who edit no post type: 401 anonymous, 403 subscriber', async () => {
    const message = 'Sorry, you are not allowed to edit posts in this post type.';
    const anonymous = await app.api('GET', '/cms/v2/types', { query: { context: 'edit' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(refusal('rest_cannot_view', message, 401));
    const refused = await app.api('GET', '/cms/v2/types', { headers: subscriber, query: { context: 'edit' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(refusal('rest_cannot_view', message, 403));
  });
});

describe('GET /cms/v2/types/<type>', () => {
  it('serves a type in view context to anyone', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/types/page');
    expect(status).toBe(200);
    expect(body).toEqual({
      description: '',
      hierarchical: true,
      has_archive: false,
      name: 'Pages',
      slug: 'page',
      icon: 'dashicons-admin-page',
      taxonomies: [],
      rest_base: 'pages',
      rest_namespace: 'cms/v2',
      _links: {
        collection: [{ href: `${app.apiRoot}/cms/v2/types` }],
        'wp:items': [{ href: `${app.apiRoot}/cms/v2/pages` }],
        curies,
      },
    });
  });

  it('serves every field in edit context to a caller who can edit the type', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/types/page', { headers: editor, query: { context: 'edit' } });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual([
      '_links', 'capabilities', 'description', 'has_archive', 'hierarchical', 'icon', 'labels', 'name', 'rest_base',
      'rest_namespace', 'slug', 'supports', 'taxonomies', 'viewable', 'visibility',
    ]);
    expect(body.capabilities).toMatchObject({ edit_post: 'edit_page', read_post: 'read_page', edit_posts: 'edit_pages', create_posts: 'edit_pages', read: 'read' });
    expect(body.visibility).toEqual({ show_in_nav_menus: true, show_ui: true });
    expect(body.viewable).toBe(true);
    expect(body.labels).toMatchObject({ name: 'Pages', singular_name: 'Page' });
    expect(body.supports).toMatchObject({ title: true, editor: true, 'page-attributes': true });
  });

  it('refuses edit context to a caller who cannot edit that type: 401 anonymous, 403 contributor', async () => {
    const message = 'Sorry, you are not allowed to edit posts in this post type.';
    const anonymous = await app.api('GET', '/cms/v2/types/post', { query: { context: 'edit' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(refusal('rest_forbidden_context', message, 401));
    const refused = await app.api('GET', '/cms/v2/types/page', { headers: contributor, query: { context: 'edit' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(refusal('rest_forbidden_context', message, 403));
    const own = await app.api('GET', '/cms/v2/types/post', { headers: contributor, query: { context: 'edit' } });
    expect(own.status).toBe(200);
    expect(own.body.capabilities.edit_post).toBe('edit_post');
  });

  it('answers an unknown type with 404 rest_type_invalid', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/types/product');
    expect(status).toBe(404);
    expect(body).toEqual(refusal('rest_type_invalid', 'Invalid post type.', 404));
  });
});

describe('GET /cms/v2/taxonomies', () => {
  const category = {
    description: '',
    hierarchical: true,
    name: 'Categories',
    slug: 'category',
    types: ['post'],
    rest_base: 'categories',
    rest_namespace: 'cms/v2',
  };

  it('lists every REST taxonomy to anyone, keyed by slug, with view fields and links', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/taxonomies');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['category', 'post_tag', 'nav_menu']);
    expect(body.category).toEqual({
      ...category,
      _links: {
        collection: [{ href: `${app.apiRoot}/cms/v2/taxonomies` }],
        'wp:items': [{ href: `${app.apiRoot}/cms/v2/categories` }],
        curies,
      },
    });
    expect(body.post_tag._links['wp:items']).toEqual([{ href: `${app.apiRoot}/cms/v2/tags` }]);
    expect(body.nav_menu).toMatchObject({ name: 'Navigation Menus', hierarchical: false, types: ['nav_menu_item'], rest_base: 'menus' });
  });

  it('limits the list to the taxonomies of a post type, answering {} when there are none', async () => {
    const forPosts = await app.api('GET', '/cms/v2/taxonomies', { query: { type: 'post' } });
    expect(Object.keys(forPosts.body)).toEqual(['category', 'post_tag']);
    const forMenuItems = await app.api('GET', '/cms/v2/taxonomies', { query: { type: 'nav_menu_item' } });
    expect(Object.keys(forMenuItems.body)).toEqual(['nav_menu']);
    const forPages = await app.api('GET', '/cms/v2/taxonomies', { query: { type: 'page' } });
    expect(forPages.status).toBe(200);
    expect(forPages.text).toBe('{}');
  });

  it('keeps only the taxonomies whose terms the caller may assign in edit context', async () => {
    const byContributor = await app.api('GET', '/cms/v2/taxonomies', { headers: contributor, query: { context: 'edit' } });
    expect(byContributor.status).toBe(200);
    expect(Object.keys(byContributor.body)).toEqual(['category', 'post_tag']);
    expect(byContributor.body.category.capabilities).toEqual({
      manage_terms: 'manage_categories', edit_terms: 'manage_categories', delete_terms: 'manage_categories', assign_terms: 'edit_posts',
    });
    expect(byContributor.body.category.show_cloud).toBe(true);
    expect(byContributor.body.category.visibility).toEqual({
      public: true, publicly_queryable: true, show_admin_column: true, show_in_nav_menus: true, show_in_quick_edit: true, show_ui: true,
    });
    expect(byContributor.body.post_tag.labels).toMatchObject({ name: 'Tags', singular_name: 'Tag' });
    const byAdmin = await app.api('GET', '/cms/v2/taxonomies', { headers: app.admin, query: { context: 'edit' } });
    expect(Object.keys(byAdmin.body)).toEqual(['category', 'post_tag', 'nav_menu']);
  });

  it('refuses edit context when no candidate taxonomy is assignable: 401 anonymous, 403 otherwise', async () => {
    const message = 'Sorry, you are not allowed to manage terms in this taxonomy.';
    const anonymous = await app.api('GET', '/cms/v2/taxonomies', { query: { context: 'edit' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(refusal('rest_cannot_view', message, 401));
    const bySubscriber = await app.api('GET', '/cms/v2/taxonomies', { headers: subscriber, query: { context: 'edit' } });
    expect(bySubscriber.status).toBe(403);
    expect(bySubscriber.body).toEqual(refusal('rest_cannot_view', message, 403));
    const menusByContributor = await app.api('GET', '/cms/v2/taxonomies', {
      headers: contributor,
      query: { context: 'edit', type: 'nav_menu_item' },
    });
    expect(menusByContributor.status).toBe(403);
    expect(menusByContributor.body).toEqual(refusal('rest_cannot_view', message, 403));
  });
});

describe('GET /cms/v2/taxonomies/<taxonomy>', () => {
  it('serves a taxonomy in view context to anyone', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/taxonomies/post_tag');
    expect(status).toBe(200);
    expect(body).toEqual({
      description: '',
      hierarchical: false,
      name: 'Tags',
      slug: 'post_tag',
      types: ['post'],
      rest_base: 'tags',
      rest_namespace: 'cms/v2',
      _links: {
        collection: [{ href: `${app.apiRoot}/cms/v2/taxonomies` }],
        'wp:items': [{ href: `${app.apiRoot}/cms/v2/tags` }],
        curies,
      },
    });
  });

  it('serves edit context to a caller who may assign its terms, and refuses it to others', async () => {
    const allowed = await app.api('GET', '/cms/v2/taxonomies/category', { headers: contributor, query: { context: 'edit' } });
    expect(allowed.status).toBe(200);
    expect(Object.keys(allowed.body).sort()).toEqual([
      '_links', 'capabilities', 'description', 'hierarchical', 'labels', 'name', 'rest_base', 'rest_namespace', 'show_cloud',
      'slug', 'types', 'visibility',
    ]);
    const message = 'Sorry, you are not allowed to manage terms in this taxonomy.';
    const anonymous = await app.api('GET', '/cms/v2/taxonomies/category', { query: { context: 'edit' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(refusal('rest_forbidden_context', message, 401));
    const refused = await app.api('GET', '/cms/v2/taxonomies/nav_menu', { headers: editor, query: { context: 'edit' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(refusal('rest_forbidden_context', message, 403));
    const byAdmin = await app.api('GET', '/cms/v2/taxonomies/nav_menu', { headers: app.admin, query: { context: 'edit' } });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.capabilities.assign_terms).toBe('edit_theme_options');
  });

  it('answers an unknown taxonomy with 404 rest_taxonomy_invalid', async () => {
    const { status, body } = await app.api('GET', '/cms/v2/taxonomies/genre', { query: { context: 'edit' } });
    expect(status).toBe(404);
    expect(body).toEqual(refusal('rest_taxonomy_invalid', 'Invalid taxonomy.', 404));
  });
});

describe('discovery', () => {
  it('lists the registry routes and their arguments in the index', async () => {
    const { body } = await app.api('GET', '/');
    for (const route of [
      '/cms/v2/statuses', '/cms/v2/statuses/(?P<status>[\\w-]+)', '/cms/v2/types', '/cms/v2/types/(?P<type>[\\w-]+)',
      '/cms/v2/taxonomies', '/cms/v2/taxonomies/(?P<taxonomy>[\\w-]+)',
    ]) {
      expect(body.routes[route]?.methods, route).toEqual(['GET']);
    }
    expect(body.routes['/cms/v2/taxonomies'].endpoints[0].args.type).toEqual({
      description: 'Limit results to taxonomies associated with a specific post type.',
      type: 'string',
      required: false,
    });
  });
});
