/** `utf8_uri_encode($title, 200)` in `sanitize_title_with_dashes`: a slug is at most 200 octets, percent-encoded. */
export const MAX_SLUG_OCTETS = 200;

/**
 * WordPress's `sanitize_title`: lower case, accents removed, anything but letters, digits,
 * `_` and `-` turned into hyphens, hyphens collapsed and trimmed, at most 200 octets encoded.
 */
export function sanitizeSlug(text: string): string {
  return truncateSlug(sanitizeCharacters(text));
}

/**
 * `wp_unique_post_slug`'s candidate for a taken slug: `-<suffix>` appended, the slug first cut
 * (`_truncate_post_slug`) so that the whole stays within 200 octets, however high the suffix.
 */
export function suffixedSlug(slug: string, suffix: number): string {
  const tail = `-${suffix}`;
  return `${truncateSlug(slug, MAX_SLUG_OCTETS - tail.length)}${tail}`;
}

/**
 * `wp_unique_post_slug`'s loop: `slug` itself if no other item has it, else the first of
 * `slug-2`, `slug-3`... that none has. `taken` asks the item's own collection (and scope).
 */
export async function firstFreeSlug(slug: string, taken: (candidate: string) => Promise<boolean>): Promise<string> {
  let candidate = slug;
  for (let suffix = 2; await taken(candidate); suffix++) candidate = suffixedSlug(slug, suffix);
  return candidate;
}

function truncateSlug(slug: string, maxOctets = MAX_SLUG_OCTETS): string {
  if (encodeURIComponent(slug).length <= maxOctets) return slug;
  let kept = '';
  let octets = 0;
  for (const character of slug) {
    octets += encodeURIComponent(character).length;
    if (octets > maxOctets) break;
    kept += character;
  }
  return kept.replace(/-+$/, '');
}

function sanitizeCharacters(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/&[a-z0-9#]+;/g, '')
    .replace(/[^\p{L}\p{N}_\s-]/gu, '')
    .trim()
    .replace(/[\s-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
