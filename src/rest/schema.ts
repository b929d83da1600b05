import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parseRestDateGmt } from '../lib/site-dates.js';

export const CONTEXTS = ['view', 'embed', 'edit'] as const;
export type Context = (typeof CONTEXTS)[number];

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null';

/**
 * A property or argument schema as WordPress writes it: JSON Schema plus `context`
 * (which responses show it), `readonly`, and a boolean `required` on the property itself.
 */
export interface FieldSchema {
  type?: JsonType | JsonType[];
  description?: string;
  title?: string;
  format?: string;
  enum?: readonly unknown[];
  default?: unknown;
  required?: boolean;
  readonly?: boolean;
  context?: readonly Context[];
  items?: FieldSchema;
  properties?: Record<string, FieldSchema>;
  additionalProperties?: boolean | FieldSchema;
  patternProperties?: Record<string, FieldSchema>;
  minProperties?: number;
  maxProperties?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  anyOf?: FieldSchema[];
  oneOf?: FieldSchema[];
  /**
   * Values to start from (JSON Schema's `examples`). The OpenAPI document gives a path
   * parameter's as its examples: a generator (schemathesis) then knows the shapes an id takes,
   * and that a `/` in it (`<theme>//<slug>`, `<folder>/<file>`) is meant.
   */
  examples?: readonly unknown[];
  /**
   * How responses show the field where that differs from what a request may send (WordPress's
   * schema describes input): `trash` among statuses, `null` where a value may be missing.
   * Only the OpenAPI document reads it.
   */
  response?: Omit<FieldSchema, 'response'>;
}

/**
 * The `response` note of a `format: uri` field that WordPress sends as `""` when there is no URL
 * (a user without a website, a theme without a screenshot, a plugin header that names none, a
 * menu item whose object is gone): the document then admits the empty string beside a URI.
 */
export const URI_OR_EMPTY: Omit<FieldSchema, 'response'> = Object.freeze({ format: undefined, anyOf: [{ format: 'uri' }, { enum: [''] }] });

/** The schema of a resource's items, declared once per resource. */
export interface ItemSchema {
  $schema?: string;
  title: string;
  type: 'object';
  properties: Record<string, FieldSchema>;
}

/** The JSON Schema keywords WordPress shows for an argument in OPTIONS and the index. */
export const PUBLIC_ARG_KEYWORDS = [
  'title', 'description', 'default', 'type', 'format', 'enum', 'items', 'properties',
  'additionalProperties', 'patternProperties', 'minProperties', 'maxProperties', 'minimum',
  'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength',
  'pattern', 'minItems', 'maxItems', 'uniqueItems', 'anyOf', 'oneOf',
] as const;

export function typesOf(schema: FieldSchema): JsonType[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/**
 * Turns a WordPress-style schema into standard JSON Schema (draft 2020-12 style numeric
 * bounds, `required` as a list) for ajv and the OpenAPI document.
 */
export function toJsonSchema(schema: FieldSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // An integer past 2^53 is not one any more (JSON numbers are doubles): out of range, unless the schema says otherwise.
  if (typesOf(schema).includes('integer')) {
    if (schema.minimum === undefined) out.minimum = -Number.MAX_SAFE_INTEGER;
    if (schema.maximum === undefined) out.maximum = Number.MAX_SAFE_INTEGER;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'context' || key === 'readonly' || key === 'required' || key === 'response') continue;
    if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') continue;
    if (key === 'properties') {
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const [name, property] of Object.entries(value as Record<string, FieldSchema>)) {
        properties[name] = toJsonSchema(property);
        if (property.required === true) required.push(name);
      }
      out.properties = properties;
      if (required.length) out.required = required;
    } else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) {
      out[key] = toJsonSchema(value as FieldSchema);
    } else if (key === 'patternProperties') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, FieldSchema>).map(([p, s]) => [p, toJsonSchema(s)]),
      );
    } else if (key === 'anyOf' || key === 'oneOf') {
      out[key] = (value as FieldSchema[]).map(toJsonSchema);
    } else if (key === 'minimum' && schema.exclusiveMinimum) {
      out.exclusiveMinimum = value;
    } else if (key === 'maximum' && schema.exclusiveMaximum) {
      out.exclusiveMaximum = value;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Rebuilds a schema bottom-up: `map` sees each subschema after its own subschemas were rebuilt. */
export function mapSchema(schema: FieldSchema, map: (schema: FieldSchema) => FieldSchema): FieldSchema {
  const out: FieldSchema = { ...schema };
  const each = (record: Record<string, FieldSchema>) =>
    Object.fromEntries(Object.entries(record).map(([name, child]) => [name, mapSchema(child, map)]));
  if (out.properties) out.properties = each(out.properties);
  if (out.patternProperties) out.patternProperties = each(out.patternProperties);
  if (out.items) out.items = mapSchema(out.items, map);
  if (typeof out.additionalProperties === 'object') out.additionalProperties = mapSchema(out.additionalProperties, map);
  if (out.anyOf) out.anyOf = out.anyOf.map((child) => mapSchema(child, map));
  if (out.oneOf) out.oneOf = out.oneOf.map((child) => mapSchema(child, map));
  return map(out);
}

const HEX_COLOR = /^#([A-Fa-f0-9]{3}){1,2}$/;

const addFormats = addFormatsModule as unknown as (ajv: Ajv, formats: string[]) => Ajv;

export function createAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv, ['email', 'uri', 'uuid', 'ipv4', 'ipv6']);
  // WordPress accepts RFC 3339 dates with or without an offset (`rest_parse_date`), and only real ones.
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => parseRestDateGmt(value) !== null });
  ajv.addFormat('hex-color', HEX_COLOR);
  ajv.addFormat('ip', { validate: (value: string) => ajv.validate({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] }, value) });
  ajv.addFormat('text-field', true);
  ajv.addFormat('textarea-field', true);
  return ajv;
}

export function compileField(ajv: Ajv, schema: FieldSchema): ValidateFunction {
  return ajv.compile(toJsonSchema(schema));
}
