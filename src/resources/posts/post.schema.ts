import { SETTABLE_STATUSES } from '../../registry/post-statuses.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { TAXONOMIES } from '../../registry/taxonomies.js';
import { can } from '../../auth/capabilities.js';
import { type ArgSpecs } from '../../rest/args.js';
import { defineAuthError } from '../../rest/errors.js';
import { argsFromSchema, collectionArgs, contextArg } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type FieldSchema, type ItemSchema } from '../../rest/schema.js';
import { metaSchema } from '../../registry/meta.js';
import { lockField } from '../locks/index.js';

const ALL = ['view', 'edit', 'embed'] as const;
const VIEW_EDIT = ['view', 'edit'] as const;
const EDIT = ['edit'] as const;

export const POST_FORMATS = ['standard', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'] as const;

/** `title`, `content`, `excerpt`: a string, or `{ raw }`, on write; `{ raw, rendered, ... }` on read. */
const textObject = (description: string, context: readonly string[], extra: Record<string, FieldSchema> = {}): FieldSchema => ({
  description,
  type: 'object',
  context: [...context] as FieldSchema['context'],
  properties: {
    raw: { description: `${description}, as it exists in the database.`, type: 'string', context: [...EDIT] },
    rendered: { description: `HTML ${description.toLowerCase()}, transformed for display.`, type: 'string', context: [...context] as FieldSchema['context'], readonly: true },
    ...extra,
  },
});

/** The item schema of a post type, after `WP_REST_Posts_Controller::get_item_schema`. */
export function postTypeSchema(type: PostTypeDef): ItemSchema {
  const properties: Record<string, FieldSchema> = {
    date: { description: "The date the post was published, in the site's timezone.", type: ['string', 'null'], format: 'date-time', context: [...ALL] },
    date_gmt: { description: 'The date the post was published, as GMT.', type: ['string', 'null'], format: 'date-time', context: [...VIEW_EDIT] },
    guid: {
      description: 'The globally unique identifier for the post.',
      type: 'object',
      context: [...VIEW_EDIT],
      readonly: true,
      properties: {
        raw: { description: 'GUID for the post, as it exists in the database.', type: 'string', context: [...EDIT], readonly: true },
        rendered: { description: 'GUID for the post, transformed for display.', type: 'string', context: [...VIEW_EDIT], readonly: true },
      },
    },
    id: { description: 'Unique identifier for the post.', type: 'integer', context: [...ALL], readonly: true },
    link: { description: 'URL to the post.', type: 'string', format: 'uri', context: [...ALL], readonly: true },
    modified: { description: "The date the post was last modified, in the site's timezone.", type: 'string', format: 'date-time', context: [...VIEW_EDIT], readonly: true },
    modified_gmt: { description: 'The date the post was last modified, as GMT.', type: 'string', format: 'date-time', context: [...VIEW_EDIT], readonly: true },
    slug: { description: 'An alphanumeric identifier for the post unique to its type.', type: 'string', context: [...ALL] },
    status: {
      description: 'A named status for the post.',
      type: 'string',
      enum: [...SETTABLE_STATUSES],
      context: [...VIEW_EDIT],
      // Trashing is a DELETE; responses show the trashed item.
      response: { enum: [...SETTABLE_STATUSES, 'trash'] },
    },
    type: { description: 'Type of post.', type: 'string', context: [...ALL], readonly: true },
    password: { description: 'A password to protect access to the content and excerpt.', type: 'string', context: [...EDIT] },
  };
  if (type.viewable) {
    properties.permalink_template = { description: 'Permalink template for the post.', type: 'string', context: [...EDIT], readonly: true };
    properties.generated_slug = { description: 'Slug automatically generated from the post title.', type: 'string', context: [...EDIT], readonly: true };
  }
  if (type.hierarchical) properties.parent = { description: 'The ID for the parent of the post.', type: 'integer', context: [...VIEW_EDIT] };
  if (type.supports.title) properties.title = textObject('The title for the post', ALL);
  if (type.supports.editor) {
    properties.content = textObject('The content for the post', VIEW_EDIT, {
      block_version: { description: 'Version of the content block format used by the post.', type: 'integer', context: [...EDIT], readonly: true },
      protected: { description: 'Whether the content is protected with a password.', type: 'boolean', context: [...VIEW_EDIT], readonly: true },
    });
  }
  if (type.supports.author) properties.author = { description: 'The ID for the author of the post.', type: 'integer', context: [...ALL] };
  if (type.supports.excerpt) {
    properties.excerpt = textObject('The excerpt for the post', ALL, {
      protected: { description: 'Whether the excerpt is protected with a password.', type: 'boolean', context: [...ALL], readonly: true },
    });
  }
  if (type.supports.thumbnail) properties.featured_media = { description: 'The ID of the featured media for the post.', type: 'integer', context: [...ALL] };
  if (type.supports.comments) {
    properties.comment_status = { description: 'Whether or not comments are open on the post.', type: 'string', enum: ['open', 'closed'], context: [...VIEW_EDIT] };
    properties.ping_status = { description: 'Whether or not the post can be pinged.', type: 'string', enum: ['open', 'closed'], context: [...VIEW_EDIT] };
  }
  if (type.supports['page-attributes']) properties.menu_order = { description: 'The order of the post in relation to other posts.', type: 'integer', context: [...VIEW_EDIT] };
  if (type.supports['post-formats']) properties.format = { description: 'The format for the post.', type: 'string', enum: [...POST_FORMATS], context: [...VIEW_EDIT] };
  if (type.slug === 'post') properties.sticky = { description: 'Whether or not the post should be treated as sticky.', type: 'boolean', context: [...VIEW_EDIT] };
  properties.template = { description: 'The theme file to use to display the post.', type: 'string', context: [...VIEW_EDIT] };
  properties.meta = metaSchema('post', type.slug, [...VIEW_EDIT]);
  for (const taxonomy of TAXONOMIES.filter((candidate) => candidate.types.includes(type.slug) && candidate.show_in_rest)) {
    properties[taxonomy.rest_base] = {
      description: `The terms assigned to the post in the ${taxonomy.slug} taxonomy.`,
      type: 'array',
      items: { type: 'integer' },
      context: [...VIEW_EDIT],
    };
  }
  properties.class_list = { description: 'An array of the class names for the post container element.', type: 'array', items: { type: 'string' }, context: [...VIEW_EDIT], readonly: true };
  // Beyond WordPress, whose edit screen learns of a post lock from the heartbeat: an editor opening the item learns it in the same read.
  properties.lock = lockField;
  return { $schema: 'http://json-schema.org/draft-04/schema#', title: type.slug, type: 'object', properties };
}

/** The arguments of create and update, from the schema: the text fields also take a plain string. */
export function postWriteArgs(type: PostTypeDef, mode: 'create' | 'update'): ArgSpecs<RestRequest> {
  const args: ArgSpecs<RestRequest> = argsFromSchema(postTypeSchema(type), mode);
  for (const field of ['title', 'content', 'excerpt'] as const) {
    if (args[field]) {
      args[field] = {
        description: args[field].description,
        type: ['string', 'object'],
        properties: { raw: { type: 'string' } },
      };
    }
  }
  delete args.class_list;
  return args;
}

/** The posts controller's list filters by dates, slugs and searched columns, which every post type's list takes (menu items' too). */
export const POST_LIST_FILTER_ARGS = {
  after: { description: 'Limit response to posts published after a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
  modified_after: { description: 'Limit response to posts modified after a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
  before: { description: 'Limit response to posts published before a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
  modified_before: { description: 'Limit response to posts modified before a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
  search_columns: { description: 'Array of column names to be searched.', type: 'array', items: { type: 'string', enum: ['post_title', 'post_content', 'post_excerpt'] }, default: [] },
  slug: { description: 'Limit result set to posts with one or more specific slugs.', type: 'array', items: { type: 'string' } },
} as const satisfies ArgSpecs<RestRequest>;

export const ForbiddenStatus = defineAuthError('rest_forbidden_status', 'Status is forbidden.');

/** The statuses a list may ask for, and the one anybody may (the default). */
export interface ListedStatuses {
  allowed: readonly string[];
  public: string;
}

const POST_LIST_STATUSES: ListedStatuses = { allowed: ['publish', 'future', 'draft', 'pending', 'private', 'trash', 'any'], public: 'publish' };

/**
 * The list arguments of a post type (`WP_REST_Posts_Controller::get_collection_params`): other
 * statuses than the public one are for those who edit the type's items.
 */
export function postListArgs(type: PostTypeDef, statuses: ListedStatuses = POST_LIST_STATUSES): ArgSpecs<RestRequest> {
  const schema = postTypeSchema(type);
  const ids = (description: string) => ({ description, type: 'array', items: { type: 'integer' }, default: [] }) as const;
  const args: ArgSpecs<RestRequest> = {
    context: contextArg(schema),
    ...collectionArgs(),
    search: { description: 'Limit results to those matching a string.', type: 'string' },
    after: POST_LIST_FILTER_ARGS.after,
    modified_after: POST_LIST_FILTER_ARGS.modified_after,
    author: ids('Limit result set to posts assigned to specific authors.'),
    author_exclude: ids('Ensure result set excludes posts assigned to specific authors.'),
    before: POST_LIST_FILTER_ARGS.before,
    modified_before: POST_LIST_FILTER_ARGS.modified_before,
    exclude: ids('Ensure result set excludes specific IDs.'),
    include: ids('Limit result set to specific IDs.'),
    order: { description: 'Order sort attribute ascending or descending.', type: 'string', enum: ['asc', 'desc'], default: 'desc' },
    orderby: {
      description: 'Sort collection by post attribute.',
      type: 'string',
      enum: ['author', 'date', 'id', 'include', 'modified', 'parent', 'relevance', 'slug', 'include_slugs', 'title', ...(type.supports['page-attributes'] ? ['menu_order'] : [])],
      default: 'date',
    },
    search_columns: POST_LIST_FILTER_ARGS.search_columns,
    slug: POST_LIST_FILTER_ARGS.slug,
    status: {
      description: 'Limit result set to posts assigned one or more statuses.',
      type: 'array',
      items: { type: 'string', enum: [...statuses.allowed] },
      default: [statuses.public],
      validate: (value, req) => {
        if ((value as string[]).some((status) => status !== statuses.public) && !can(req.user, type.caps.edit_posts)) throw new ForbiddenStatus(req);
      },
    },
  };
  if (type.hierarchical) {
    args.parent = ids('Limit result set to items with particular parent IDs.');
    args.parent_exclude = ids('Limit result set to all items except those of a particular parent ID.');
  }
  if (type.supports['page-attributes']) args.menu_order = { description: 'Limit result set to posts with a specific menu_order value.', type: 'integer' };
  const taxonomies = TAXONOMIES.filter((candidate) => candidate.types.includes(type.slug));
  if (taxonomies.length) args.tax_relation = { description: 'Limit result set based on relationship between multiple taxonomies.', type: 'string', enum: ['AND', 'OR'] };
  for (const taxonomy of taxonomies) {
    args[taxonomy.rest_base] = ids(`Limit result set to items with specific terms assigned in the ${taxonomy.slug} taxonomy.`);
    args[`${taxonomy.rest_base}_exclude`] = ids(`Limit result set to items except those with specific terms assigned in the ${taxonomy.slug} taxonomy.`);
  }
  if (type.slug === 'post') {
    args.sticky = { description: 'Limit result set to items that are sticky.', type: 'boolean' };
    args.format = { description: 'Limit result set to items assigned one or more given formats.', type: 'array', items: { type: 'string', enum: [...POST_FORMATS] } };
  }
  return args;
}

