import { autop } from '@wordpress/autop';
import { parse } from '@wordpress/block-serialization-default-parser';
import sanitizeHtml from 'sanitize-html';
import { hasBlocks, renderBlock, type ParsedBlock } from './content-render.blocks.js';

// WordPress's default `excerpt_length` and `excerpt_more`.
const EXCERPT_WORDS = 55;
const EXCERPT_MORE = ' [&hellip;]';

// `excerpt_remove_blocks`: blocks likely to hold the text of the post, and wrappers looked into.
const EXCERPT_BLOCKS = new Set<string | null>([
  null,
  'core/freeform',
  'core/heading',
  'core/html',
  'core/list',
  'core/media-text',
  'core/paragraph',
  'core/preformatted',
  'core/pullquote',
  'core/quote',
  'core/table',
  'core/verse',
]);
const EXCERPT_WRAPPERS = new Set<string | null>(['core/columns', 'core/column', 'core/group']);

/** The shortcodes WordPress core registers; `strip_shortcodes` removes registered ones only, `wptexturize` skips them. */
export const CORE_SHORTCODE_TAGS = ['wp_caption', 'caption', 'gallery', 'playlist', 'audio', 'video', 'embed'] as const;
const CORE_SHORTCODES = CORE_SHORTCODE_TAGS.join('|');
// `get_shortcode_regex` for those tags (its possessive quantifiers are plain ones here).
const SHORTCODE = new RegExp(
  `\\[(\\[?)(${CORE_SHORTCODES})(?![\\w-])([^\\]\\/]*(?:\\/(?!\\])[^\\]\\/]*)*?)` +
    `(?:(\\/)\\]|\\](?:([^\\[]*(?:\\[(?!\\/\\2\\])[^\\[]*)*)\\[\\/\\2\\])?)(\\]?)`,
  'g',
);

const FOOTNOTE_MARK = /<sup data-fn="[^"]+" class="[^"]+">\s*<a href="[^"]+" id="[^"]+">\d+<\/a>\s*<\/sup>/g;

/** `wp_strip_all_tags`: tags and comments go, script and style elements with their text; entities stay. */
const STRIP_ALL_TAGS: sanitizeHtml.IOptions = {
  allowedTags: [],
  allowedAttributes: {},
  nonTextTags: ['script', 'style'],
  parser: { decodeEntities: false },
};

/** The page WordPress shows first: content before the first `<!--nextpage-->` (`generate_postdata`). */
function firstPageOf(content: string): string {
  if (!content.includes('<!--nextpage-->')) return content;
  let pages = content
    .replaceAll('\n<!--nextpage-->\n', '<!--nextpage-->')
    .replaceAll('\n<!--nextpage-->', '<!--nextpage-->')
    .replaceAll('<!--nextpage-->\n', '<!--nextpage-->')
    .replaceAll('<!-- wp:nextpage -->', '')
    .replaceAll('<!-- /wp:nextpage -->', '');
  if (pages.startsWith('<!--nextpage-->')) pages = pages.slice('<!--nextpage-->'.length);
  return pages.split('<!--nextpage-->')[0];
}

/** `get_the_content` outside the post's own page: the first page, cut at the `<!--more-->` tag. */
function teaserOf(content: string): string {
  const page = firstPageOf(content);
  const more = /<!--more(.*?)?-->/.exec(page);
  if (!more) return page;
  const text = /<!-- wp:(?:core\/)?more /.test(page) ? page.replace(/<!-- \/?wp:more(.*?) -->/g, '') : page;
  return text.split(more[0])[0];
}

function stripCoreShortcodes(text: string): string {
  if (!text.includes('[')) return text;
  // `strip_shortcode_tag`: `[[gallery]]` is the escaped form and stays as `[gallery]`.
  return text.replace(SHORTCODE, (match: string, open: string, ...groups: string[]) => {
    const close = groups[4];
    return open === '[' && close === ']' ? match.slice(1, -1) : open + close;
  });
}

function renderWrappedBlocks(block: ParsedBlock): string {
  let html = '';
  for (const inner of block.innerBlocks) {
    if (!EXCERPT_BLOCKS.has(inner.blockName) && !EXCERPT_WRAPPERS.has(inner.blockName)) continue;
    html += inner.innerBlocks.length === 0 ? renderBlock(inner) : renderWrappedBlocks(inner);
  }
  return html;
}

/** `excerpt_remove_blocks`: only text-like blocks, and those inside columns and groups, are kept. */
function excerptRemoveBlocks(content: string): string {
  if (!hasBlocks(content)) return content;
  let html = '';
  for (const block of parse(content)) {
    if (EXCERPT_WRAPPERS.has(block.blockName)) {
      html += block.innerBlocks.length > 0 ? renderWrappedBlocks(block) : renderBlock(block);
      continue;
    }
    if (!EXCERPT_BLOCKS.has(block.blockName)) continue;
    const nested = block.innerBlocks.some((inner) => !EXCERPT_BLOCKS.has(inner.blockName) || inner.innerBlocks.length > 0);
    if (!nested) html += renderBlock(block);
  }
  return html;
}

function trimWords(text: string, count: number, more: string): string {
  const words = text.split(/[\n\r\t ]+/).filter((word) => word !== '');
  return words.length > count ? words.slice(0, count).join(' ') + more : words.join(' ');
}

/**
 * WordPress's `wp_trim_excerpt` for an empty excerpt: the teaser without core shortcodes, non-text
 * blocks and footnote marks, paragraphed, stripped of tags, and cut to 55 words followed by
 * ` [&hellip;]`. Not yet paragraph-wrapped: the excerpt filters do that.
 */
export function generateExcerpt(content: string): string {
  const text = excerptRemoveBlocks(stripCoreShortcodes(teaserOf(content))).replace(FOOTNOTE_MARK, '');
  const html = autop(text).replaceAll(']]>', ']]&gt;');
  return trimWords(sanitizeHtml(html, STRIP_ALL_TAGS), EXCERPT_WORDS, EXCERPT_MORE);
}
