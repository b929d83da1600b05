import { parse } from '@wordpress/block-serialization-default-parser';

export type ParsedBlock = ReturnType<typeof parse>[number];

/** WordPress's `has_blocks`: a quick look for a block delimiter, not a parse. */
export function hasBlocks(raw: string): boolean {
  return raw.includes('<!-- wp:');
}

/**
 * WordPress's `render_block` for a static block: its HTML with the inner blocks rendered where the
 * parser left them, and no delimiter comments. Dynamic blocks are rendered the same way.
 */
export function renderBlock(block: ParsedBlock): string {
  let next = 0;
  let html = '';
  for (const chunk of block.innerContent) html += chunk ?? renderBlock(block.innerBlocks[next++]);
  return html;
}

/** PHP's `trim`, which removes fewer characters than `String.prototype.trim` (no NBSP, for one). */
export function phpTrim(text: string): string {
  return text.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, '');
}

/** WordPress's `convert_chars`: an `&` that does not look like an entity becomes `&#038;`. */
export function convertChars(text: string): string {
  return text.replace(/&([^#])(?![a-z1-4]{1,8};)/gi, '&#038;$1');
}
