import { convertChars, phpTrim } from './content-render.blocks.js';
import { CORE_SHORTCODE_TAGS } from './content-render.excerpt.js';

// WordPress 6.x `wptexturize` (wp-includes/formatting.php) with its default (English) entities,
// no `$wp_cockneyreplace` and no `no_texturize_*` filters: the same patterns, in the same order.
// PHP's `\A` and `\Z` are `^` and `$` here: every place `\Z` appears also accepts a newline after it.

const OPENING_QUOTE = '&#8220;';
const CLOSING_QUOTE = '&#8221;';
const APOS = '&#8217;';
const PRIME = '&#8242;';
const DOUBLE_PRIME = '&#8243;';
const OPENING_SINGLE_QUOTE = '&#8216;';
const CLOSING_SINGLE_QUOTE = '&#8217;';
const EN_DASH = '&#8211;';
const EM_DASH = '&#8212;';

const OPEN_Q_FLAG = '<!--oq-->';
const OPEN_SQ_FLAG = '<!--osq-->';
const APOS_FLAG = '<!--apos-->';

const NO_TEXTURIZE_TAGS = ['pre', 'code', 'kbd', 'style', 'script', 'tt'];
const NO_TEXTURIZE_SHORTCODES = ['code'];

/** `wp_spaces_regexp`: the default spaces, the no-break space and its entity. */
const SPACES = '[\\r\\n\\t ]|\\u00A0|&nbsp;';

const COCKNEY = ["'tain't", "'twere", "'twas", "'tis", "'twill", "'til", "'bout", "'nuff", "'round", "'cause", "'em"];

/** Plain replacements, in order: `str_replace` with arrays replaces each in turn over the whole text. */
const STATIC_REPLACEMENTS: readonly (readonly [string, string])[] = [
  ['...', '&#8230;'],
  ['``', OPENING_QUOTE],
  ["''", CLOSING_QUOTE],
  [' (tm)', ' &#8482;'],
  ...COCKNEY.map((word) => [word, word.replaceAll("'", APOS)] as const),
];

type Replacement = readonly [RegExp, string];

const APOS_PATTERNS: readonly Replacement[] = [
  // '99' and '99" are ambiguous among other patterns; assume it's an abbreviated year at the end of a quotation.
  [new RegExp(`'(\\d\\d)'(?=$|[.,:;!?)}\\-\\]]|&gt;|${SPACES})`, 'g'), `${APOS_FLAG}$1${CLOSING_SINGLE_QUOTE}`],
  [new RegExp(`'(\\d\\d)"(?=$|[.,:;!?)}\\-\\]]|&gt;|${SPACES})`, 'g'), `${APOS_FLAG}$1${CLOSING_QUOTE}`],
  // '99 '99s '99's (apostrophe), but never '9 or '99% or '999 or '99.0.
  [/'(?=\d\d(?:$|(?![%\d]|[.,]\d)))/g, APOS_FLAG],
  // Quoted numbers like '0.42'.
  [new RegExp(`(?<=^|${SPACES})'(\\d[.,\\d]*)'`, 'g'), `${OPEN_SQ_FLAG}$1${CLOSING_SINGLE_QUOTE}`],
  // Single quote at start, or preceded by (, {, <, [, ", -, or spaces.
  [new RegExp(`(?<=^|[([{"\\-]|&lt;|${SPACES})'`, 'g'), OPEN_SQ_FLAG],
  // Apostrophe in a word: no spaces, double apostrophes, or other punctuation.
  [new RegExp(`(?<!${SPACES})'(?!$|[.,:;!?"'(){}[\\]\\-]|&[lg]t;|${SPACES})`, 'g'), APOS_FLAG],
];

const QUOTE_PATTERNS: readonly Replacement[] = [
  // Quoted numbers like "42".
  [new RegExp(`(?<=^|${SPACES})"(\\d[.,\\d]*)"`, 'g'), `${OPEN_Q_FLAG}$1${CLOSING_QUOTE}`],
  // Double quote at start, or preceded by (, {, <, [, -, or spaces, and not followed by spaces.
  [new RegExp(`(?<=^|[([{\\-]|&lt;|${SPACES})"(?!${SPACES})`, 'g'), OPEN_Q_FLAG],
];

const DASH_PATTERNS: readonly Replacement[] = [
  [/---/g, EM_DASH],
  [new RegExp(`(?<=^|${SPACES})--(?=$|${SPACES})`, 'g'), EM_DASH],
  [/(?<!xn)--/g, EN_DASH],
  [new RegExp(`(?<=^|${SPACES})-(?=$|${SPACES})`, 'g'), EN_DASH],
];

// 9x9 (times), but never 0x9999: PCRE's `\d(?(?<=0)[\d.,]+|[\d.,]*)`, without the conditional.
const TIMES = /\b(0[\d.,]+|[1-9][\d.,]*)x(\d[\d.,]*)\b/g;

/** Each `&` that does not already look like an entity. */
const LONE_AMPERSAND = /&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)/gi;

