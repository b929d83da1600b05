import { type PostTypeCaps } from '../auth/capabilities.js';
import { TAXONOMIES } from './taxonomies.js';

/** A post type as WordPress registers it (`register_post_type`), with the fields `/types` shows. */
export interface PostTypeDef {
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  readonly hierarchical: boolean;
  readonly has_archive: string | boolean;
  readonly rest_base: string;
  readonly rest_namespace: string;
  readonly icon: string | null;
  readonly viewable: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly supports: Readonly<Record<string, boolean>>;
  /** Primitive capability names for this type's objects, used by `map_meta_cap`. */
  readonly caps: PostTypeCaps;
  /** The singular of `capability_type`, which names the meta capabilities (`edit_page` for pages). */
  readonly capability_type: string;
  readonly visibility: Readonly<{ show_in_nav_menus: boolean; show_ui: boolean }>;
  readonly show_in_rest: boolean;
  /**
   * The controller that serves the type's items (WordPress's `rest_controller_class`): `posts`
   * serves posts and pages, and, through the change-log kernel, their revisions, autosaves and
   * history wherever `supports` names them.
   */
  readonly rest_controller: 'posts' | 'attachments' | 'menu-items' | 'templates' | 'global-styles';
}

const capsFor = (plural: string, overrides: Partial<PostTypeCaps> = {}): PostTypeCaps => ({
  edit_posts: `edit_${plural}`,
  edit_others_posts: `edit_others_${plural}`,
  edit_published_posts: `edit_published_${plural}`,
  edit_private_posts: `edit_private_${plural}`,
  publish_posts: `publish_${plural}`,
  read_private_posts: `read_private_${plural}`,
  delete_posts: `delete_${plural}`,
  delete_others_posts: `delete_others_${plural}`,
  delete_published_posts: `delete_published_${plural}`,
  delete_private_posts: `delete_private_${plural}`,
  create_posts: `edit_${plural}`,
  read: 'read',
  ...overrides,
});

const themeCaps = (): PostTypeCaps =>
  Object.fromEntries(Object.keys(capsFor('posts')).map((key) => [key, key === 'read' ? 'read' : 'edit_theme_options'])) as unknown as PostTypeCaps;

const labels = (singular: string, plural: string): Record<string, string> => ({
  name: plural,
  singular_name: singular,
  add_new: 'Add New',
  add_new_item: `Add New ${singular}`,
  edit_item: `Edit ${singular}`,
  new_item: `New ${singular}`,
  view_item: `View ${singular}`,
  view_items: `View ${plural}`,
  search_items: `Search ${plural}`,
  not_found: `No ${plural.toLowerCase()} found.`,
  not_found_in_trash: `No ${plural.toLowerCase()} found in Trash.`,
  all_items: `All ${plural}`,
  archives: `${singular} Archives`,
  attributes: `${singular} Attributes`,
  menu_name: plural,
  name_admin_bar: singular,
});

const type = (def: Omit<PostTypeDef, 'rest_namespace' | 'show_in_rest' | 'description' | 'icon' | 'capability_type'> & Partial<PostTypeDef>): PostTypeDef =>
  Object.freeze({ description: '', icon: null, rest_namespace: 'cms/v2', show_in_rest: true, capability_type: 'post', ...def });

// WordPress 6.6+ gives `autosave` to every type that supports `editor` (`register_post_type`).
const editorSupports = { title: true, editor: true, author: true, thumbnail: true, excerpt: true, 'custom-fields': true, revisions: true, autosave: true };

export const POST_TYPES: readonly PostTypeDef[] = Object.freeze([
  type({
    slug: 'post', name: 'Posts', hierarchical: false, has_archive: false, rest_base: 'posts', icon: 'dashicons-admin-post', viewable: true,
    labels: labels('Post', 'Posts'),
    supports: { ...editorSupports, trackbacks: true, comments: true, 'post-formats': true },
    caps: capsFor('posts'),
    visibility: { show_in_nav_menus: true, show_ui: true },
    rest_controller: 'posts',
  }),
  type({
    slug: 'page', name: 'Pages', hierarchical: true, has_archive: false, rest_base: 'pages', icon: 'dashicons-admin-page', viewable: true,
    labels: labels('Page', 'Pages'),
    supports: { ...editorSupports, 'page-attributes': true, comments: true },
    caps: capsFor('pages'),
    capability_type: 'page',
    visibility: { show_in_nav_menus: true, show_ui: true },
    rest_controller: 'posts',
  }),
  type({
    slug: 'attachment', name: 'Media', hierarchical: false, has_archive: false, rest_base: 'media', icon: 'dashicons-admin-media', viewable: true,
    labels: labels('Media', 'Media'),
    supports: { title: true, author: true, comments: true },
    caps: capsFor('posts', { create_posts: 'upload_files' }),
    visibility: { show_in_nav_menus: false, show_ui: true },
    rest_controller: 'attachments',
  }),
  type({
    slug: 'nav_menu_item', name: 'Navigation Menu Items', hierarchical: false, has_archive: false, rest_base: 'menu-items', viewable: false,
    labels: labels('Navigation Menu Item', 'Navigation Menu Items'),
    supports: {},
    caps: themeCaps(),
    visibility: { show_in_nav_menus: false, show_ui: false },
    rest_controller: 'menu-items',
  }),
  type({
    slug: 'cms_template', name: 'Templates', description: 'Templates to include in your theme.', hierarchical: false, has_archive: false,
    rest_base: 'templates', icon: 'dashicons-admin-post', viewable: false,
    labels: labels('Template', 'Templates'),
    supports: { title: true, slug: true, excerpt: true, editor: true, revisions: true, author: true },
    caps: themeCaps(),
    visibility: { show_in_nav_menus: false, show_ui: false },
    rest_controller: 'templates',
  }),
  type({
    slug: 'cms_template_part', name: 'Template Parts', description: 'Template parts to include in your templates.', hierarchical: false,
    has_archive: false, rest_base: 'template-parts', icon: 'dashicons-admin-post', viewable: false,
    labels: labels('Template Part', 'Template Parts'),
    supports: { title: true, slug: true, excerpt: true, editor: true, revisions: true, author: true },
    caps: themeCaps(),
    visibility: { show_in_nav_menus: false, show_ui: false },
    rest_controller: 'templates',
  }),
  type({
    slug: 'cms_global_styles', name: 'Global Styles', description: 'Global styles to include in themes.', hierarchical: false,
    has_archive: false, rest_base: 'global-styles', viewable: false,
    labels: labels('Global Styles', 'Global Styles'),
    supports: { title: true, editor: true, revisions: true },
    caps: themeCaps(),
    visibility: { show_in_nav_menus: false, show_ui: false },
    rest_controller: 'global-styles',
  }),
]);

/** The types served by `controller` that support `feature` (`post_type_supports`). */
export function postTypesSupporting(controller: PostTypeDef['rest_controller'], feature?: string): PostTypeDef[] {
  return POST_TYPES.filter((def) => def.rest_controller === controller && (feature === undefined || def.supports[feature] === true));
}

export function findPostType(slug: string): PostTypeDef | undefined {
  return POST_TYPES.find((def) => def.slug === slug);
}

/** The taxonomies attached to a post type. */
export function taxonomiesOf(postType: string): string[] {
  return TAXONOMIES.filter((taxonomy) => taxonomy.types.includes(postType)).map((taxonomy) => taxonomy.slug);
}
