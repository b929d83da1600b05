import { MAX_SLUG_OCTETS } from '../../lib/slugs.js';
import { type ArgSpecs } from '../../rest/args.js';
import { argsFromSchema, contextArg } from '../../rest/item-schema.js';
import { type ItemSchema } from '../../rest/schema.js';
import { type TemplateKind } from '../../themes/themes.js';
import { TEMPLATE_STATUSES } from './template.view.js';
import { lockField } from '../locks/index.js';

const ALL = ['view', 'embed', 'edit'] as const;

/** WordPress's templates controller schema, for templates or template parts (`wp_id` read as `cms_id`). */
export function templateSchema(kind: TemplateKind): ItemSchema {
  const schema: ItemSchema = {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: kind,
    type: 'object',
    properties: {
      id: { description: 'ID of template.', type: 'string', context: ALL, readonly: true },
      slug: { description: 'Unique slug identifying the template.', type: 'string', context: ALL, required: true, minLength: 1, maxLength: MAX_SLUG_OCTETS, pattern: '^[a-zA-Z0-9_%-]+$' },
      theme: { description: 'Theme identifier for the template.', type: 'string', context: ALL, maxLength: MAX_SLUG_OCTETS, pattern: '^[\\w-]+$' },
      type: { description: 'Type of template.', type: 'string', context: ALL },
      source: { description: 'Source of template', type: 'string', context: ALL, readonly: true },
      origin: { description: 'Source of a customized template', type: 'string', context: ALL, readonly: true, response: { type: ['string', 'null'] } },
      content: {
        description: 'Content of template.',
        type: ['object', 'string'],
        default: '',
        context: ALL,
        properties: {
          raw: { description: 'Content for the template, as it exists in the database.', type: 'string', context: ['view', 'edit'] },
          block_version: { description: 'Version of the content block format used by the template.', type: 'integer', context: ['edit'], readonly: true },
        },
      },
      title: {
        description: 'Title of template.',
        type: ['object', 'string'],
        default: '',
        context: ALL,
        properties: {
          raw: { description: 'Title for the template, as it exists in the database.', type: 'string', context: ['view', 'edit', 'embed'] },
          rendered: { description: 'HTML title for the template, transformed for display.', type: 'string', context: ['view', 'edit', 'embed'], readonly: true },
        },
      },
      description: { description: 'Description of template.', type: 'string', default: '', context: ALL },
      status: { description: 'Status of template.', type: 'string', enum: TEMPLATE_STATUSES, default: 'publish', context: ALL, response: { enum: [...TEMPLATE_STATUSES, 'trash'] } },
      cms_id: { description: 'Post ID.', type: 'integer', context: ALL, readonly: true },
      has_theme_file: { description: 'Theme file exists.', type: 'boolean', context: ALL, readonly: true },
      author: { description: 'The ID for the author of the template.', type: 'integer', context: ['view', 'edit', 'embed'] },
      modified: {
        description: "The date the template was last modified, in the site's timezone.",
        type: 'string',
        format: 'date-time',
        context: ['view', 'edit'],
        readonly: true,
        response: { type: ['string', 'null'] },
      },
    },
  };
  if (kind === 'cms_template') {
    schema.properties.is_custom = { description: 'Whether a template is a custom template.', type: 'boolean', context: ALL, readonly: true };
  } else {
    schema.properties.area = { description: 'Where the template part is intended for use (header, footer, etc.)', type: 'string', context: ALL };
  }
  // Beyond WordPress: who is editing the template, as posts carry it.
  schema.properties.lock = lockField;
  return schema;
}

export function templateCollectionArgs(schema: ItemSchema): ArgSpecs {
  return {
    context: contextArg(schema),
    wp_id: { description: 'Limit to the specified post id.', type: 'integer' },
    area: { description: 'Limit to the specified template part area.', type: 'string' },
    post_type: { description: 'Post type to get the templates for.', type: 'string' },
  };
}

export const templateIdArg: ArgSpecs = {
  // `<theme>//<slug>`: the default theme's own templates and parts (`index`, `header`) are examples.
  id: { description: 'The id of a template', type: 'string', examples: ['cornerstone//index', 'cornerstone//header'] },
};

export function templateWriteArgs(schema: ItemSchema, mode: 'create' | 'update'): ArgSpecs {
  return mode === 'create' ? argsFromSchema(schema, 'create') : { ...templateIdArg, ...argsFromSchema(schema, 'update') };
}

export const templateDeleteArgs: ArgSpecs = {
  ...templateIdArg,
  force: { type: 'boolean', default: false, description: 'Whether to bypass Trash and force deletion.' },
};
