import { inTurn } from '../lib/in-turn.js';
import { type EmbedRequest, type Link } from './links.js';

type Fetch = (href: string) => Promise<unknown>;

/**
 * How many embedded resources one response fetches at once. A page of 100 posts embeds a few
 * hundred (authors, each post's terms, media: WordPress fetches them all, and so does this);
 * fetched all at once they were as many queries at once, and the process and its database were
 * busy with one response while other requests waited.
 */
export const EMBED_CONCURRENCY = 4;

/**
 * Adds `_embedded` next to `_links` (`WP_REST_Server::embed_links`): every embeddable link of the
 * asked-for relations is fetched once per response; other entries hold `[]` so positions line up,
 * and a relation with nothing embeddable is left out.
 */
export async function embedLinks(data: unknown, embed: EmbedRequest, fetch: Fetch): Promise<unknown> {
  const embedItem = linkEmbedder(embed, fetch);
  return Array.isArray(data) ? Promise.all(data.map(embedItem)) : embedItem(data);
}

/** `embedLinks` for one item at a time, every link fetched once for all the items it is given (a streamed list's). */
export function linkEmbedder(embed: EmbedRequest, fetch: Fetch): (item: unknown) => Promise<unknown> {
  const cache = new Map<string, Promise<unknown>>();
  const turn = inTurn(EMBED_CONCURRENCY);
  const fetchInTurn = (href: string) => turn(() => fetch(href));
  const cachedFetch = (href: string) => {
    if (!cache.has(href)) cache.set(href, fetchInTurn(href));
    return cache.get(href)!;
  };
  const embedItem = async (item: unknown) => {
    if (typeof item !== 'object' || item === null || !('_links' in item)) return item;
    const links = (item as { _links: Record<string, Link[]> })._links;
    const embedded: Record<string, unknown[]> = {};
    for (const [rel, list] of Object.entries(links)) {
      if (rel === 'self' || rel === 'curies') continue;
      if (embed !== true && embed !== null && !embed.includes(rel)) continue;
      let any = false;
      const bodies: unknown[] = [];
      for (const link of list) {
        const body = link.embeddable ? await cachedFetch(link.href) : undefined;
        if (body === undefined) bodies.push([]);
        else {
          bodies.push(body);
          any = true;
        }
      }
      if (any) embedded[rel] = bodies;
    }
    return Object.keys(embedded).length ? { ...item, _embedded: embedded } : item;
  };
  return embedItem;
}
