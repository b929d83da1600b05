import { describe, expect, it } from 'vitest';
import { SAVE_FILTERS } from './save-filters.js';

const { sanitize_text_field, _wp_specialchars, esc_html, esc_url_raw, wp_filter_kses, wp_strip_all_tags, sanitize_html_class, _wp_filter_post_meta_footnotes, trim } = SAVE_FILTERS;

describe('WordPress save filters', () => {
  it('sanitize_text_field strips tags (script and style with their text), keeps a lone < escaped, collapses whitespace, drops octets', () => {
    expect(sanitize_text_field('<svg onload=alert(document.domain)>', '')).toBe('');
    expect(sanitize_text_field('<script>alert(1)</script>Name', '')).toBe('Name');
    expect(sanitize_text_field('<strong>bold</strong>', '')).toBe('bold');
    expect(sanitize_text_field('a < b', '')).toBe('a &lt; b');
    expect(sanitize_text_field('  Tom\n\t Jerry  ', '')).toBe('Tom Jerry');
    expect(sanitize_text_field('100%ab off', '')).toBe('100 off');
  });

  it('_wp_specialchars and esc_html escape without encoding an entity twice', () => {
    expect(_wp_specialchars('Tom & Jerry &amp; <b> "q"', '')).toBe('Tom &amp; Jerry &amp; &lt;b&gt; "q"');
    expect(esc_html(`<a href="x">it's</a> &copy;`, '')).toBe('&lt;a href=&quot;x&quot;&gt;it&#039;s&lt;/a&gt; &copy;');
  });

  it('esc_url_raw empties a URL with a disallowed scheme, however written, and completes one without a scheme', () => {
    expect(esc_url_raw('javascript:alert(1)', '')).toBe('');
    expect(esc_url_raw(' JaVaScRiPt:alert(1)', '')).toBe('');
    // An encoded colon is no scheme: the URL is made an http one, as WordPress makes it.
    expect(esc_url_raw('javascript&#58;alert(1)', '')).toBe('http://javascript&#58;alert(1)');
    expect(esc_url_raw('data:text/html;base64,PHN2Zz4=', '')).toBe('');
    expect(esc_url_raw('example.com/a b', '')).toBe('http://example.com/a%20b');
    expect(esc_url_raw('https://example.com/?q=1&r=<2>', '')).toBe('https://example.com/?q=1&r=2');
    expect(esc_url_raw('/relative/path', '')).toBe('/relative/path');
    expect(esc_url_raw('mailto:someone@example.com', '')).toBe('mailto:someone@example.com');
  });

  it("wp_filter_kses keeps $allowedtags only, and rel on links only in a user's biography", () => {
    const html = '<a href="https://example.com/" rel="me" onclick="x()">site</a><strong>b</strong><img src=x onerror=alert(1)><p>para</p>';
    expect(wp_filter_kses(html, 'title_save_pre')).toBe('<a href="https://example.com/">site</a><strong>b</strong>para');
    expect(wp_filter_kses(html, 'pre_user_description')).toBe('<a href="https://example.com/" rel="me">site</a><strong>b</strong>para');
    expect(wp_filter_kses('<a href="javascript:alert(1)">x</a>', 'title_save_pre')).not.toContain('javascript');
  });

  it('wp_strip_all_tags and trim', () => {
    expect(wp_strip_all_tags(' <style>a{}</style><b>x</b> ', '')).toBe('x');
    expect(trim('\n\t x \0', '')).toBe('x');
  });

  it('sanitize_html_class keeps letters, digits, _ and -', () => {
    expect(sanitize_html_class('a b<c>%20d"onclick=x', '')).toBe('abcdonclickx');
  });

  it('_wp_filter_post_meta_footnotes filters each note as post content and its id as a key, and empties what is not footnotes', () => {
    const notes = JSON.stringify([{ id: 'Note 1!', content: '<em>a</em><script>alert(1)</script>' }, { id: '', content: 'dropped' }]);
    expect(JSON.parse(_wp_filter_post_meta_footnotes(notes, ''))).toEqual([{ id: 'note1', content: '<em>a</em>alert(1)' }]);
    expect(_wp_filter_post_meta_footnotes('<svg onload=alert(1)>', '')).toBe('');
  });
});