// `_get_wptexturize_split_regex`: an HTML comment (to its end, or all the rest) or an element (to
// its `>`, or all the rest). PCRE's possessive loop is a plain one: it has only one way to match.
const HTML_ELEMENT = '<(?:(?=!--)!(?:-(?!->)[^-]*)*(?:-->)?|(?!!--)[^>]*>?)';

// `_get_wptexturize_shortcode_regex`: a registered shortcode, `[[name]]` and `[/name]` included.
// Its possessive loop becomes a lookahead and a backreference, which give nothing back either.
const shortcodePattern = (tags: readonly string[]) =>
  `\\[[\\/\\[]?(?:${tags.join('|')})(?=[\\s\\]\\/])(?=(?<inner>(?:[^\\[\\]<>]|<[^\\[\\]>]*>)*))\\k<inner>\\]\\]?`;

const SHORTCODE_NAMES = /\[\/?([^<>&/[\]\x00-\x20=]+)/g;

/** PHP's `trim` test: nothing but spaces, tabs, newlines, NUL and vertical tabs. */
const isBlank = (text: string) => phpTrim(text) === '';

/** The text cut into HTML elements, comments and registered shortcodes, and what lies between (`preg_split`, delimiters kept, no empty parts). */
function splitText(text: string, shortcodes: string | undefined): string[] {
  const delimiter = new RegExp(shortcodes ? `${HTML_ELEMENT}|${shortcodes}` : HTML_ELEMENT, 'g');
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(delimiter)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    if (match[0] !== '') parts.push(match[0]);
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** `_wptexturize_pushpop_element`: an opening disabled tag is pushed, its closing tag pops it. */
function pushPop(element: string, stack: string[], disabled: readonly string[]): void {
  let opening: boolean;
  let offset: number;
  if (element.length > 1 && element[1] !== '/') {
    opening = true;
    offset = 1;
  } else if (stack.length === 0) {
    return;
  } else {
    opening = false;
    offset = 2;
  }
  const space = element.indexOf(' ');
  // PHP's substr with a length of -1 when there is no space: up to the last character.
  const tag = space === -1 ? element.slice(offset, -1) : element.slice(offset, space);
  if (!disabled.includes(tag)) return;
  if (opening) stack.push(tag);
  else if (stack[stack.length - 1] === tag) stack.pop();
}

const replaceAll = (text: string, patterns: readonly Replacement[]) => patterns.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

const countOf = (text: string, needle: string) => text.split(needle).length - 1;

/**
 * `wptexturize_primes`: whether a quote after a digit is a prime (seven feet) or a closing quote,
 * sentence by sentence (the text between opening quotes).
 */
function texturizePrimes(haystack: string, needle: "'" | '"', prime: string, openQuote: string, closeQuote: string): string {
  const flag = '<!--wp-prime-or-quote-->';
  const quotePattern = new RegExp(`${needle}(?=$|[.,:;!?)}\\-\\]]|&gt;|${SPACES})`, 'g');
  const primePattern = new RegExp(`(?<=\\d)${needle}`, 'g');
  const flagAfterDigit = new RegExp(`(?<=\\d)${escapeRegex(flag)}`, 'g');
  const flagNoDigit = new RegExp(`(?<!\\d)${escapeRegex(flag)}`, 'g');
  const sentences = haystack.split(openQuote).map((sentence, key) => {
    if (!sentence.includes(needle)) return sentence;
    if (key !== 0 && countOf(sentence, closeQuote) === 0) {
      const count = sentence.match(quotePattern)?.length ?? 0;
      sentence = sentence.replace(quotePattern, flag);
      if (count > 1) {
        // This sentence appears to have multiple closing quotes: WordPress's "Vulcan logic".
        const before = sentence;
        sentence = sentence.replace(flagNoDigit, closeQuote);
        if (sentence === before) {
          // The rightmost quote before a period ends the quotation; failing that, the rightmost candidate.
          const position = sentence.includes(`${flag}.`) ? sentence.lastIndexOf(`${flag}.`) : sentence.lastIndexOf(flag);
          sentence = sentence.slice(0, position) + closeQuote + sentence.slice(position + flag.length);
        }
        sentence = sentence.replace(primePattern, prime).replace(flagAfterDigit, prime).replaceAll(flag, closeQuote);
      } else if (count === 1) {
        // Only one closing quote candidate: it wins over primes.
        sentence = sentence.replaceAll(flag, closeQuote).replace(primePattern, prime);
      } else {
        sentence = sentence.replace(primePattern, prime);
      }
    } else {
      sentence = sentence.replace(primePattern, prime).replace(quotePattern, closeQuote);
    }
    if (needle === '"' && sentence.includes('"')) sentence = sentence.replaceAll('"', closeQuote);
    return sentence;
  });
  return sentences.join(openQuote);
}

/** Quotes, apostrophes, primes, dashes, ellipses, (tm) and times of one run of text outside any element. */
function texturizeText(text: string): string {
  let curl = STATIC_REPLACEMENTS.reduce((out, [from, to]) => out.replaceAll(from, to), text);
  if (curl.includes("'")) {
    curl = replaceAll(curl, APOS_PATTERNS);
    curl = texturizePrimes(curl, "'", PRIME, OPEN_SQ_FLAG, CLOSING_SINGLE_QUOTE);
    curl = curl.replaceAll(APOS_FLAG, APOS).replaceAll(OPEN_SQ_FLAG, OPENING_SINGLE_QUOTE);
  }
  if (curl.includes('"')) {
    curl = replaceAll(curl, QUOTE_PATTERNS);
    curl = texturizePrimes(curl, '"', DOUBLE_PRIME, OPEN_Q_FLAG, CLOSING_QUOTE);
    curl = curl.replaceAll(OPEN_Q_FLAG, OPENING_QUOTE);
  }
  if (curl.includes('-')) curl = replaceAll(curl, DASH_PATTERNS);
  if (/(?<=\d)x\d/.test(curl)) curl = curl.replace(TIMES, '$1&#215;$2');
  return curl.replace(LONE_AMPERSAND, '&#038;');
}

/**
 * WordPress's `wptexturize`: typographic quotes, apostrophes and primes, en and em dashes, the
 * ellipsis, (tm) and the multiplication sign, and `&` as `&#038;`, in the text between HTML
 * elements; nothing inside an element (whose lone `&` still becomes `&#038;`), a comment, a
 * registered shortcode, or `pre`, `code`, `kbd`, `style`, `script` and `tt`.
 */
export function wptexturize(text: string): string {
  if (text === '') return text;
  const names = new Set([...text.matchAll(SHORTCODE_NAMES)].map((match) => match[1]));
  const registered = CORE_SHORTCODE_TAGS.filter((tag) => names.has(tag));
  const shortcodes = registered.length ? shortcodePattern(registered.map(escapeRegex)) : undefined;
  const wholeShortcode = shortcodes ? new RegExp(`^(?:${shortcodes})$`) : undefined;
  const tagsStack: string[] = [];
  const shortcodesStack: string[] = [];
  return splitText(text, shortcodes)
    .map((curl) => {
      if (curl[0] === '<') {
        if (curl.startsWith('<!--')) return curl;
        const element = curl.replace(LONE_AMPERSAND, '&#038;');
        pushPop(element, tagsStack, NO_TEXTURIZE_TAGS);
        return element;
      }
      if (isBlank(curl)) return curl;
      if (curl[0] === '[' && wholeShortcode?.test(curl)) {
        if (!curl.startsWith('[[') && !curl.endsWith(']]')) pushPop(curl, shortcodesStack, NO_TEXTURIZE_SHORTCODES);
        return curl;
      }
      return tagsStack.length === 0 && shortcodesStack.length === 0 ? texturizeText(curl) : curl;
    })
    .join('');
}

/**
 * `title.rendered` as WordPress's `the_title` filters make it: `wptexturize`, `convert_chars`,
 * `trim`, then `capital_P_dangit` (which, for titles, only corrects "Wordpress").
 */
export function theTitle(raw: string): string {
  return phpTrim(convertChars(wptexturize(raw))).replaceAll('Wordpress', 'WordPress');
}
