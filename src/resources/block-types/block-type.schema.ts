import { type FieldSchema, type ItemSchema } from '../../rest/schema.js';

const ALL = ['embed', 'view', 'edit'] as const;

const field = (description: string, type: FieldSchema['type'], extra: Omit<FieldSchema, 'description' | 'type'> = {}): FieldSchema => ({
  description,
  type,
  ...extra,
  context: [...ALL],
  readonly: true,
});

const handles = (description: string) => field(description, 'array', { default: [], items: { type: 'string' } });
const deprecated = (description: string) => field(description, ['string', 'null']);
const blockNames = (description: string) => field(description, ['array', 'null'], { default: null, items: { type: 'string' } });

/** WordPress's block type schema (`WP_REST_Block_Types_Controller::get_item_schema`), in its order, with its defaults. */
export const blockTypeSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'block-type',
  type: 'object',
  properties: {
    api_version: field('Version of block API.', 'integer', { default: 1 }),
    title: field('Title of block type.', 'string', { default: '' }),
    name: field('Unique name identifying the block type.', 'string', { default: '' }),
    description: field('Description of block type.', 'string', { default: '' }),
    icon: field('Icon of block type.', ['string', 'null'], { default: null }),
    attributes: field('Block attributes.', ['object', 'null'], { properties: {}, default: null, additionalProperties: { type: 'object' } }),
    provides_context: field('Context provided by blocks of this type.', 'object', { properties: {}, additionalProperties: { type: 'string' }, default: {} }),
    uses_context: field('Context values inherited by blocks of this type.', 'array', { default: [], items: { type: 'string' } }),
    selectors: field('Custom CSS selectors.', 'object', { properties: {}, default: {} }),
    supports: field('Block supports.', 'object', { default: {}, properties: {} }),
    category: field('Block category.', ['string', 'null'], { default: null }),
    is_dynamic: field('Is the block dynamically rendered.', 'boolean', { default: false }),
    editor_script_handles: handles('Editor script handles.'),
    script_handles: handles('Public facing and editor script handles.'),
    view_script_handles: handles('Public facing script handles.'),
    view_script_module_ids: handles('Public facing script module IDs.'),
    editor_style_handles: handles('Editor style handles.'),
    style_handles: handles('Public facing and editor style handles.'),
    view_style_handles: handles('Public facing style handles.'),
    styles: field('Block style variations.', 'array', {
      items: {
        type: 'object',
        properties: {
          name: { description: 'Unique name identifying the style.', type: 'string', required: true },
          label: { description: 'The human-readable label for the style.', type: 'string' },
          inline_style: { description: 'Inline CSS code that registers the CSS class required for the style.', type: 'string' },
          style_handle: { description: 'Contains the handle that defines the block style.', type: 'string' },
        },
      },
      default: [],
    }),
    variations: field('Block variations.', ['array', 'null'], { items: { type: 'object' }, default: null }),
    textdomain: field('Public text domain.', ['string', 'null'], { default: null }),
    parent: blockNames('Parent blocks.'),
    ancestor: blockNames('Ancestor blocks.'),
    allowed_blocks: blockNames('Allowed child block types.'),
    keywords: field('Block keywords.', 'array', { items: { type: 'string' }, default: [] }),
    example: field('Block example.', ['object', 'null'], { default: null, properties: {} }),
    block_hooks: field('This block is automatically inserted near any occurrence of the block types used as keys of this map, into a relative position given by the corresponding value.', 'object', {
      patternProperties: { '^[a-zA-Z0-9-]+/[a-zA-Z0-9-]+$': { type: 'string', enum: ['before', 'after', 'first_child', 'last_child'] } },
      default: {},
    }),
    editor_script: deprecated('Editor script handle. DEPRECATED: Use `editor_script_handles` instead.'),
    script: deprecated('Public facing and editor script handle. DEPRECATED: Use `script_handles` instead.'),
    view_script: deprecated('Public facing script handle. DEPRECATED: Use `view_script_handles` instead.'),
    editor_style: deprecated('Editor style handle. DEPRECATED: Use `editor_style_handles` instead.'),
    style: deprecated('Public facing and editor style handle. DEPRECATED: Use `style_handles` instead.'),
  },
};
