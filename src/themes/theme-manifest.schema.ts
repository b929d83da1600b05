/**
 * The JSON Schema of `theme-manifest.json`: what WordPress reads from a theme's `style.css` header
 * (name, description, version, author, URIs, requirements, text domain, tags), with the menu
 * locations of `register_nav_menus` (slug -> description) and the sidebars of `register_sidebar`.
 */
export const themeManifestSchema = {
  $id: 'https://cms.invalid/schemas/theme-manifest.json',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'version'],
  properties: {
    $schema: { type: 'string' },
    name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    version: { type: 'string', minLength: 1 },
    author: { type: 'string' },
    author_uri: { type: 'string' },
    theme_uri: { type: 'string' },
    requires_cms: { type: 'string' },
    requires_runtime: { type: 'string' },
    textdomain: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    menu_locations: {
      type: 'object',
      propertyNames: { pattern: '^[a-z0-9_-]+$' },
      additionalProperties: { type: 'string' },
    },
    sidebars: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name'],
        properties: {
          id: { type: 'string', pattern: '^[a-z0-9_-]+$' },
          name: { type: 'string', minLength: 1 },
          description: { type: 'string' },
          class: { type: 'string' },
          before_widget: { type: 'string' },
          after_widget: { type: 'string' },
          before_title: { type: 'string' },
          after_title: { type: 'string' },
        },
      },
    },
  },
} as const;
