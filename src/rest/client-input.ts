import qs from 'qs';
import { InputTooDeep, invalidParams, InvalidJson, schemaError, TooManyParameters, type RestError } from './errors.js';

/** PHP's `max_input_nesting_level`: how deep query and form keys may nest. */
export const MAX_PARAM_DEPTH = 64;
/** `json_decode`'s default depth, which WordPress's REST server parses bodies with. */
export const MAX_JSON_DEPTH = 512;
/**
 * PHP's `max_input_vars`: how many parameters a query string or form body may carry (PHP drops
 * the rest with a warning; here the request is refused, so nothing is silently lost).
 */
export const MAX_PARAMS = 1000;

export type ClientParams = Record<string, unknown>;

/**
 * A query string (or form body) as WordPress's PHP reads it: `a[b][]=1`, keys nested at most 64
 * deep; without `indexedArrays`, `a[2]` keeps `2` as a key (`parse_str` of a widget form).
 */
export function parseQueryString(text: string, { indexedArrays = true } = {}): ClientParams {
  // Counted before anything is split or decoded: a longer text costs nothing more than this loop.
  for (let count = 1, at = text.indexOf('&'); at >= 0; at = text.indexOf('&', at + 1)) {
    if (++count > MAX_PARAMS) throw new TooManyParameters(MAX_PARAMS);
  }
  try {
    const arrays = indexedArrays ? { arrayLimit: 1000 } : { parseArrays: false };
    return qs.parse(text, { depth: MAX_PARAM_DEPTH, strictDepth: true, plainObjects: true, parameterLimit: MAX_PARAMS, ...arrays });
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

/** How a list parameter that is not an argument (`_fields`, `_embed`) is read, and how long it may be. */
export interface ListBounds {
  /** Entries, once split. */
  maxItems: number;
  /** Characters of every entry together. */
  maxLength: number;
  /** Where a text is split into entries. */
  separator: RegExp;
  /** Whether the entries of a list are split too (`_embed[]=author,up`). */
  splitEntries?: boolean;
}

/**
 * A list parameter as `wp_parse_list` reads it (a text split at `separator`, or the scalar
 * entries of a list), trimmed and without empty entries; refused with 400 `rest_invalid_param`
 * naming `param` when it is longer than `bounds` allow. The length is measured before anything
 * is split or copied (each entry counts one more, for its separator), so an oversized value costs
 * one pass over its entries and no more.
 */
export function boundedList(param: string, value: unknown, bounds: ListBounds): string[] {
  const refuse = (problem: RestError) => invalidParams({ [param]: problem });
  const entries = typeof value === 'object' && value !== null ? Object.values(value) : [value];
  let length = 0;
  for (const entry of entries) {
    length += (typeof entry === 'string' ? entry.length : 1) + 1;
    if (length > bounds.maxLength + 1) throw refuse(schemaError('rest_too_long', `${param} must be at most ${bounds.maxLength} characters long.`, param));
  }
  const scalar = (entry: unknown) => typeof entry === 'string' || typeof entry === 'number' || typeof entry === 'boolean';
  const parts = typeof value !== 'object' || value === null
    ? String(value).split(bounds.separator)
    : entries.filter(scalar).flatMap((entry) => (bounds.splitEntries ? String(entry).split(bounds.separator) : [String(entry)]));
  const list = parts.map((part) => part.trim()).filter((part) => part !== '');
  if (list.length > bounds.maxItems) throw refuse(schemaError('rest_too_many_items', `${param} must contain at most ${bounds.maxItems} items.`, param));
  return list;
}

/**
 * How many values (object members and array elements) a JSON body may hold. `JSON.parse` and the
 * copy `clientInput` makes cost about a microsecond a member, so 2 million members in 25 MB kept
 * a process busy for seconds; no request of a WordPress client comes near this (a theme.json
 * with every style and setting has a few thousand).
 */
export const MAX_JSON_VALUES = 20_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;

/**
 * Counts the values of a UTF-8 JSON text as its bytes arrive, without parsing it: each comma,
 * `[` and `{` outside strings starts one (a member or element, near enough). It looks at each
 * byte once, in the chunks the body arrives in, so the count costs no long pause however large
 * the body; UTF-8 never has these bytes inside a multi-byte character.
 */
export class JsonValueCounter {
  private inString = false;
  private escaped = false;
  private count = 0;

  constructor(private readonly max: number) {}

  /** Takes the next bytes; false once more than `max` values were seen. */
  write(bytes: Uint8Array): boolean {
    let { inString, escaped, count } = this;
    const max = this.max;
    for (let at = 0; at < bytes.length && count <= max; at++) {
      const byte = bytes[at];
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) inString = true;
      else if (byte === COMMA || byte === OPEN_ARRAY || byte === OPEN_OBJECT) count++;
    }
    this.inString = inString;
    this.escaped = escaped;
    this.count = count;
    return count <= max;
  }
}
