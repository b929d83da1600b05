import { type ArgSpecs } from '../../rest/args.js';
import { contextArg } from '../../rest/item-schema.js';
import { type FieldSchema, type ItemSchema, URI_OR_EMPTY } from '../../rest/schema.js';
import { STYLESHEET_EXAMPLES } from '../theme-stylesheets.js';

const ALL = ['view', 'embed', 'edit'] as const;

const rawRendered = (description: string, rendered: FieldSchema = { type: 'string' }): FieldSchema => ({
  description,
  type: 'object',
  readonly: true,
  context: ALL,
  properties: {
    raw: { description: `${description.replace(/\.$/, '')}, as found in the theme header.`, type: 'string', context: ALL },
    rendered: { description: `${description.replace(/\.$/, '')}, transformed for display.`, ...rendered, context: ALL },
  },
});

const presetList = (description: string): FieldSchema => ({ description, type: ['boolean', 'array'], context: ALL });

/** A theme, as WordPress's themes controller describes it (`requires_wp`/`requires_php` read as `requires_cms`/`requires_runtime`). */
export const themeSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'theme',
  type: 'object',
  properties: {
    stylesheet: { description: "The theme's stylesheet. This uniquely identifies the theme.", type: 'string', readonly: true, context: ALL },
    stylesheet_uri: { description: "The uri for the theme's stylesheet directory.", type: 'string', format: 'uri', readonly: true, context: ALL },
    template: {
      description: "The theme's template. If this is a child theme, this refers to the parent theme, otherwise this is the same as the theme's stylesheet.",
      type: 'string',
      readonly: true,
      context: ALL,
    },
    template_uri: { description: "The uri for the theme's template directory.", type: 'string', format: 'uri', readonly: true, context: ALL },
    author: rawRendered('The theme author.'),
    author_uri: rawRendered("The website of the theme author.", { type: 'string', format: 'uri', response: URI_OR_EMPTY }),
    description: rawRendered('A description of the theme.'),
    is_block_theme: { description: 'Whether the theme is a block-based theme.', type: 'boolean', readonly: true, context: ALL },
    name: rawRendered('The name of the theme.'),
    requires_runtime: { description: 'The minimum runtime version required for the theme to work.', type: 'string', readonly: true, context: ALL },
    requires_cms: { description: 'The minimum version required for the theme to work.', type: 'string', readonly: true, context: ALL },
    screenshot: {
      description: "The theme's screenshot URL.",
      type: 'string',
      format: 'uri',
      readonly: true,
      context: ALL,
      // A theme without a screenshot shows an empty string, as WordPress does.
      response: URI_OR_EMPTY,
    },
    tags: {
      description: 'Tags indicating styles and features of the theme.',
      type: 'object',
      readonly: true,
      context: ALL,
      properties: {
        raw: { description: 'The theme tags, as found in the theme header.', type: 'array', items: { type: 'string' }, context: ALL },
        rendered: { description: 'The theme tags, transformed for display.', type: 'string', context: ALL },
      },
    },
    textdomain: { description: "The theme's text domain.", type: 'string', readonly: true, context: ALL },
    theme_supports: {
      description: 'Features supported by this theme.',
      type: 'object',
      readonly: true,
      context: ALL,
      properties: {
        'align-wide': { description: 'Whether theme opts in to wide alignment CSS class.', type: 'boolean', context: ALL },
        'automatic-feed-links': { description: 'Whether posts and comments RSS feed links are added to head.', type: 'boolean', context: ALL },
        'block-templates': { description: 'Whether a theme uses block-based templates.', type: 'boolean', context: ALL },
        'block-template-parts': { description: 'Whether a theme uses block-based template parts.', type: 'boolean', context: ALL },
        'disable-custom-colors': { description: 'Whether the theme disables custom colors.', type: 'boolean', context: ALL },
        'disable-custom-font-sizes': { description: 'Whether the theme disables custom font sizes.', type: 'boolean', context: ALL },
        'disable-custom-gradients': { description: 'Whether the theme disables custom gradients.', type: 'boolean', context: ALL },
        'editor-color-palette': presetList('Custom color palette if defined by the theme.'),
        'editor-font-sizes': presetList('Custom font sizes if defined by the theme.'),
        'editor-gradient-presets': presetList('Custom gradient presets if defined by the theme.'),
        'editor-styles': { description: 'Whether theme opts in to the editor styles CSS wrapper.', type: 'boolean', context: ALL },
        html5: { description: 'Allows use of HTML5 markup for search forms, comment forms, comment lists, gallery, and caption.', type: ['boolean', 'array'], context: ALL },
        'post-thumbnails': { description: 'Whether the theme supports post thumbnails.', type: ['boolean', 'array'], context: ALL },
        'responsive-embeds': { description: 'Whether the theme supports responsive embedded content.', type: 'boolean', context: ALL },
        'title-tag': { description: 'Whether the theme can manage the document title tag.', type: 'boolean', context: ALL },
        'wp-block-styles': { description: 'Whether theme opts in to default WordPress block styles for viewing.', type: 'boolean', context: ALL },
      },
    },
    theme_uri: rawRendered('The URI of the theme\'s webpage.', { type: 'string', format: 'uri', response: URI_OR_EMPTY }),
    version: { description: "The theme's current version.", type: 'string', readonly: true, context: ALL },
    status: { description: 'A named status for the theme.', type: 'string', enum: ['inactive', 'active'], context: ALL },
  },
};

export const themeCollectionArgs: ArgSpecs = {
  context: contextArg(themeSchema),
  status: {
    description: 'Limit result set to themes assigned one or more statuses.',
    type: 'array',
    items: { enum: ['active', 'inactive'], type: 'string' },
  },
};

export const themeItemArgs: ArgSpecs = {
  stylesheet: { description: "The theme's stylesheet. This uniquely identifies the theme.", type: 'string', examples: STYLESHEET_EXAMPLES },
  context: contextArg(themeSchema),
};
