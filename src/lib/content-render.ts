import { autop } from '@wordpress/autop';
import { parse } from '@wordpress/block-serialization-default-parser';
import { convertChars, hasBlocks, phpTrim, renderBlock } from './content-render.blocks.js';
import { generateExcerpt } from './content-render.excerpt.js';

export { sanitizeContent } from './content-render.sanitize.js';

/**
 * `content.rendered`: WordPress's `the_content` as far as REST output needs it. Blocks are rendered
 * without their delimiter comments; content without blocks goes through `wpautop`, which WordPress's
 * `do_blocks` switches off for content that has blocks, freeform parts included. Shortcodes,
 * smilies, typographic quotes and image attributes (`wp_filter_content_tags`) are not applied.
 */
export function renderContent(raw: string): string {
  if (!hasBlocks(raw)) return autop(raw);
  return parse(raw).map(renderBlock).join('');
}

// WordPress's `the_title` without `wptexturize` (typographic quotes and dashes): `convert_chars`, then `trim`.
export function renderTitle(raw: string): string {
  return phpTrim(convertChars(raw));
}

/**
 * `excerpt.rendered`: the raw excerpt, or one generated from the content when it is empty (see
 * `generateExcerpt`), through WordPress's `the_excerpt` filters `convert_chars` and `wpautop`.
 */
export function renderExcerpt(rawExcerpt: string, rawContent: string): string {
  const excerpt = phpTrim(rawExcerpt) === '' ? generateExcerpt(rawContent) : rawExcerpt;
  return autop(convertChars(excerpt));
}

/** `content.block_version`: WordPress's `block_version`, 1 when the content has a block delimiter. */
export function blockVersion(raw: string): 0 | 1 {
  return hasBlocks(raw) ? 1 : 0;
}
