import { describe, expect, it } from 'vitest';
import { etagHeader, ifMatchOf, ifMatchPasses } from './conditional.js';

const condition = (header?: string) => ifMatchOf({ headers: { 'if-match': header } });

describe('If-Match (RFC 9110, 13.1.1)', () => {
  it('is no condition when absent', () => {
    expect(condition(undefined)).toBeUndefined();
    expect(ifMatchPasses(condition(undefined), '3')).toBe(true);
  });

  it('matches any existing item with *, and nothing when there is none', () => {
    expect(ifMatchPasses(condition('*'), '3')).toBe(true);
    expect(ifMatchPasses(condition(' * '), null)).toBe(false);
  });

  it('matches one tag of a list, by strong comparison', () => {
    expect(ifMatchPasses(condition('"1", "3"'), '3')).toBe(true);
    expect(ifMatchPasses(condition('"1","2"'), '3')).toBe(false);
    expect(ifMatchPasses(condition('"3"'), '3')).toBe(true);
  });

  it('never matches a weak tag', () => {
    expect(ifMatchPasses(condition('W/"3"'), '3')).toBe(false);
    expect(ifMatchPasses(condition('W/"3", "3"'), '3')).toBe(true);
  });

  it('matches nothing when the header is malformed', () => {
    for (const header of ['3', '"3', '"3" "4"', 'W/3', '', '"3",,x']) expect(ifMatchPasses(condition(header), '3'), header).toBe(false);
  });

  it('sends strong tags', () => {
    expect(etagHeader('7')).toEqual({ ETag: '"7"' });
  });
});
