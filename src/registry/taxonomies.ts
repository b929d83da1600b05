import { type TaxonomyCaps } from '../auth/capabilities.js';

/** A taxonomy as WordPress registers it (`register_taxonomy`), with the fields `/taxonomies` shows. */
export interface TaxonomyDef {
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  readonly hierarchical: boolean;
  readonly show_cloud: boolean;
  /** The post types whose items carry these terms. */
  readonly types: readonly string[];
  readonly rest_base: string;
  readonly rest_namespace: string;
  readonly capabilities: TaxonomyCaps;
  readonly labels: Readonly<Record<string, string>>;
  readonly visibility: Readonly<{
    public: boolean;
    publicly_queryable: boolean;
    show_admin_column: boolean;
    show_in_nav_menus: boolean;
    show_in_quick_edit: boolean;
    show_ui: boolean;
  }>;
  readonly show_in_rest: boolean;
  /** The error message of a duplicate name (`term_exists`). */
  readonly duplicateMessage: string;
}

const categoryLabels = {
  name: 'Categories', singular_name: 'Category', search_items: 'Search Categories', popular_items: '',
  all_items: 'All Categories', parent_item: 'Parent Category', parent_item_colon: 'Parent Category:',
  name_field_description: 'The name is how it appears on your site.', slug_field_description:
  'The &#8220;slug&#8221; is the URL-friendly version of the name. It is usually all lowercase and contains only letters, numbers, and hyphens.',
  parent_field_description: 'Assign a parent term to create a hierarchy. The term Jazz, for example, would be the parent of Bebop and Big Band.',
  desc_field_description: 'The description is not prominent by default; however, some themes may show it.',
  edit_item: 'Edit Category', view_item: 'View Category', update_item: 'Update Category', add_new_item: 'Add Category',
  new_item_name: 'New Category Name', separate_items_with_commas: '', add_or_remove_items: '', choose_from_most_used: '',
  not_found: 'No categories found.', no_terms: 'No categories', filter_by_item: 'Filter by category',
  items_list_navigation: 'Categories list navigation', items_list: 'Categories list', most_used: 'Most Used',
  back_to_items: '&larr; Go to Categories', item_link: 'Category Link', item_link_description: 'A link to a category.',
  menu_name: 'Categories', name_admin_bar: 'category', archives: 'All Categories',
};

const tagLabels = {
  name: 'Tags', singular_name: 'Tag', search_items: 'Search Tags', popular_items: 'Popular Tags',
  all_items: 'All Tags', parent_item: '', parent_item_colon: '',
  name_field_description: 'The name is how it appears on your site.', slug_field_description:
  'The &#8220;slug&#8221; is the URL-friendly version of the name. It is usually all lowercase and contains only letters, numbers, and hyphens.',
  parent_field_description: '', desc_field_description: 'The description is not prominent by default; however, some themes may show it.',
  edit_item: 'Edit Tag', view_item: 'View Tag', update_item: 'Update Tag', add_new_item: 'Add Tag', new_item_name: 'New Tag Name',
  separate_items_with_commas: 'Separate tags with commas', add_or_remove_items: 'Add or remove tags',
  choose_from_most_used: 'Choose from the most used tags', not_found: 'No tags found.', no_terms: 'No tags',
  filter_by_item: '', items_list_navigation: 'Tags list navigation', items_list: 'Tags list', most_used: 'Most Used',
  back_to_items: '&larr; Go to Tags', item_link: 'Tag Link', item_link_description: 'A link to a tag.',
  menu_name: 'Tags', name_admin_bar: 'post_tag', archives: 'All Tags',
};

const menuLabels = {
  name: 'Navigation Menus', singular_name: 'Navigation Menu', search_items: 'Search Tags', popular_items: 'Popular Tags',
  all_items: 'Navigation Menus', parent_item: '', parent_item_colon: '', edit_item: 'Edit Tag', view_item: 'View Tag',
  update_item: 'Update Tag', add_new_item: 'Add Tag', new_item_name: 'New Tag Name', not_found: 'No tags found.',
  no_terms: 'No tags', back_to_items: '&larr; Go to Tags', menu_name: 'Navigation Menus', name_admin_bar: 'Navigation Menu',
  archives: 'Navigation Menus',
};

export const TAXONOMIES: readonly TaxonomyDef[] = Object.freeze([
  {
    slug: 'category',
    name: 'Categories',
    description: '',
    hierarchical: true,
    show_cloud: true,
    types: ['post'],
    rest_base: 'categories',
    rest_namespace: 'cms/v2',
    capabilities: { manage_terms: 'manage_categories', edit_terms: 'manage_categories', delete_terms: 'manage_categories', assign_terms: 'edit_posts' },
    labels: categoryLabels,
    visibility: { public: true, publicly_queryable: true, show_admin_column: true, show_in_nav_menus: true, show_in_quick_edit: true, show_ui: true },
    show_in_rest: true,
    duplicateMessage: 'A term with the name provided already exists with this parent.',
  },
  {
    slug: 'post_tag',
    name: 'Tags',
    description: '',
    hierarchical: false,
    show_cloud: true,
    types: ['post'],
    rest_base: 'tags',
    rest_namespace: 'cms/v2',
    capabilities: { manage_terms: 'manage_categories', edit_terms: 'manage_categories', delete_terms: 'manage_categories', assign_terms: 'edit_posts' },
    labels: tagLabels,
    visibility: { public: true, publicly_queryable: true, show_admin_column: true, show_in_nav_menus: true, show_in_quick_edit: true, show_ui: true },
    show_in_rest: true,
    duplicateMessage: 'A term with the name provided already exists in this taxonomy.',
  },
  {
    slug: 'nav_menu',
    name: 'Navigation Menus',
    description: '',
    hierarchical: false,
    show_cloud: false,
    types: ['nav_menu_item'],
    rest_base: 'menus',
    rest_namespace: 'cms/v2',
    capabilities: { manage_terms: 'edit_theme_options', edit_terms: 'edit_theme_options', delete_terms: 'edit_theme_options', assign_terms: 'edit_theme_options' },
    labels: menuLabels,
    visibility: { public: false, publicly_queryable: false, show_admin_column: false, show_in_nav_menus: false, show_in_quick_edit: false, show_ui: false },
    show_in_rest: true,
    duplicateMessage: 'A term with the name provided already exists in this taxonomy.',
  },
].map((def) => Object.freeze(def)));

export function findTaxonomy(slug: string): TaxonomyDef | undefined {
  return TAXONOMIES.find((def) => def.slug === slug);
}
