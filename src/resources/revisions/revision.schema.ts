import { type ArgSpec, type ArgSpecs } from '../../rest/args.js';
import { contextArg } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type FieldSchema, type ItemSchema } from '../../rest/schema.js';
import { type RevisionedType } from './revisioned-type.js';

const ALL = ['view', 'edit', 'embed'] as const;
const VIEW_EDIT = ['view', 'edit'] as const;

/** The fields a revision takes from its parent's schema, where the parent type has them. */
const BORROWED = ['guid', 'title', 'content', 'excerpt'] as const;

/**
 * A revision of `type` (`WP_REST_Revisions_Controller::get_item_schema`): its own fields, with
 * the parent's `guid`, `title`, `content` and `excerpt` definitions borrowed as they are.
 * A type whose items have their own controller (menu items) lends its own schema, and may add more.
 */
export function revisionSchema(type: RevisionedType): ItemSchema {
  const parentSchema = type.itemSchema;
  const properties: Record<string, FieldSchema> = {
    author: { description: 'The ID for the author of the revision.', type: 'integer', context: [...ALL] },
    // An autosave saved over a draft answers with the draft, whose dates may not be set yet.
    date: { description: "The date the revision was published, in the site's timezone.", type: 'string', format: 'date-time', context: [...ALL], response: { type: ['string', 'null'] } },
    date_gmt: { description: 'The date the revision was published, as GMT.', type: 'string', format: 'date-time', context: [...VIEW_EDIT], response: { type: ['string', 'null'] } },
    guid: {
      description: 'The globally unique identifier for the revision.',
      type: 'object',
      context: [...VIEW_EDIT],
      readonly: true,
      properties: {
        raw: { description: 'GUID for the revision, as it exists in the database.', type: 'string', context: ['edit'], readonly: true },
        rendered: { description: 'GUID for the revision, transformed for display.', type: 'string', context: [...VIEW_EDIT], readonly: true },
      },
    },
    id: { description: 'Unique identifier for the revision.', type: 'integer', context: [...ALL] },
    modified: { description: "The date the revision was last modified, in the site's timezone.", type: 'string', format: 'date-time', context: [...VIEW_EDIT] },
    modified_gmt: { description: 'The date the revision was last modified, as GMT.', type: 'string', format: 'date-time', context: [...VIEW_EDIT] },
    parent: { ...type.route.idArg('The ID for the parent of the revision.'), context: [...ALL] },
    slug: { description: 'An alphanumeric identifier for the revision unique to its type.', type: 'string', context: [...ALL] },
  };
  for (const field of BORROWED) {
    if (parentSchema.properties[field]) properties[field] = parentSchema.properties[field];
  }
  Object.assign(properties, type.extraProperties);
  return { $schema: 'http://json-schema.org/draft-04/schema#', title: `${type.postType.slug}-revision`, type: 'object', properties };
}

export const revisionIdArg: ArgSpec<RestRequest> = { description: 'Unique identifier for the revision.', type: 'integer' };

/**
 * The list's parameters (`get_collection_params`): `per_page` has no default, so a request
 * without it gets every revision; `offset` has no lower bound, as in WordPress.
 */
export function revisionListArgs(type: RevisionedType, schema: ItemSchema): ArgSpecs<RestRequest> {
  const ids = (description: string): ArgSpec<RestRequest> => ({ description, type: 'array', items: { type: 'integer' }, default: [] });
  return {
    parent: type.route.idArg('The ID for the parent of the revision.'),
    context: contextArg(schema),
    page: { description: 'Current page of the collection.', type: 'integer', default: 1, minimum: 1 },
    per_page: { description: 'Maximum number of items to be returned in result set.', type: 'integer', minimum: 1, maximum: 100 },
    search: { description: 'Limit results to those matching a string.', type: 'string' },
    exclude: ids('Ensure result set excludes specific IDs.'),
    include: ids('Limit result set to specific IDs.'),
    offset: { description: 'Offset the result set by a specific number of items.', type: 'integer' },
    order: { description: 'Order sort attribute ascending or descending.', type: 'string', default: 'desc', enum: ['asc', 'desc'] },
    orderby: {
      description: 'Sort collection by object attribute.',
      type: 'string',
      default: 'date',
      enum: ['date', 'id', 'include', 'relevance', 'slug', 'include_slugs', 'title'],
    },
  };
}

const hunkSchema: FieldSchema = {
  type: 'object',
  properties: {
    oldStart: { description: 'First line of the hunk in the older text, from 1.', type: 'integer' },
    oldLines: { description: 'Lines of the older text the hunk covers.', type: 'integer' },
    newStart: { description: 'First line of the hunk in the newer text, from 1.', type: 'integer' },
    newLines: { description: 'Lines of the newer text the hunk covers.', type: 'integer' },
    lines: { description: "The hunk's lines, each prefixed with ' ' (kept), '-' (removed) or '+' (added).", type: 'array', items: { type: 'string' } },
  },
};

const fieldDiffSchema = (field: string): FieldSchema => ({
  description: `How the ${field} changed.`,
  type: 'object',
  context: [...ALL],
  readonly: true,
  properties: {
    changed: { description: `Whether the ${field} differs.`, type: 'boolean', context: [...ALL] },
    hunks: { description: 'The differences, line by line, as unified-diff hunks.', type: 'array', items: hunkSchema, context: [...ALL] },
    minimal: {
      description: 'Present, and false, when the texts differ in too many places to compare: one hunk then removes every line and adds every line.',
      type: 'boolean',
      enum: [false],
      context: [...ALL],
    },
    truncated: {
      description: 'Present, and true, when the difference is longer than a diff holds (256 KB of lines): the hunks then cover the texts\' start only, the last one cut where it stops.',
      type: 'boolean',
      enum: [true],
      context: [...ALL],
    },
  },
});

/** The differences between two revisions of an item (not in WordPress, whose diffs are an admin screen). */
export function revisionDiffSchema(type: RevisionedType, fields: readonly string[]): ItemSchema {
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: `${type.postType.slug}-revision-diff`,
    type: 'object',
    properties: {
      from: { description: 'The older revision compared, or null when the revision is the oldest.', type: ['integer', 'null'], context: [...ALL], readonly: true },
      to: { description: 'The revision compared.', type: 'integer', context: [...ALL], readonly: true },
      fields: {
        description: 'The differences of each revisioned field.',
        type: 'object',
        context: [...ALL],
        readonly: true,
        properties: Object.fromEntries(fields.map((field) => [field, fieldDiffSchema(field)])),
      },
    },
  };
}
