import { describe, expect, it } from 'vitest';
import { EMBED_CONCURRENCY, embedLinks } from './embed.js';

describe('embedLinks', () => {
  it(`fetches at most ${EMBED_CONCURRENCY} linked resources at once, each once, and embeds them all`, async () => {
    let running = 0;
    let most = 0;
    const fetched: string[] = [];
    const fetch = async (href: string) => {
      fetched.push(href);
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 1));
      running--;
      return { href };
    };
    // 100 items, each linking its own term list and one of 10 shared authors.
    const items = Array.from({ length: 100 }, (_, i) => ({
      id: i,
      _links: {
        author: [{ href: `/users/${i % 10}`, embeddable: true }],
        'wp:term': [{ href: `/categories?post=${i}`, embeddable: true }],
      },
    }));
    const embedded = (await embedLinks(items, true, fetch)) as { _embedded: Record<string, { href: string }[]> }[];
    expect(most).toBeLessThanOrEqual(EMBED_CONCURRENCY);
    expect(fetched).toHaveLength(110);
    expect(new Set(fetched).size).toBe(110);
    expect(embedded[42]._embedded).toEqual({ author: [{ href: '/users/2' }], 'wp:term': [{ href: '/categories?post=42' }] });
  });
});
