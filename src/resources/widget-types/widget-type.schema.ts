import { type ArgSpecs } from '../../rest/args.js';
import { type FieldSchema, type ItemSchema } from '../../rest/schema.js';

const everywhere = ['embed', 'view', 'edit'] as const;

export const widgetTypeSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'widget-type',
  type: 'object',
  properties: {
    id: { description: 'Unique slug identifying the widget type.', type: 'string', context: [...everywhere], readonly: true },
    name: { description: 'Human-readable name identifying the widget type.', type: 'string', default: '', context: [...everywhere], readonly: true },
    description: { description: 'Description of the widget.', type: 'string', default: '', context: ['view', 'edit', 'embed'], readonly: true },
    is_multi: { description: 'Whether the widget supports multiple instances', type: 'boolean', context: ['view', 'edit', 'embed'], readonly: true },
    classname: { description: 'Class name', type: 'string', default: '', context: [...everywhere], readonly: true },
  },
};

export const WIDGET_TYPE_ID = 'The widget type id.';
export const widgetTypeIdArg: ArgSpecs = { id: { description: WIDGET_TYPE_ID, type: 'string' } };

/** `instance` as encode and render receive it: what a widget's `instance` field shows. */
export const instanceArg: FieldSchema = {
  description: 'Current instance settings of the widget.',
  type: 'object',
  properties: {
    encoded: { description: 'Base64 encoded representation of the instance settings.', type: 'string' },
    hash: { description: 'Cryptographic hash of the instance settings.', type: 'string' },
    raw: { description: 'Unencoded instance settings, if supported.', type: 'object' },
  },
};

export const encodeArgs: ArgSpecs = {
  ...widgetTypeIdArg,
  instance: instanceArg,
  number: { description: 'The widget number, which the ids and names of the form inputs carry.', type: 'integer', minimum: 1 },
  form_data: { description: 'Serialized widget form data to encode into instance settings.', type: 'string' },
};

export const renderArgs: ArgSpecs = { ...widgetTypeIdArg, instance: instanceArg };

const encodedInstanceSchema: FieldSchema = {
  type: 'object',
  properties: { encoded: { type: 'string' }, hash: { type: 'string' }, raw: { type: 'object' } },
};

export const encodeResponse: FieldSchema = {
  type: 'object',
  properties: { form: { type: 'string' }, preview: { type: 'string' }, instance: encodedInstanceSchema },
};

export const renderResponse: FieldSchema = { type: 'object', properties: { preview: { type: 'string' } } };
