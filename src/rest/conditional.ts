import { type RestRequest } from './rest-request.js';

/**
 * Conditional requests (RFC 9110, section 13.1.1): `If-Match` is `*` or a list of entity tags,
 * each `"opaque"` or weak `W/"opaque"`. If-Match uses the strong comparison: a weak tag never
 * matches, and `*` matches any current representation.
 */
export type IfMatch = { any: true } | { any: false; strong: string[] };

// One entity tag, then a comma or the end: `W/"..."` or `"..."`, whose inside has no `"`.
const ENTITY_TAG = /\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(?:,|$)/y;

/**
 * The `If-Match` header of a request, parsed; undefined without one. A malformed header matches
 * nothing (the request is refused with 412 rather than applied unguarded).
 */
export function ifMatchOf(req: Pick<RestRequest, 'headers'>): IfMatch | undefined {
  const header = req.headers['if-match'];
  if (header === undefined) return undefined;
  if (header.trim() === '*') return { any: true };
  const strong: string[] = [];
  ENTITY_TAG.lastIndex = 0;
  let parsed = 0;
  while (ENTITY_TAG.lastIndex < header.length) {
    const start = ENTITY_TAG.lastIndex;
    const match = ENTITY_TAG.exec(header);
    if (!match) return { any: false, strong: [] };
    if (!match[1]) strong.push(match[2]);
    parsed++;
    if (ENTITY_TAG.lastIndex === start) break;
  }
  return parsed ? { any: false, strong } : { any: false, strong: [] };
}

/** Whether an item whose entity tag is `opaque` (null: there is none) passes the condition. */
export function ifMatchPasses(condition: IfMatch | undefined, opaque: string | null): boolean {
  if (!condition) return true;
  if (opaque === null) return false;
  return condition.any || condition.strong.includes(opaque);
}

/** The `ETag` header for an item whose entity tag is `opaque` (a strong tag). */
export const etagHeader = (opaque: string): { ETag: string } => ({ ETag: `"${opaque}"` });
