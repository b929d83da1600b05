import { parse } from '@wordpress/block-serialization-default-parser';
import sanitizeHtml from 'sanitize-html';
import { type ParsedBlock } from './content-render.blocks.js';

// WordPress's `$allowedposttags` (kses.php). `object` is left out: kses admits it only for PDFs on the site.
const POST_TAGS: Record<string, string[]> = {
  address: [],
  a: ['href', 'rel', 'rev', 'name', 'target', 'download'],
  abbr: [],
  acronym: [],
  area: ['alt', 'coords', 'href', 'nohref', 'shape', 'target'],
  article: ['align'],
  aside: ['align'],
  audio: ['autoplay', 'controls', 'loop', 'muted', 'preload', 'src'],
  b: [],
  bdo: [],
  big: [],
  blockquote: ['cite'],
  br: [],
  button: ['disabled', 'name', 'type', 'value'],
  caption: ['align'],
  cite: [],
  code: [],
  col: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
  colgroup: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
  del: ['datetime'],
  dd: [],
  dfn: [],
  details: ['align', 'open'],
  div: ['align'],
  dl: [],
  dt: [],
  em: [],
  fieldset: [],
  figure: ['align'],
  figcaption: ['align'],
  font: ['color', 'face', 'size'],
  footer: ['align'],
  h1: ['align'],
  h2: ['align'],
  h3: ['align'],
  h4: ['align'],
  h5: ['align'],
  h6: ['align'],
  header: ['align'],
  hgroup: ['align'],
  hr: ['align', 'noshade', 'size', 'width'],
  i: [],
  img: ['alt', 'align', 'border', 'height', 'hspace', 'loading', 'longdesc', 'vspace', 'src', 'usemap', 'width'],
  ins: ['datetime', 'cite'],
  kbd: [],
  label: ['for'],
  legend: ['align'],
  li: ['align', 'value'],
  main: ['align'],
  map: ['name'],
  mark: [],
  menu: ['type'],
  nav: ['align'],
  p: ['align'],
  pre: ['width'],
  q: ['cite'],
  rb: [],
  rp: [],
  rt: [],
  rtc: [],
  ruby: [],
  s: [],
  samp: [],
  span: ['align'],
  section: ['align'],
  small: [],
  strike: [],
  strong: [],
  sub: [],
  summary: ['align'],
  sup: [],
  table: ['align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'rules', 'summary', 'width'],
  tbody: ['align', 'char', 'charoff', 'valign'],
  td: ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan', 'scope', 'valign', 'width'],
  textarea: ['cols', 'rows', 'disabled', 'name', 'readonly'],
  tfoot: ['align', 'char', 'charoff', 'valign'],
  th: ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan', 'scope', 'valign', 'width'],
  thead: ['align', 'char', 'charoff', 'valign'],
  title: [],
  tr: ['align', 'bgcolor', 'char', 'charoff', 'valign'],
  track: ['default', 'kind', 'label', 'src', 'srclang'],
  tt: [],
  u: [],
  ul: ['type'],
  ol: ['start', 'type', 'reversed'],
  var: [],
  video: ['autoplay', 'controls', 'height', 'loop', 'muted', 'playsinline', 'poster', 'preload', 'src', 'width'],
};

// `_wp_add_global_attributes`: allowed on every tag above.
const GLOBAL_ATTRIBUTES = [
  'aria-controls', 'aria-current', 'aria-describedby', 'aria-details', 'aria-expanded', 'aria-hidden', 'aria-label',
  'aria-labelledby', 'aria-live', 'class', 'data-*', 'dir', 'hidden', 'id', 'lang', 'style', 'title', 'role', 'xml:lang',
];

// `wp_allowed_protocols`, checked on the attributes of `wp_kses_uri_attributes`.
const PROTOCOLS = [
  'http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher', 'nntp', 'feed', 'telnet', 'mms',
  'rtsp', 'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn',
];
const URI_ATTRIBUTES = [
  'action', 'archive', 'background', 'cite', 'classid', 'codebase', 'data', 'formaction', 'href', 'icon', 'longdesc',
  'manifest', 'poster', 'profile', 'src', 'usemap', 'xmlns',
];

// WordPress's `$allowedtags` (kses.php): what `wp_filter_kses` and `wp_kses_data` keep. No global attributes.
const DATA_TAGS: Record<string, string[]> = {
  a: ['href', 'title'],
  abbr: ['title'],
  acronym: ['title'],
  b: [],
  blockquote: ['cite'],
  cite: [],
  code: [],
  del: ['datetime'],
  em: [],
  i: [],
  q: ['cite'],
  s: [],
  strike: [],
  strong: [],
};

/** The options of sanitize-html that make it kses with one list of allowed tags and attributes. */
function ksesOptions(allowedAttributes: Record<string, string[]>): sanitizeHtml.IOptions {
  return {
    allowedTags: Object.keys(allowedAttributes).filter((tag) => tag !== '*'),
    allowedAttributes,
    allowedSchemes: PROTOCOLS,
    allowedSchemesAppliedToAttributes: URI_ATTRIBUTES,
    // kses removes a disallowed tag but keeps its text, even a script's; `xmp` text goes, as sanitize-html advises.
    nonTextTags: ['xmp'],
    // kses keeps valueless attributes such as `<a download>`.
    nonBooleanAttributes: [],
  };
}

const KSES_POST = ksesOptions({ ...POST_TAGS, '*': GLOBAL_ATTRIBUTES });

/**
 * `wp_kses_allowed_html( $context )` for the contexts `wp_filter_kses` is called in: `$allowedtags`,
 * and for `pre_user_description` the same with `rel` on links.
 */
const KSES_CONTEXTS = {
  data: ksesOptions(DATA_TAGS),
  user_description: ksesOptions({ ...DATA_TAGS, a: [...DATA_TAGS.a, 'rel'] }),
} as const;

export type KsesContext = keyof typeof KSES_CONTEXTS;

// The comments WordPress gives a meaning to inside content, which kses keeps as it keeps every comment.
const MARKER_COMMENT = /<!--(more|nextpage|noteaser)([^<>]*?)-->/g;

/** `wp_kses_no_null`: control characters other than tab and line breaks are dropped. */
function withoutControlCharacters(html: string): string {
  return html.replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, '');
}

