import { describe, expect, it } from 'vitest';
import { blockVersion, renderContent, renderExcerpt, renderTitle, sanitizeContent } from './content-render.js';

const paragraph = (html: string) => `<!-- wp:paragraph -->\n<p>${html}</p>\n<!-- /wp:paragraph -->`;
const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i + 1}`).join(' ');

describe('renderContent', () => {
  it('wraps classic text in paragraphs', () => {
    expect(renderContent('Hello')).toBe('<p>Hello</p>\n');
  });

  it('turns a blank line into a new paragraph and a single line break into <br />', () => {
    expect(renderContent('First line\nsecond line\n\nSecond paragraph')).toBe(
      '<p>First line<br />\nsecond line</p>\n<p>Second paragraph</p>\n',
    );
  });

  it('renders a paragraph block without its comments and without another <p>', () => {
    expect(renderContent(paragraph('Hi'))).toBe('\n<p>Hi</p>\n');
  });

  it('keeps the whitespace between blocks', () => {
    expect(renderContent(`${paragraph('A')}\n\n${paragraph('B')}`)).toBe('\n<p>A</p>\n\n\n\n<p>B</p>\n');
  });

  it('renders inner blocks in place', () => {
    const group = `<!-- wp:group -->\n<div class="wp-block-group">${paragraph('In')}</div>\n<!-- /wp:group -->`;
    expect(renderContent(group)).toBe('\n<div class="wp-block-group">\n<p>In</p>\n</div>\n');
  });

  it('leaves freeform text between blocks unparagraphed, as do_blocks turns wpautop off', () => {
    expect(renderContent(`Intro text\n\n${paragraph('A')}\n\nOutro`)).toBe('Intro text\n\n\n<p>A</p>\n\n\nOutro');
  });

  it('renders a self-closing block as nothing and empty content as ""', () => {
    expect(renderContent('<!-- wp:separator /-->')).toBe('');
    expect(renderContent('')).toBe('');
  });
});

describe('renderTitle', () => {
  it('converts a lone ampersand and keeps entities', () => {
    expect(renderTitle('Tom & Jerry')).toBe('Tom &#038; Jerry');
    expect(renderTitle('Fish &amp; Chips &#8212; R&D')).toBe('Fish &amp; Chips &#8212; R&#038;D');
  });

  it("trims what PHP's trim trims, and no more", () => {
    expect(renderTitle('  Hello \n')).toBe('Hello');
    expect(renderTitle('\u00a0Hello')).toBe('\u00a0Hello');
    expect(renderTitle('')).toBe('');
  });
});

describe('renderExcerpt', () => {
  it('cuts generated excerpts to 55 words and adds [&hellip;]', () => {
    expect(renderExcerpt('', words(60))).toBe(`<p>${words(55)} [&hellip;]</p>\n`);
  });

  it('adds nothing when the content has 55 words or fewer', () => {
    expect(renderExcerpt('', words(55))).toBe(`<p>${words(55)}</p>\n`);
  });

  it('keeps the text of HTML content and of text blocks only', () => {
    const image = '<!-- wp:image {"id":5} -->\n<figure class="wp-block-image"><img src="a.png" alt="A cat"/></figure>\n<!-- /wp:image -->';
    const content = `${paragraph('Hello <strong>bold</strong> world &amp; more')}\n\n${image}\n\n${paragraph('Second')}`;
    expect(renderExcerpt('', content)).toBe('<p>Hello bold world &amp; more Second</p>\n');
  });

  it('strips tags, script text and comments from classic content', () => {
    const content = '<h2>Title</h2>\n<p>Some <em>text</em></p><script>var x = 1;</script><!-- note -->\n\nEnd';
    expect(renderExcerpt('', content)).toBe('<p>Title Some text End</p>\n');
  });

  it('reads the content inside groups', () => {
    const group = `<!-- wp:group -->\n<div class="wp-block-group">${paragraph('Grouped')}</div>\n<!-- /wp:group -->`;
    expect(renderExcerpt('', group)).toBe('<p>Grouped</p>\n');
  });

  it('stops at the more tag', () => {
    expect(renderExcerpt('', 'Teaser text<!--more-->Rest of the post')).toBe('<p>Teaser text</p>\n');
    const blocks = `${paragraph('Before')}\n\n<!-- wp:more -->\n<!--more-->\n<!-- /wp:more -->\n\n${paragraph('After')}`;
    expect(renderExcerpt('', blocks)).toBe('<p>Before</p>\n');
  });

  it('removes core shortcodes, keeps escaped and unknown ones', () => {
    const content = 'Look [gallery ids="1,2"] here [caption id="c1"]<img src="a.png"> A caption[/caption] [[gallery]] [unknown]';
    expect(renderExcerpt('', content)).toBe('<p>Look here [gallery] [unknown]</p>\n');
  });

  it('renders a raw excerpt through convert_chars and wpautop instead of generating one', () => {
    expect(renderExcerpt('My & excerpt', 'The content')).toBe('<p>My &#038; excerpt</p>\n');
  });

  it('generates one when the raw excerpt is only whitespace', () => {
    expect(renderExcerpt(' \n', 'The content')).toBe('<p>The content</p>\n');
  });

  it('is empty for empty content', () => {
    expect(renderExcerpt('', '')).toBe('');
  });
});

describe('blockVersion', () => {
  it('is 1 only when the content has a block delimiter', () => {
    expect(blockVersion(paragraph('Hi'))).toBe(1);
    expect(blockVersion('<p>Hi</p><!-- a comment -->')).toBe(0);
  });
});

describe('sanitizeContent', () => {
  it('removes a script element, keeping its text as kses does, and the block comments', () => {
    const block = '<!-- wp:paragraph {"align":"center"} -->\n<p class="has-text-align-center" onclick="steal()">Hi<script>alert(1)</script></p>\n<!-- /wp:paragraph -->';
    expect(sanitizeContent(block)).toBe(
      '<!-- wp:paragraph {"align":"center"} -->\n<p class="has-text-align-center">Hialert(1)</p>\n<!-- /wp:paragraph -->',
    );
  });

  it('removes event handler attributes and keeps the allowed ones', () => {
    expect(sanitizeContent('<img src="x.png" onerror="alert(1)" alt="x"><div data-id="1" aria-label="l" onmouseover="x()">d</div>')).toBe(
      '<img src="x.png" alt="x" /><div data-id="1" aria-label="l">d</div>',
    );
  });

  it('removes javascript: URLs, entity-encoded ones included', () => {
    expect(sanitizeContent('<a href="javascript:alert(1)">x</a> <a href="&#106;avascript:alert(1)">y</a> <a href="https://example.com/">z</a>')).toBe(
      '<a>x</a> <a>y</a> <a href="https://example.com/">z</a>',
    );
  });

  it('drops tags kses does not allow, keeping their text', () => {
    expect(sanitizeContent('<iframe src="https://example.com"></iframe><form><input name="q">Find</form>')).toBe('Find');
  });

  it('keeps nested block markup as it was', () => {
    const buttons =
      '<!-- wp:buttons -->\n<div class="wp-block-buttons"><!-- wp:button {"width":50} -->\n' +
      '<div class="wp-block-button has-custom-width wp-block-button__width-50"><a class="wp-block-button__link wp-element-button" href="https://example.com/?a=1&amp;b=2">Go</a></div>\n' +
      '<!-- /wp:button --></div>\n<!-- /wp:buttons -->';
    expect(sanitizeContent(buttons)).toBe(buttons);
  });

  it('writes delimiters as serialize_block does: short names, re-encoded attributes, self-closing when empty', () => {
    const input = '<!-- wp:core/heading {"level":3,"note":"a--b"} -->\n<h3>T</h3>\n<!-- /wp:core/heading -->\n<!-- wp:spacer --><!-- /wp:spacer -->';
    expect(sanitizeContent(input)).toBe(
      '<!-- wp:heading {"level":3,"note":"a\\u002d\\u002db"} -->\n<h3>T</h3>\n<!-- /wp:heading -->\n<!-- wp:spacer /-->',
    );
  });

  it('filters HTML inside block attribute values', () => {
    const input = '<!-- wp:image {"caption":"<img src=x onerror=alert(1)>"} /-->';
    expect(sanitizeContent(input)).toBe('<!-- wp:image {"caption":"\\u003cimg src=\\u0022x\\u0022 /\\u003e"} /-->');
  });

  it("keeps WordPress's more and nextpage comments and drops other comments", () => {
    expect(sanitizeContent('Teaser<!--more Read on-->Page one<!--nextpage-->Page two<!-- a note -->')).toBe(
      'Teaser<!--more Read on-->Page one<!--nextpage-->Page two',
    );
  });

  it('cannot be made to write a block comment inside an attribute', () => {
    const input = `<a title='<!-- wp:paragraph {"x":"\\" onmouseover=alert(1) x=\\""} -->' href="/p">t</a>`;
    expect(sanitizeContent(input)).toBe('<a title="" href="/p">t</a><!-- /wp:paragraph -->');
  });

  it('drops control characters', () => {
    expect(sanitizeContent('<p>a\u0000b\u0007c\td</p>')).toBe('<p>abc\td</p>');
  });
});
