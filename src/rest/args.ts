import { type Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { RestError, invalidParams, missingParams, schemaError, type SchemaErrorCode } from './errors.js';
import { compileField, typesOf, type FieldSchema } from './schema.js';

/** An endpoint argument: a field schema plus an optional check that needs the request. */
export interface ArgSpec<R = unknown> extends FieldSchema {
  /** Runs after the schema check passed; throw a RestError to refuse the value. */
  validate?: (value: unknown, request: R) => void | Promise<void>;
}

export type ArgSpecs<R = unknown> = Record<string, ArgSpec<R>>;

interface CompiledArg<R> {
  name: string;
  spec: ArgSpec<R>;
  check: ValidateFunction;
}

export type CompiledArgs<R> = CompiledArg<R>[];

/**
 * Items a list argument may hold, unless it states its own `maxItems`: WordPress bounds none (an
 * `include` list is as long as the URL), but each item is a term of the query or a check, and a
 * list of 100,000 ids is a scan. 1,000 is ten pages of 100 by `include`, and more ids, tags or
 * categories than any one request names.
 */
export const MAX_LIST_ITEMS = 1000;
/** Characters a `search` argument may have, unless it states its own `maxLength` (WordPress: none). */
export const MAX_SEARCH_LENGTH = 500;

/**
 * The arguments with the bounds every client-sized one gets unless it states its own: each list
 * at most `MAX_LIST_ITEMS`, a search term at most `MAX_SEARCH_LENGTH` characters. Applied when a
 * route is registered, so OPTIONS, the index and the OpenAPI document show them, and a longer
 * value is refused (400 `rest_invalid_param` naming it) before the handler runs.
 */
export function withClientBounds<R>(args: ArgSpecs<R>): ArgSpecs<R> {
  const bounded: ArgSpecs<R> = {};
  for (const [name, spec] of Object.entries(args)) {
    const types = typesOf(spec);
    let out = spec;
    if (types.includes('array') && out.maxItems === undefined) out = { ...out, maxItems: MAX_LIST_ITEMS };
    if (name === 'search' && types.includes('string') && out.maxLength === undefined) out = { ...out, maxLength: MAX_SEARCH_LENGTH };
    bounded[name] = out;
  }
  return bounded;
}

/** One validator per argument, compiled when the route is registered. */
export function compileArgs<R>(args: ArgSpecs<R>, ajv: Ajv): CompiledArgs<R> {
  return Object.entries(args).map(([name, spec]) => ({ name, spec, check: compileField(ajv, spec) }));
}

/**
 * Applies defaults, coerces query-string values, and validates every declared argument,
 * reporting all bad ones at once as WordPress does (`WP_REST_Request::has_valid_params`).
 */
export async function applyArgs<R>(
  compiled: CompiledArgs<R>,
  params: Record<string, unknown>,
  request: R,
): Promise<void> {
  const missing: string[] = [];
  for (const { name, spec } of compiled) {
    if (params[name] === undefined && spec.default !== undefined) params[name] = structuredClone(spec.default);
    if (params[name] === undefined && spec.required) missing.push(name);
  }
  if (missing.length) throw missingParams(missing);

  const problems: Record<string, RestError> = {};
  for (const { name, spec, check } of compiled) {
    if (params[name] === undefined) continue;
    const value = coerce(params[name], spec);
    if (!check(value)) {
      problems[name] = describeSchemaError(name, spec, check.errors?.[0]);
      continue;
    }
    params[name] = value;
    try {
      await spec.validate?.(value, request);
    } catch (error) {
      if (!(error instanceof RestError)) throw error;
      problems[name] = error;
    }
  }
  if (Object.keys(problems).length) throw invalidParams(problems);
}

/**
 * WordPress's loose typing of request values (`rest_sanitize_value_from_schema`): query
 * strings and form fields arrive as strings, so "5" is an integer, "1,2" an array, "false"
 * a boolean, and "" an empty object.
 */
export function coerce(value: unknown, schema: FieldSchema): unknown {
  const types = typesOf(schema);
  if (types.length === 0) return value;
  if (value === null) return value;

  if (types.includes('array')) {
    const list = toList(value);
    if (list) return schema.items ? list.map((item) => coerce(item, schema.items!)) : list;
  }
  if (types.includes('object') && isPlainObject(value)) {
    if (!schema.properties) return value;
    const out: Record<string, unknown> = { ...value };
    for (const [key, property] of Object.entries(schema.properties)) {
      if (Object.hasOwn(out, key)) out[key] = coerce(out[key], property);
    }
    return out;
  }
  if (typeof value === 'string') {
    if (types.includes('string')) return value;
    // `1e400` stays a string, so the type check refuses it: no route sees a number that is not finite.
    if ((types.includes('integer') || types.includes('number')) && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) {
      const number = Number(value);
      if (Number.isFinite(number)) return number;
    }
    if (types.includes('boolean')) {
      const lowered = value.toLowerCase();
      if (lowered === 'true' || lowered === '1') return true;
      if (lowered === 'false' || lowered === '0') return false;
    }
    if (types.includes('object') && value === '') return {};
    if (types.includes('null') && value === '') return null;
  }
  if (typeof value === 'number' && types.includes('boolean') && !types.includes('integer') && !types.includes('number')) {
    if (value === 1) return true;
    if (value === 0) return false;
  }
  return value;
}

function toList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value === '' ? [] : value.split(/[\s,]+/).filter((part) => part !== '');
  // qs turns `a[0]=x&a[1]=y` into an object once it has too many or sparse indexes.
  if (isPlainObject(value) && Object.keys(value).every((key) => /^\d+$/.test(key))) return Object.values(value);
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names a nested value the way WordPress does: `meta[key][0]`. */
function paramPath(name: string, instancePath: string): string {
  if (!instancePath) return name;
  return name + instancePath.split('/').slice(1).map((part) => `[${part.replace(/~1/g, '/').replace(/~0/g, '~')}]`).join('');
}

function schemaAt(schema: FieldSchema, schemaPath: string): FieldSchema {
  // schemaPath is like "#/properties/foo/items/minimum"; walk to the keyword's parent schema.
  const parts = schemaPath.replace(/^#\/?/, '').split('/').slice(0, -1);
  let current: unknown = schema;
  for (const part of parts) current = (current as Record<string, unknown>)?.[part];
  return (current as FieldSchema) ?? schema;
}

const FORMAT_ERRORS: Record<string, [SchemaErrorCode, string]> = {
  'date-time': ['rest_invalid_date', 'Invalid date.'],
  email: ['rest_invalid_email', 'Invalid email address.'],
  uri: ['rest_invalid_url', 'Invalid URL.'],
  uuid: ['rest_invalid_uuid', 'Invalid UUID.'],
  ip: ['rest_invalid_ip', 'Invalid IP address.'],
  ipv4: ['rest_invalid_ip', 'Invalid IP address.'],
  ipv6: ['rest_invalid_ip', 'Invalid IP address.'],
  'hex-color': ['rest_invalid_hex_color', 'Invalid hex color.'],
};

/** Maps ajv's first error to WordPress's code and wording (`rest_validate_value_from_schema`). */
export function describeSchemaError(name: string, schema: FieldSchema, error: ErrorObject | undefined): RestError {
  const fail = (code: SchemaErrorCode, message: string) => schemaError(code, message, name);
  if (!error) return schemaError('rest_invalid_param', 'Invalid parameter.');
  const param = paramPath(name, error.instancePath);
  const at = schemaAt(schema, error.schemaPath);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return fail('rest_invalid_type', `${param} is not of type ${typesOf(at).join(',')}.`);
    case 'enum': {
      const allowed = (at.enum ?? []).map(String);
      return allowed.length === 1
        ? fail('rest_not_in_enum', `${param} is not ${allowed[0]}.`)
        : fail('rest_not_in_enum', `${param} is not one of ${allowed.join(', ')}.`);
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return fail('rest_out_of_bounds', boundsMessage(param, at, error.keyword, Number(p.limit)));
    case 'minLength':
      return fail('rest_too_short', `${param} must be at least ${p.limit} character${p.limit === 1 ? '' : 's'} long.`);
    case 'maxLength':
      return fail('rest_too_long', `${param} must be at most ${p.limit} character${p.limit === 1 ? '' : 's'} long.`);
    case 'pattern':
      return fail('rest_invalid_pattern', `${param} does not match pattern ${p.pattern}.`);
    case 'minItems':
      return fail('rest_too_few_items', `${param} must contain at least ${p.limit} item${p.limit === 1 ? '' : 's'}.`);
    case 'maxItems':
      return fail('rest_too_many_items', `${param} must contain at most ${p.limit} item${p.limit === 1 ? '' : 's'}.`);
    case 'uniqueItems':
      return fail('rest_duplicate_items', `${param} has duplicate items.`);
    case 'required':
      return fail('rest_property_required', `${p.missingProperty} is a required property of ${param}.`);
    case 'additionalProperties':
      return fail('rest_additional_properties_forbidden', `${p.additionalProperty} is not a valid property of Object.`);
    case 'anyOf':
      return fail('rest_no_matching_schema', `${param} does not match any of the expected formats.`);
    case 'oneOf':
      return p.passingSchemas
        ? fail('rest_one_of_multiple_matches', `${param} matches more than one of the expected formats.`)
        : fail('rest_no_matching_schema', `${param} does not match any of the expected formats.`);
    case 'format': {
      const [code, message] = FORMAT_ERRORS[String(p.format)] ?? ['rest_invalid_param', 'Invalid parameter.'];
      return fail(code, message);
    }
    default:
      return fail('rest_invalid_param', `${param} is invalid: ${error.message ?? 'invalid value'}.`);
  }
}

function boundsMessage(param: string, schema: FieldSchema, keyword: string, limit: number): string {
  const { exclusiveMinimum, exclusiveMaximum } = schema;
  // A bound the schema does not state is the implied one of integers (2^53, `toJsonSchema`).
  const minimum = schema.minimum ?? (keyword === 'minimum' ? limit : undefined);
  const maximum = schema.maximum ?? (keyword === 'maximum' ? limit : undefined);
  const inclusive = (exclusive: boolean | undefined) => (exclusive ? 'exclusive' : 'inclusive');
  if (minimum !== undefined && maximum !== undefined) {
    return `${param} must be between ${minimum} (${inclusive(exclusiveMinimum)}) and ${maximum} (${inclusive(exclusiveMaximum)})`;
  }
  if (minimum !== undefined) {
    return `${param} must be ${exclusiveMinimum ? 'greater than' : 'greater than or equal to'} ${minimum}`;
  }
  return `${param} must be ${exclusiveMaximum ? 'less than' : 'less than or equal to'} ${maximum}`;
}
