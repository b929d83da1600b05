import { describe, expect, it } from 'vitest';
import { firstFreeSlug, sanitizeSlug } from './slugs.js';

describe('sanitizeSlug', () => {
  it('makes a slug as sanitize_title does', () => {
    expect(sanitizeSlug('  Héllo, <b>World</b> &amp; more! ')).toBe('hello-world-more');
  });

  it('keeps a slug within 200 octets percent-encoded, as utf8_uri_encode($title, 200) does, never ending on a hyphen', () => {
    expect(sanitizeSlug('a'.repeat(5000))).toBe('a'.repeat(200));
    expect(sanitizeSlug(`${'a'.repeat(199)} b`)).toBe('a'.repeat(199));
    // Each of these letters is two UTF-8 octets, six characters encoded: 33 fit in 200.
    expect(sanitizeSlug('ж'.repeat(100))).toBe('ж'.repeat(33));
  });
});

describe('firstFreeSlug', () => {
  it('keeps a free slug, and suffixes a taken one from -2 on, as wp_unique_post_slug does', async () => {
    const taken = new Set(['home', 'home-2']);
    const isTaken = async (candidate: string) => taken.has(candidate);
    expect(await firstFreeSlug('about', isTaken)).toBe('about');
    expect(await firstFreeSlug('home', isTaken)).toBe('home-3');
  });
});
