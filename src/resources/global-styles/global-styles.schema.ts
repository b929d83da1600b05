import { type ValidateFunction } from 'ajv';
import { type ArgSpecs } from '../../rest/args.js';
import { schemaError } from '../../rest/errors.js';
import { argsFromSchema, contextArg } from '../../rest/item-schema.js';
import { type ItemSchema } from '../../rest/schema.js';
import { validateThemeSettings, validateThemeStyles } from '../../themes/theme-schemas.js';
import { STYLESHEET_EXAMPLES } from '../theme-stylesheets.js';

const ALL = ['view', 'embed', 'edit'] as const;
const VIEW_EDIT = ['view', 'edit'] as const;

/** WordPress's global styles controller schema (the seed types `id` as a string). */
export const globalStylesSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'cms_global_styles',
  type: 'object',
  properties: {
    id: { description: 'ID of global styles config.', type: 'string', context: ALL, readonly: true },
    styles: { description: 'Global styles.', type: 'object', context: VIEW_EDIT },
    settings: { description: 'Global settings.', type: 'object', context: VIEW_EDIT },
    title: {
      description: 'Title of the global styles variation.',
      type: ['object', 'string'],
      context: ALL,
      properties: {
        raw: { description: 'Title for the global styles variation, as it exists in the database.', type: 'string', context: ['view', 'edit', 'embed'] },
        rendered: { description: 'HTML title for the post, transformed for display.', type: 'string', context: ['view', 'edit', 'embed'], readonly: true },
      },
    },
  },
};

const sections: Record<'styles' | 'settings', ValidateFunction> = { styles: validateThemeStyles, settings: validateThemeSettings };

/** `styles` and `settings` must be what theme.json allows there. */
const themeJsonSection = (name: 'styles' | 'settings') => (value: unknown) => {
  const validate = sections[name];
  if (validate(value)) return;
  const error = validate.errors?.[0];
  const extra = error?.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  throw schemaError('rest_invalid_param', `${name}${error?.instancePath ?? ''} ${error?.message ?? 'is invalid'}${extra}.`, name);
};

const idArg: ArgSpecs = { id: { description: 'The id of a template', type: 'string' } };

export const globalStylesReadArgs: ArgSpecs = { ...idArg, context: contextArg(globalStylesSchema) };

const updateArgs = argsFromSchema(globalStylesSchema, 'update');
export const globalStylesUpdateArgs: ArgSpecs = {
  ...idArg,
  ...updateArgs,
  styles: { ...updateArgs.styles, validate: themeJsonSection('styles') },
  settings: { ...updateArgs.settings, validate: themeJsonSection('settings') },
};

export const stylesheetArg: ArgSpecs = {
  stylesheet: { description: 'The theme identifier', type: 'string', examples: STYLESHEET_EXAMPLES },
};
