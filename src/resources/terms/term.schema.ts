import { type ArgSpecs } from '../../rest/args.js';
import { collectionArgs, contextArg } from '../../rest/item-schema.js';
import { type ItemSchema } from '../../rest/schema.js';
import { type TaxonomyDef } from '../../registry/taxonomies.js';
import { metaSchema } from '../../registry/meta.js';

const ALL = ['view', 'embed', 'edit'] as const;
const VIEW_EDIT = ['view', 'edit'] as const;

/** A term of `taxonomy`, as WordPress's terms controller describes it (`get_item_schema`). */
export function termSchema(taxonomy: TaxonomyDef): ItemSchema {
  const schema: ItemSchema = {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: taxonomy.slug === 'post_tag' ? 'tag' : taxonomy.slug,
    type: 'object',
    properties: {
      id: { description: 'Unique identifier for the term.', type: 'integer', context: ALL, readonly: true },
      count: { description: 'Number of published posts for the term.', type: 'integer', context: VIEW_EDIT, readonly: true },
      description: { description: 'HTML description of the term.', type: 'string', context: VIEW_EDIT },
      link: { description: 'URL of the term.', type: 'string', format: 'uri', context: ALL, readonly: true },
      // WordPress's column holds 200 characters; so does a database index row, with room to spare.
      name: { description: 'HTML title for the term.', type: 'string', maxLength: 200, context: ALL, required: true },
      slug: { description: 'An alphanumeric identifier for the term unique to its type.', type: 'string', context: ALL },
      taxonomy: { description: 'Type attribution for the term.', type: 'string', enum: [taxonomy.slug], context: ALL, readonly: true },
    },
  };
  if (taxonomy.hierarchical) {
    schema.properties.parent = { description: 'The parent term ID.', type: 'integer', context: VIEW_EDIT };
  }
  schema.properties.meta = metaSchema('term', taxonomy.slug, VIEW_EDIT);
  return schema;
}

export const ORDERBY = ['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'] as const;
export type TermOrderby = (typeof ORDERBY)[number];

/** The list arguments, in WordPress's order (`get_collection_params`). */
export function termCollectionArgs(taxonomy: TaxonomyDef, schema: ItemSchema): ArgSpecs {
  const { page, per_page, offset } = collectionArgs(10);
  const args: ArgSpecs = {
    context: contextArg(schema),
    page,
    per_page,
    search: { description: 'Limit results to those matching a string.', type: 'string' },
    exclude: { description: 'Ensure result set excludes specific IDs.', type: 'array', items: { type: 'integer' }, default: [] },
    include: { description: 'Limit result set to specific IDs.', type: 'array', items: { type: 'integer' }, default: [] },
    offset,
    order: { description: 'Order sort attribute ascending or descending.', type: 'string', default: 'asc', enum: ['asc', 'desc'] },
    orderby: { description: 'Sort collection by term attribute.', type: 'string', default: 'name', enum: ORDERBY },
    hide_empty: { description: 'Whether to hide terms not assigned to any posts.', type: 'boolean', default: false },
  };
  if (taxonomy.hierarchical) {
    args.parent = { description: 'Limit result set to terms assigned to a specific parent.', type: 'integer' };
  }
  // WordPress declares `default: null`, which only its validator skips; leaving it out means the same here.
  args.post = { description: 'Limit result set to terms assigned to a specific post.', type: 'integer' };
  args.slug = { description: 'Limit result set to terms with one or more specific slugs.', type: 'array', items: { type: 'string' } };
  return args;
}

export const termIdArg: ArgSpecs = { id: { description: 'Unique identifier for the term.', type: 'integer' } };

export const forceArg: ArgSpecs = {
  force: { type: 'boolean', default: false, description: 'Required to be true, as terms do not support trashing.' },
};
