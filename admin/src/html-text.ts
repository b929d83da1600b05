import { Parser } from 'htmlparser2';

/** Elements whose text a reader never sees. */
const UNSEEN = new Set(['script', 'style', 'template']);

/**
 * The text a reader sees of untrusted markup. It is read by a tokenizer, not the DOM: Chromium
 * checks every inline event handler and style attribute the HTML parser meets against the page's
 * CSP and reports each, even in an inert document, a template or the Sanitizer API, though none
 * of them runs.
 */
export function htmlText(html: string): string {
  let text = '';
  let unseen = 0;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (UNSEEN.has(name)) unseen++;
      },
      onclosetag(name) {
        if (UNSEEN.has(name)) unseen--;
      },
      ontext(chunk) {
        if (unseen === 0) text += chunk;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return text;
}
