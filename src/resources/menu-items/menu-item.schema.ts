import { SETTABLE_STATUSES } from '../../registry/post-statuses.js';
import { metaSchema } from '../../registry/meta.js';
import { type ArgSpecs } from '../../rest/args.js';
import { defineRestError } from '../../rest/errors.js';
import { argsFromSchema, collectionArgs } from '../../rest/item-schema.js';
import { type ItemSchema, URI_OR_EMPTY } from '../../rest/schema.js';
import { lockField } from '../locks/index.js';
import { POST_LIST_FILTER_ARGS } from '../posts/index.js';
import { MENU_ITEM_TYPES } from './menu-item.model.js';

const ALL = ['view', 'edit', 'embed'] as const;

const InvalidUrl = defineRestError('rest_invalid_url', 'Invalid URL.', 400);

/** `WP_REST_Menu_Items_Controller::get_item_schema`. */
export const menuItemSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'nav_menu_item',
  type: 'object',
  properties: {
    title: {
      description: 'The title for the object.',
      type: ['string', 'object'],
      context: [...ALL],
      properties: {
        raw: { description: 'Title for the object, as it exists in the database.', type: 'string', context: ['edit'] },
        rendered: { description: 'HTML title for the object, transformed for display.', type: 'string', context: [...ALL], readonly: true },
      },
    },
    id: { description: 'Unique identifier for the object.', type: 'integer', default: 0, minimum: 0, context: [...ALL], readonly: true },
    type_label: { description: 'The singular label used to describe this type of menu item.', type: 'string', context: [...ALL], readonly: true },
    type: { description: 'The family of objects originally represented, such as "post_type" or "taxonomy".', type: 'string', enum: [...MENU_ITEM_TYPES], default: 'custom', context: [...ALL] },
    status: { description: 'A named status for the object.', type: 'string', enum: [...SETTABLE_STATUSES], default: 'publish', context: [...ALL] },
    parent: { description: 'The ID for the parent of the object.', type: 'integer', minimum: 0, default: 0, context: [...ALL] },
    attr_title: { description: 'Text for the title attribute of the link element for this menu item.', type: 'string', context: [...ALL] },
    classes: { description: 'Class names for the link element of this menu item.', type: 'array', items: { type: 'string' }, context: [...ALL] },
    description: { description: 'The description of this menu item.', type: 'string', context: [...ALL] },
    menu_order: { description: 'The DB ID of the nav_menu_item that is this item\'s menu parent, if any, otherwise 0.', type: 'integer', minimum: 1, default: 1, context: [...ALL] },
    object: { description: 'The type of object originally represented, such as "category", "post", or "attachment".', type: 'string', context: [...ALL] },
    object_id: { description: 'The database ID of the original object this menu item represents, for example the ID for posts or the term_id for categories.', type: 'integer', minimum: 0, default: 0, context: [...ALL] },
    target: { description: 'The target attribute of the link element for this menu item.', type: 'string', enum: ['_blank', ''], context: [...ALL] },
    url: {
      description: 'The URL to which this menu item points.',
      type: 'string',
      format: 'uri',
      context: [...ALL],
      // An item whose post or term is gone points nowhere: WordPress sends an empty string.
      response: URI_OR_EMPTY,
    },
    xfn: { description: 'The XFN relationship expressed in the link of this menu item.', type: 'array', items: { type: 'string' }, context: [...ALL] },
    invalid: { description: 'Whether the menu item represents an object that no longer exists.', type: 'boolean', context: [...ALL], readonly: true },
    menus: { description: 'The terms assigned to the object in the nav_menu taxonomy.', type: 'integer', context: ['view', 'edit'] },
    meta: metaSchema('post', 'nav_menu_item', ['view', 'edit']),
    lock: lockField,
  },
};

/** Create and update arguments: `title` a string or `{ raw }`; `url` empty or a URL. */
export function menuItemWriteArgs(mode: 'create' | 'update'): ArgSpecs {
  const args = argsFromSchema(menuItemSchema, mode);
  args.title = { description: args.title.description, type: ['string', 'object'], properties: { raw: { type: 'string' } } };
  const { format: _format, ...url } = args.url;
  args.url = {
    ...url,
    validate: (value) => {
      if (value !== '' && !URL.canParse(String(value))) throw new InvalidUrl();
    },
  };
  return args;
}

const ids = (description: string) => ({ description, type: 'array' as const, items: { type: 'integer' as const }, default: [] });

/**
 * `GET /menu-items`: the post collection's parameters (its date bounds, searched columns and
 * slugs the posts controller's own), a hundred a page in menu order, and the menus filters.
 */
export const menuItemListArgs: ArgSpecs = {
  ...collectionArgs(100),
  search: { description: 'Limit results to those matching a string.', type: 'string' },
  after: POST_LIST_FILTER_ARGS.after,
  modified_after: POST_LIST_FILTER_ARGS.modified_after,
  before: POST_LIST_FILTER_ARGS.before,
  modified_before: POST_LIST_FILTER_ARGS.modified_before,
  exclude: ids('Ensure result set excludes specific IDs.'),
  include: ids('Limit result set to specific IDs.'),
  order: { description: 'Order sort attribute ascending or descending.', type: 'string', default: 'asc', enum: ['asc', 'desc'] },
  orderby: {
    description: 'Sort collection by object attribute.',
    type: 'string',
    default: 'menu_order',
    enum: ['author', 'date', 'id', 'include', 'modified', 'parent', 'relevance', 'slug', 'include_slugs', 'title', 'menu_order'],
  },
  search_columns: POST_LIST_FILTER_ARGS.search_columns,
  slug: POST_LIST_FILTER_ARGS.slug,
  status: { description: 'Limit result set to posts assigned one or more statuses.', type: 'array', items: { type: 'string', enum: [...SETTABLE_STATUSES, 'any'] }, default: ['publish'] },
  tax_relation: { description: 'Limit result set based on relationship between multiple taxonomies.', type: 'string', enum: ['AND', 'OR'] },
  menus: ids('Limit result set to items with specific terms assigned in the menus taxonomy.'),
  menus_exclude: ids('Limit result set to items except those with specific terms assigned in the menus taxonomy.'),
  menu_order: { description: 'Limit result set to posts with a specific menu_order value.', type: 'integer' },
};
