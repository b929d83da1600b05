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

export function parseEmbed(value: unknown): EmbedRequest {
  if (value === undefined) return null;
  const text = Array.isArray(value) ? value.join(',') : String(value);
  if (text === '' || text === '1' || text === 'true' || text === '0') return true;
  return text.split(',').map((rel) => rel.trim()).filter(Boolean);
}
