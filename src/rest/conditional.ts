import { type RestRequest } from './rest-request.js';

/**
 * Conditional requests (RFC 9110, section 13.1.1): `If-Match` is `*` or a list of entity tags,
 * each `"opaque"` or weak `W/"opaque"`. If-Match uses the strong comparison: a weak tag never
 * matches, and `*` matches any current representation.
 */
export type IfMatch = { any: true } | { any: false; strong: string[] };

// One entity tag, then a comma or the end: `W/"..."` or `"..."`, whose inside has no `"`.
const ENTITY_TAG = /\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(?:,|$)/y;

/** The entity tags of a list header (`"a", W/"b"`), each with whether it is weak; null when malformed. */
function entityTags(header: string): { weak: boolean; opaque: string }[] | null {
  const tags: { weak: boolean; opaque: string }[] = [];
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < header.length) {
    const start = ENTITY_TAG.lastIndex;
    const match = ENTITY_TAG.exec(header);
    if (!match) return null;
    tags.push({ weak: Boolean(match[1]), opaque: match[2] });
    if (ENTITY_TAG.lastIndex === start) break;
  }
  return tags;
}

/**
 * The `If-Match` header of a request, parsed; undefined without one. A malformed header matches
 * nothing (the request is refused with 412 rather than applied unguarded).
 */
export function ifMatchOf(req: Pick<RestRequest, 'headers'>): IfMatch | undefined {
  const header = req.headers['if-match'];
  if (header === undefined) return undefined;
  if (header.trim() === '*') return { any: true };
  const tags = entityTags(header) ?? [];
  return { any: false, strong: tags.filter((tag) => !tag.weak).map((tag) => tag.opaque) };
}

/**
 * Whether `If-None-Match` names the representation whose tag is `etag` (`"x"` or `W/"x"`), by
 * the weak comparison RFC 9110 gives it: then a GET is answered 304.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const own = entityTags(etag)?.[0]?.opaque;
  return own !== undefined && (entityTags(header) ?? []).some((tag) => tag.opaque === own);
}

/** Whether an item whose entity tag is `opaque` (null: there is none) passes the condition. */
export function ifMatchPasses(condition: IfMatch | undefined, opaque: string | null): boolean {
  if (!condition) return true;
  if (opaque === null) return false;
  return condition.any || condition.strong.includes(opaque);
}

/** The `ETag` header for an item whose entity tag is `opaque` (a strong tag). */
export const etagHeader = (opaque: string): { ETag: string } => ({ ETag: `"${opaque}"` });
