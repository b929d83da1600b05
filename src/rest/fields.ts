import { boundedList } from './client-input.js';

/**
 * How many names `_fields` may hold, and how long they may be together. WordPress sets no bound;
 * every name is looked for in every field of every item, so an unbounded list costs
 * `items x fields x names` (4 million names kept a process busy for seconds), while a client
 * names a few dozen fields at most (every field of a post, dotted paths included, is under 60).
 */
export const MAX_FIELDS = 100;
export const MAX_FIELDS_LENGTH = 4096;

/**
 * `_fields=a,b.c` or `_fields[]=a&_fields[]=b.c`, trimmed, as a list of dot paths; a longer list
 * than the bounds allow is refused (400 `rest_invalid_param` naming `_fields`) before it is split.
 */
export function parseFieldList(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  return boundedList('_fields', value, { maxItems: MAX_FIELDS, maxLength: MAX_FIELDS_LENGTH, separator: /[\s,]+/ });
}

/** Whether `field` (a top-level or dotted name) is asked for by `fields`; everything is when nothing was asked. */
export function isFieldIncluded(field: string, fields: readonly string[] | null): boolean {
  if (fields === null) return true;
  if (field === '_links' && fields.includes('_embedded')) return true;
  return fields.some((wanted) => wanted === field || wanted.startsWith(`${field}.`) || field.startsWith(`${wanted}.`));
}

/** The asked-for paths as a tree: `a.b,c` is a → (b → true), c → true. Names are the client's, so a Map. */
type Mask = Map<string, Mask | true>;

function buildMask(fields: readonly string[]): Mask {
  const mask: Mask = new Map();
  for (const path of fields) {
    let node = mask;
    const parts = path.split('.');
    for (const [index, part] of parts.entries()) {
      const existing = node.get(part);
      if (existing === true) break;
      if (index === parts.length - 1) node.set(part, true);
      else {
        const child: Mask = existing ?? new Map();
        node.set(part, child);
        node = child;
      }
    }
  }
  return mask;
}

function applyMask(value: unknown, mask: Mask): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  // Without a prototype, a key named `__proto__` stays a key.
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, sub] of mask) {
    if (!Object.hasOwn(value, key)) continue;
    const child = (value as Record<string, unknown>)[key];
    if (sub === true) out[key] = child;
    else if (typeof child === 'object' && child !== null && !Array.isArray(child)) out[key] = applyMask(child, sub);
  }
  return out;
}

/** Keeps only the asked-for fields of an item, or of each item of a list (`rest_filter_response_fields`). */
export function filterFields(data: unknown, fields: readonly string[]): unknown {
  const mask = buildMask(fields);
  return Array.isArray(data) ? data.map((item) => applyMask(item, mask)) : applyMask(data, mask);
}
