/**
 * WordPress's `sanitize_title`: lower case, accents removed, anything but letters, digits,
 * `_` and `-` turned into hyphens, hyphens collapsed and trimmed.
 */
export function sanitizeSlug(text: string): string {
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
