import { sanitizeContent, sanitizeInline } from './content-render.sanitize.js';

/**
 * The functions WordPress runs on a string before it stores it, by their WordPress names. Each
 * takes the value and the hook it runs on (`wp_filter_kses` reads its allowed tags from the hook,
 * as `current_filter()` tells it in WordPress). Which field runs which, for whom, is declared once
 * in `src/registry/saved-fields.ts`.
 */
export type SaveFilterName =
  | 'trim'
  | 'wp_filter_kses'
  | 'wp_kses_data'
  | 'wp_filter_post_kses'
  | 'sanitize_text_field'
  | '_wp_specialchars'
  | 'esc_html'
  | 'wp_strip_all_tags'
  | 'strip_tags'
  | 'esc_url_raw'
  | 'sanitize_html_class'
  | '_wp_filter_post_meta_footnotes';

// PHP's `trim`: spaces, tabs, line breaks, NUL and vertical tab.
const phpTrim = (text: string) => text.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, '');

// An entity WordPress leaves alone when escaping without double-encoding (`wp_kses_normalize_entities`).
const ENTITY = /&(?:[A-Za-z][A-Za-z0-9]*|#\d+|#x[0-9A-Fa-f]+);/y;

/** `_wp_specialchars` without double-encoding: `&` (unless it starts an entity), `<`, `>`, and with `quotes` both quotes. */
function specialChars(text: string, quotes: boolean): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '&') {
      ENTITY.lastIndex = i;
      out += ENTITY.test(text) ? '&' : '&amp;';
    } else if (char === '<') out += '&lt;';
    else if (char === '>') out += '&gt;';
    else if (quotes && char === '"') out += '&quot;';
    else if (quotes && char === "'") out += '&#039;';
    else out += char;
  }
  return out;
}

/** PHP's `strip_tags`: everything from a `<` that opens a tag or comment to its `>` (or the end) goes. */
const stripTags = (text: string) => text.replace(/<!--[\s\S]*?(-->|$)/g, '').replace(/<\/?[A-Za-z!?][^>]*(>|$)/g, '');

/** `wp_strip_all_tags`: `strip_tags`, and the contents of `<script>` and `<style>` go too; trimmed. */
const stripAllTags = (text: string) => phpTrim(stripTags(text.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, '')));

/** `wp_pre_kses_less_than`: a `<` that starts no tag (no `>` before the next `<` or the end) is escaped. */
const lessThanToEntity = (text: string) => text.replace(/<[^>]*?((?=<)|>|$)/g, (match) => (match.includes('>') ? match : specialChars(match, true)));

/**
 * `sanitize_text_field`: tags stripped (script and style with their contents), a lone `<` kept as
 * `&lt;`, line breaks, tabs and runs of spaces made one space, percent-encoded octets removed, trimmed.
 */
function sanitizeTextField(text: string): string {
  let filtered = text;
  if (filtered.includes('<')) {
    filtered = stripAllTags(lessThanToEntity(filtered)).replace(/<\n/g, '&lt;\n');
  }
  filtered = phpTrim(filtered.replace(/[\r\n\t ]+/g, ' '));
  const octets = /%[a-f0-9]{2}/gi;
  if (octets.test(filtered)) filtered = phpTrim(filtered.replace(octets, '').replace(/ +/g, ' '));
  return filtered;
}

// `wp_allowed_protocols`.
const PROTOCOLS = [
  'http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher', 'nntp', 'feed', 'telnet', 'mms',
  'rtsp', 'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn',
];

/**
 * `esc_url_raw` (`esc_url` for the database): characters a URL cannot hold are dropped, a URL
 * without a scheme gets `http://`, and one whose scheme is not an allowed protocol (`javascript:`,
 * `data:`, ...) becomes empty.
 */
function escUrlRaw(url: string): string {
  if (url === '') return url;
  let clean = url.replace(/^\s+/, '').replace(/ /g, '%20').replace(/[^a-z0-9\-~+_.?#=!&;,/:%@$|*'()[\]\x80-\uFFFF]/gi, '');
  if (clean === '') return clean;
  if (!/^mailto:/i.test(clean)) {
    // `_deep_replace`: encoded line breaks go, however nested.
    let previous;
    do {
      previous = clean;
      clean = clean.replace(/%0[da]/gi, '');
    } while (clean !== previous);
  }
  clean = clean.replace(/;\/\//g, '://');
  if (!clean.includes(':') && !['/', '#', '?'].includes(clean[0]) && !/^[a-z0-9-]+?\.php/i.test(clean)) clean = `http://${clean}`;
  if (clean[0] === '/') return clean;
  // `wp_kses_bad_protocol`: what stands before the first colon (written or encoded), unless it holds
  // a `/` or `?`, must be an allowed protocol; `esc_url` refuses a URL that check would change.
  const [before, after] = splitOnce(clean, /:|&#0*58;|&#x0*3a;|&colon;/i);
  if (after !== undefined && !/[/?]/.test(before)) {
    const scheme = before.replace(/&#0*(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))).replace(/\s/g, '').toLowerCase();
    if (!PROTOCOLS.includes(scheme)) return '';
  }
  return clean;
}

function splitOnce(text: string, separator: RegExp): [string, string | undefined] {
  const found = separator.exec(text);
  return found ? [text.slice(0, found.index), text.slice(found.index + found[0].length)] : [text, undefined];
}

/** `sanitize_html_class`: percent-encoded octets and anything but letters, digits, `_` and `-` go. */
const sanitizeHtmlClass = (text: string) => text.replace(/%[a-fA-F0-9][a-fA-F0-9]/g, '').replace(/[^A-Za-z0-9_-]/g, '');

/** `sanitize_key`. */
const sanitizeKey = (text: string) => text.toLowerCase().replace(/[^a-z0-9_-]/g, '');

/**
 * `_wp_filter_post_meta_footnotes` (WordPress 6.3.2): the footnotes are JSON, a list of `{id,
 * content}`; each content goes through `wp_filter_post_kses`, each id through `sanitize_key`, and
 * entries without either are dropped. What is not such JSON becomes empty.
 */
function filterFootnotes(json: string): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(json);
  } catch {
    return '';
  }
  if (typeof decoded !== 'object' || decoded === null) return '';
  const kept: { id: string; content: string }[] = [];
  for (const footnote of Object.values(decoded)) {
    if (typeof footnote !== 'object' || footnote === null) continue;
    const { id, content } = footnote as { id?: unknown; content?: unknown };
    if (!id || !content || typeof content !== 'string') continue;
    kept.push({ id: sanitizeKey(String(id)), content: sanitizeContent(content) });
  }
  return JSON.stringify(kept);
}

export const SAVE_FILTERS: Readonly<Record<SaveFilterName, (value: string, hook: string) => string>> = Object.freeze({
  trim: phpTrim,
  // `wp_filter_kses` reads its allowed tags from the hook it runs on: `pre_user_description` adds `rel` on links.
  wp_filter_kses: (value: string, hook: string) => sanitizeInline(value, hook === 'pre_user_description' ? 'user_description' : 'data'),
  wp_kses_data: (value: string) => sanitizeInline(value),
  wp_filter_post_kses: sanitizeContent,
  sanitize_text_field: sanitizeTextField,
  _wp_specialchars: (value: string) => specialChars(value, false),
  esc_html: (value: string) => specialChars(value, true),
  wp_strip_all_tags: stripAllTags,
  strip_tags: stripTags,
  esc_url_raw: escUrlRaw,
  sanitize_html_class: sanitizeHtmlClass,
  _wp_filter_post_meta_footnotes: filterFootnotes,
});
