import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { holdsLongString, jsonDigest, jsonLength, jsonPieces, jsonText, LONG_STRING } from './json-text.js';

// A long text whose slices fall inside surrogate pairs, quotes, backslashes and control characters.
const hostile = Array.from({ length: LONG_STRING / 4 }, (_, i) => ['😀', '"\\', '\n\u0001', 'é'][i % 4]).join('').repeat(12);
const value = {
  id: 7,
  content: { raw: hostile, rendered: `<p>${hostile}</p>`, protected: false },
  list: ['short', hostile.slice(1), undefined, () => 1, null],
  at: new Date(0),
  nothing: undefined,
  mark: '\u0000 not a mark: 0',
};

describe('jsonPieces', () => {
  it('makes the text JSON.stringify makes, long strings included, in more than one piece', () => {
    const pieces = [...jsonPieces(value)];
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.join('')).toBe(JSON.stringify(value));
    for (const piece of pieces) expect(piece.length).toBeLessThan(4 * LONG_STRING * 6);
  });

  it('applies the replacer, as JSON.stringify does, to long strings too', () => {
    const replacer = (key: string, member: unknown) => (key === 'rendered' ? `${String(member)}!` : member);
    expect([...jsonPieces(value, replacer)].join('')).toBe(JSON.stringify(value, replacer));
  });

  it('is one piece for a value without long strings', () => {
    expect([...jsonPieces({ a: 'short' })]).toEqual(['{"a":"short"}']);
    expect([...jsonPieces(undefined)]).toEqual(['null']);
  });
});

describe('jsonText', () => {
  it('makes the text JSON.stringify makes', async () => {
    expect(await jsonText(value)).toBe(JSON.stringify(value));
    expect(await jsonText([hostile])).toBe(JSON.stringify([hostile]));
  });
});

describe('jsonDigest', () => {
  it('is the digest of the text JSON.stringify makes (what fingerprints stored before hashed)', () => {
    const whole = (of: unknown) => createHash('sha256').update(JSON.stringify(of)).digest('base64');
    for (const of of [value, ['title', hostile, hostile.slice(1)], ['short', '', 'é😀"']]) expect(jsonDigest(of, 'sha256', 'base64')).toBe(whole(of));
  });
});

describe('holdsLongString', () => {
  it('finds a long string at any depth, and nothing else', () => {
    expect(holdsLongString({ a: [{ b: 'x'.repeat(LONG_STRING) }] })).toBe(true);
    expect(holdsLongString({ a: [{ b: 'x'.repeat(LONG_STRING - 1) }], at: new Date() })).toBe(false);
  });
});

describe('jsonLength', () => {
  it('is the length of JSON.stringify for text without escapes', () => {
    const plain = { id: 7, title: { raw: 'a title', rendered: 'x'.repeat(100) }, tags: [1, 2, 3], sticky: false, parent: null, gone: undefined };
    expect(jsonLength(plain)).toBe(JSON.stringify(plain).length);
    expect(jsonLength([])).toBe(2);
    expect(jsonLength({})).toBe(2);
  });
});
