import qs from 'qs';
import { InputTooDeep, invalidParams, InvalidJson, schemaError, type RestError } from './errors.js';

/** PHP's `max_input_nesting_level`: how deep query and form keys may nest. */
export const MAX_PARAM_DEPTH = 64;
/** `json_decode`'s default depth, which WordPress's REST server parses bodies with. */
export const MAX_JSON_DEPTH = 512;

export type ClientParams = Record<string, unknown>;

/**
 * A query string (or form body) as WordPress's PHP reads it: `a[b][]=1`, keys nested at most 64
 * deep; without `indexedArrays`, `a[2]` keeps `2` as a key (`parse_str` of a widget form).
 */
export function parseQueryString(text: string, { indexedArrays = true } = {}): ClientParams {
  try {
    const arrays = indexedArrays ? { arrayLimit: 1000 } : { parseArrays: false };
    return qs.parse(text, { depth: MAX_PARAM_DEPTH, strictDepth: true, plainObjects: true, parameterLimit: 10_000, ...arrays });
  } catch (error) {
    if (error instanceof RangeError) throw new InputTooDeep();
    throw error;
  }
}

/**
 * Client input as the service may hold it, refused with a 400 when it cannot be: every object is
 * rebuilt without a prototype, so no name a client chooses (`__proto__`, `constructor`,
 * `prototype`) can reach `Object.prototype` through any later copy or lookup; a string or key
 * with a NUL character, a number that is not finite (JSON's `1e400`) and nesting past `maxDepth`
 * are refused before any route sees them.
 */
export function clientInput(value: unknown, source: 'query' | 'form' | 'json'): ClientParams {
  const maxDepth = source === 'json' ? MAX_JSON_DEPTH : MAX_PARAM_DEPTH;
  const tooDeep = (): RestError =>
    source === 'json'
      ? new InvalidJson({ json_error_code: 1, json_error_message: 'Maximum stack depth exceeded' })
      : new InputTooDeep();
  // Refused as WordPress refuses a parameter: `rest_invalid_param` naming it in `params` and `details`.
  const refuse = (param: string, problem: string) => invalidParams({ [param]: schemaError('rest_invalid_param', `${param} ${problem}.`, param) });
  const rebuild = (item: unknown, param: string, depth: number): unknown => {
    if (typeof item === 'string') {
      if (item.includes('\0')) throw refuse(param, 'must not contain a NUL character');
      return item;
    }
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) throw refuse(param, 'must be a finite number');
      return item;
    }
    if (typeof item !== 'object' || item === null) return item;
    if (depth >= maxDepth) throw tooDeep();
    if (Array.isArray(item)) return item.map((entry) => rebuild(entry, param, depth + 1));
    const out: ClientParams = Object.create(null);
    for (const key of Object.keys(item)) {
      if (key.includes('\0')) throw refuse(param || 'parameter', 'must not contain a NUL character in a key');
      out[key] = rebuild((item as ClientParams)[key], param || key, depth + 1);
    }
    return out;
  };
  // Only an object carries parameters; a JSON body that is a list or a scalar carries none.
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  return isObject ? (rebuild(value, '', 0) as ClientParams) : Object.create(null);
}
