/**
 * The JSON Schema of `theme.json` (versions 2 and 3) and of its style variations, as far as the
 * service relies on it: the top-level sections and the keys of `settings` and `styles` are
 * WordPress's, presets must name a slug and a value, and style values are strings or `{ref}`
 * objects. Inside `settings.custom`, `styles.blocks`, `settings.blocks` and `styles.elements`
 * names are free (block names, custom properties), so client keys with `.` or `$` pass.
 */

const preset = (valueKey: string) => ({
  type: 'array',
  items: {
    type: 'object',
    required: ['slug', valueKey],
    properties: { slug: { type: 'string', minLength: 1 }, name: { type: 'string' }, [valueKey]: {} },
  },
});

const section = { type: 'object' };

const settingsProperties = {
  appearanceTools: { type: 'boolean' },
  useRootPaddingAwareAlignments: { type: 'boolean' },
  background: section,
  border: section,
  color: {
    type: 'object',
    properties: {
      palette: preset('color'),
      gradients: preset('gradient'),
      duotone: { type: 'array' },
      custom: { type: 'boolean' },
      defaultPalette: { type: 'boolean' },
      defaultGradients: { type: 'boolean' },
    },
  },
  custom: section,
  dimensions: section,
  layout: {
    type: 'object',
    properties: { contentSize: { type: 'string' }, wideSize: { type: 'string' }, allowEditing: { type: 'boolean' } },
  },
  lightbox: section,
  position: section,
  shadow: section,
  spacing: {
    type: 'object',
    properties: {
      spacingSizes: preset('size'),
      units: { type: 'array', items: { type: 'string' } },
      blockGap: { type: ['boolean', 'null'] },
      padding: { type: 'boolean' },
      margin: { type: 'boolean' },
    },
  },
  typography: {
    type: 'object',
    properties: { fontFamilies: preset('fontFamily'), fontSizes: preset('size'), fluid: { type: ['boolean', 'object'] } },
  },
};

const settings = {
  type: 'object',
  additionalProperties: false,
  properties: { ...settingsProperties, blocks: { type: 'object', additionalProperties: { type: 'object' } } },
};

const styleValue = {
  anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'object', required: ['ref'], properties: { ref: { type: 'string' } } }],
};

const styleGroup = { type: 'object', additionalProperties: { anyOf: [styleValue, { type: 'object' }] } };

const styleProperties = {
  background: styleGroup,
  border: styleGroup,
  color: styleGroup,
  css: { type: 'string' },
  dimensions: styleGroup,
  filter: styleGroup,
  outline: styleGroup,
  shadow: { anyOf: [styleValue, { type: 'object' }] },
  spacing: styleGroup,
  typography: styleGroup,
};

const styles = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...styleProperties,
    elements: { type: 'object', additionalProperties: { type: 'object' } },
    blocks: { type: 'object', additionalProperties: { type: 'object' } },
    variations: { type: 'object', additionalProperties: { type: 'object' } },
  },
};

const templatePart = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, title: { type: 'string' }, area: { type: 'string' } },
};

const customTemplate = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, title: { type: 'string' }, postTypes: { type: 'array', items: { type: 'string' } } },
};

export const themeSettingsSchema = settings;
export const themeStylesSchema = styles;

export const themeJsonSchema = {
  $id: 'https://cms.invalid/schemas/theme.json',
  type: 'object',
  additionalProperties: false,
  required: ['version'],
  properties: {
    $schema: { type: 'string' },
    version: { type: 'integer', enum: [2, 3] },
    title: { type: 'string' },
    description: { type: 'string' },
    slug: { type: 'string' },
    settings,
    styles,
    templateParts: { type: 'array', items: templatePart },
    customTemplates: { type: 'array', items: customTemplate },
    patterns: { type: 'array', items: { type: 'string' } },
  },
} as const;