/** `filter_block_kses_value`: every string in block attributes, keys included, is filtered like the HTML. */
function sanitizeAttributeValue(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeHtml(value, KSES_POST);
  if (Array.isArray(value)) return value.map(sanitizeAttributeValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [sanitizeHtml(key, KSES_POST), sanitizeAttributeValue(inner)]),
    );
  }
  return value;
}

/** `serialize_block_attributes`: JSON that cannot end the comment or be read as markup. */
function serializeAttributes(attributes: unknown): string {
  return JSON.stringify(attributes)
    .replace(/--/g, '\\u002d\\u002d')
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\\"/g, '\\u0022');
}

/**
 * Placeholders for the comments that must survive sanitize-html, which drops every comment. They
 * are plain text, so they come back only where sanitize-html left text: never inside a tag.
 */
class KeptComments {
  private readonly prefix: string;
  private readonly comments: string[] = [];

  constructor(html: string) {
    let suffix = 0;
    while (html.includes(`cmskept${suffix}n`)) suffix++;
    this.prefix = `cmskept${suffix}n`;
  }

  keep(comment: string): string {
    this.comments.push(comment);
    return `${this.prefix}${this.comments.length - 1}x`;
  }

  keepMarkers(html: string): string {
    return html.replace(MARKER_COMMENT, (_match: string, name: string, text: string) =>
      // kses's rules for comment text: no runs of dashes, no dash before the closing `-->`.
      this.keep(`<!--${name}${sanitizeHtml(text, KSES_POST).replace(/--+/g, '-').replace(/-$/, '')}-->`),
    );
  }

  restore(text: string): string {
    return text.replace(this.pattern(), (_match: string, index: string) => this.comments[Number(index)] ?? '');
  }

  removeStranded(html: string): string {
    return html.replace(this.pattern(), '');
  }

  private pattern(): RegExp {
    return new RegExp(`${this.prefix}(\\d+)x`, 'g');
  }
}

/**
 * `serialize_block` with each delimiter comment replaced by a placeholder. As in WordPress, the
 * delimiters are written anew: the `core/` namespace is dropped, attributes are filtered and
 * re-encoded, and a block without content becomes self-closing.
 */
function blockWithPlaceholders(block: ParsedBlock, kept: KeptComments): string {
  let next = 0;
  let content = '';
  for (const chunk of block.innerContent) {
    content += chunk === null ? blockWithPlaceholders(block.innerBlocks[next++], kept) : kept.keepMarkers(chunk);
  }
  if (block.blockName === null) return content;
  const name = block.blockName.startsWith('core/') ? block.blockName.slice('core/'.length) : block.blockName;
  const hasAttributes = block.attrs !== null && Object.keys(block.attrs).length > 0;
  const attributes = hasAttributes ? `${serializeAttributes(sanitizeAttributeValue(block.attrs))} ` : '';
  if (content === '') return kept.keep(`<!-- wp:${name} ${attributes}/-->`);
  return kept.keep(`<!-- wp:${name} ${attributes}-->`) + content + kept.keep(`<!-- /wp:${name} -->`);
}

/**
 * WordPress's `wp_kses_post`, applied to content saved by users without `unfiltered_html`: tags and
 * attributes outside kses's lists go (a removed element's text stays), and so do URLs whose protocol
 * is not allowed. Block delimiters and WordPress's `<!--more-->`, `<!--nextpage-->` and
 * `<!--noteaser-->` comments are kept; other comments are dropped.
 */
export function sanitizeContent(html: string): string {
  const input = withoutControlCharacters(html);
  const kept = new KeptComments(input);
  const withPlaceholders = parse(input)
    .map((block) => blockWithPlaceholders(block, kept))
    .join('');
  const clean = sanitizeHtml(withPlaceholders, { ...KSES_POST, textFilter: (text) => kept.restore(text) });
  return kept.removeStranded(clean);
}

/**
 * WordPress's `wp_kses( $text, $context )` with `$allowedtags` (`wp_filter_kses`, `wp_kses_data`):
 * only a few inline tags stay (links, emphasis, quotes, code), with no event attribute and no URL
 * whose protocol is not allowed; a removed element's text stays. Comments are dropped.
 */
export function sanitizeInline(html: string, context: KsesContext = 'data'): string {
  return sanitizeHtml(withoutControlCharacters(html), KSES_CONTEXTS[context]);
}
