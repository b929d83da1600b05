import { createHash, randomUUID, type BinaryToTextEncoding } from 'node:crypto';
import { Slices } from './time-slices.js';

/**
 * A string at least this long is turned into JSON a slice at a time. `JSON.stringify` escapes
 * about 20-50 characters a microsecond here, so the 15 MB post a logged-in caller may store (an
 * answer of three such strings: raw, rendered and the excerpt made of it) held the process for
 * hundreds of milliseconds in one call.
 */
export const LONG_STRING = 1 << 16;
const SLICE = 1 << 17;

type Replacer = (this: unknown, key: string, value: unknown) => unknown;

/** Whether `value` holds a string of LONG_STRING characters or more, anywhere in it. */
export function holdsLongString(value: unknown): boolean {
  if (typeof value === 'string') return value.length >= LONG_STRING;
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsLongString);
  // Dates, ObjectIds and the like become short JSON through their toJSON.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key in value) if (holdsLongString((value as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * About how long `JSON.stringify(value)` is (escapes not counted), found by walking the value
 * rather than serializing it: a budget that counts what an answer will hold need not build it.
 */
export function jsonLength(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  if (typeof value !== 'object' || value === null) return 4;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return (JSON.stringify(value) ?? 'null').length;
  // Each member with the comma before it; the first has none.
  if (Array.isArray(value)) return value.reduce((sum: number, member) => sum + jsonLength(member) + 1, value.length === 0 ? 2 : 1);
  let length = 1;
  for (const [key, member] of Object.entries(value)) if (member !== undefined) length += key.length + 4 + jsonLength(member);
  return Math.max(length, 2);
}

/**
 * `JSON.stringify(value, replacer)` in pieces whose concatenation is that text: the text around
 * the long strings, and each long string's JSON a slice of SLICE characters at a time. A value
 * without long strings is one piece.
 */
export function* jsonPieces(value: unknown, replacer?: Replacer): Generator<string> {
  if (!holdsLongString(value)) {
    yield JSON.stringify(value, replacer) ?? 'null';
    return;
  }
  // Each long string is stood for by a mark no client can have sent (it holds a random id),
  // found again in the text once the rest is serialized.
  const mark = `\u0000${randomUUID()}:`;
  const longStrings: string[] = [];
  const text =
    JSON.stringify(value, function (this: unknown, key: string, member: unknown) {
      const replaced = replacer ? replacer.call(this, key, member) : member;
      if (typeof replaced !== 'string' || replaced.length < LONG_STRING) return replaced;
      longStrings.push(replaced);
      return `${mark}${longStrings.length - 1}`;
    }) ?? 'null';
  const markText = JSON.stringify(mark).slice(0, -1);
  let at = 0;
  for (let found = text.indexOf(markText); found >= 0; found = text.indexOf(markText, at)) {
    const closing = text.indexOf('"', found + markText.length);
    yield text.slice(at, found);
    yield* stringPieces(longStrings[Number(text.slice(found + markText.length, closing))]);
    at = closing + 1;
  }
  yield text.slice(at);
}

/** The JSON of one string in slices; a slice never ends between the two halves of a surrogate pair. */
function* stringPieces(text: string): Generator<string> {
  yield '"';
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + SLICE, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield JSON.stringify(text.slice(at, end)).slice(1, -1);
    at = end;
  }
  yield '"';
}

/** `JSON.stringify(value, replacer)`, letting other work run between the slices of long strings. */
export async function jsonText(value: unknown, replacer?: Replacer): Promise<string> {
  if (!holdsLongString(value)) return JSON.stringify(value, replacer) ?? 'null';
  const pieces: string[] = [];
  const slices = new Slices();
  for (const piece of jsonPieces(value, replacer)) {
    pieces.push(piece);
    await slices.pause();
  }
  return pieces.join('');
}

/**
 * The digest of `JSON.stringify(value)`'s UTF-8 bytes, hashed a piece at a time (`jsonPieces`): the
 * same digest, without the whole text. A fingerprint of a 16 MB post's fields built the text whole,
 * a second copy of its content in the heap of a request that already held several.
 */
export function jsonDigest(value: unknown, algorithm: string, encoding: BinaryToTextEncoding): string {
  const hash = createHash(algorithm);
  for (const piece of jsonPieces(value)) hash.update(piece);
  return hash.digest(encoding);
}
