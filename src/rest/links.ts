import { boundedList } from './client-input.js';

/** One link object: `href` plus attributes such as `embeddable`, `count`, `taxonomy`. */
export interface Link {
  href: string;
  embeddable?: boolean;
  [attribute: string]: unknown;
}

export type Links = Record<string, Link[]>;

const API_W_ORG = 'https://api.w.org/';

export const CURIES: Link[] = [{ name: 'wp', href: `${API_W_ORG}{rel}`, templated: true }];

/** Relations under `https://api.w.org/` are written `wp:<rel>` with a `curies` entry, as WordPress does. */
export function compactLinks(links: Links): Links {
  const out: Links = {};
  let compacted = false;
  for (const [rel, list] of Object.entries(links)) {
    if (rel.startsWith(API_W_ORG)) {
      out[`wp:${rel.slice(API_W_ORG.length)}`] = list;
      compacted = true;
    } else {
      out[rel] = list;
    }
  }
  if (compacted || Object.keys(out).some((rel) => rel.startsWith('wp:'))) out.curies ??= CURIES;
  return out;
}

/** `_embed`: null when absent, true for every embeddable relation, or the listed relation names. */
export type EmbedRequest = null | true | string[];

/**
 * How many relations `_embed` may name, and how long they may be together: WordPress sets no
 * bound, and has fewer than twenty relations (a name may be a full URI, `https://api.w.org/term`).
 */
export const MAX_EMBED_RELATIONS = 32;
export const MAX_EMBED_LENGTH = 1024;

/** `rest_parse_embed_param`; a longer list than the bounds allow is refused (400 `rest_invalid_param` naming `_embed`). */
export function parseEmbed(value: unknown): EmbedRequest {
  if (value === undefined) return null;
  const rels = boundedList('_embed', value, { maxItems: MAX_EMBED_RELATIONS, maxLength: MAX_EMBED_LENGTH, separator: /,/, splitEntries: true });
  if (rels.length === 0 || (rels.length === 1 && ['1', 'true', '0'].includes(rels[0]))) return true;
  return rels;
}
