import { afterAll, describe, expect, it } from 'vitest';
import { renderContent, renderExcerpt } from './content-render.js';
import { ContentRenderer, renderThreadFile } from './content-render.off-thread.js';
import { renderJob, sentAnswer } from './content-render.thread.js';

const paragraph = (html: string) => `<!-- wp:paragraph -->\n<p>${html}</p>\n<!-- /wp:paragraph -->`;
const sentence = (i: number) => `Sentence ${i} says "quoted" things -- and 'more' & R&D...`;

// Content of each kind the pipeline treats differently, each long enough to be rendered on the thread.
const SAMPLES: Record<string, string> = {
  blocks: Array.from({ length: 2000 }, (_, i) => paragraph(`Block ${i} <strong>bold</strong> &amp; more`)).join('\n\n'),
  'nested blocks with freeform text between them': Array.from(
    { length: 800 },
    (_, i) => `Free text ${i}\n\n<!-- wp:group -->\n<div class="wp-block-group">${paragraph(`In ${i}`)}</div>\n<!-- /wp:group -->`,
  ).join('\n'),
  'shortcode-like text': Array.from({ length: 700 }, (_, i) => `Look [gallery ids="${i},2"] here [caption id="c${i}"]<img src="a.png"> A caption[/caption] [[gallery]] [unknown ${i}]`).join('\n\n'),
  'one long paragraph': Array.from({ length: 20_000 }, (_, i) => sentence(i)).join(' '),
  'lines and paragraphs': Array.from({ length: 6000 }, (_, i) => (i % 7 === 0 ? `\n${sentence(i)}` : sentence(i))).join('\n'),
  'pre blocks': Array.from({ length: 1000 }, (_, i) => `Before ${i}\n<pre class="code">line one\n\nline ${i}\n</pre>\nAfter<br><br>text<div>d\n</div>`).join('\n\n'),
  'script, lists and tables': Array.from(
    { length: 1200 },
    (_, i) => `<ul>\n<li>item ${i}</li>\n</ul>\n<script>var a = 1;\n\nvar b = ${i};</script>\n<table><tr><td>c\n</td></tr></table>\n<blockquote>q ${i}</blockquote>`,
  ).join('\n'),
  'more tag and comments': `${Array.from({ length: 4000 }, (_, i) => `Teaser ${i} <!-- note -->`).join('\n')}<!--more-->${'Rest '.repeat(5000)}`,
};

describe('rendering on the render thread', () => {
  const renderer = new ContentRenderer({ threadFile: renderThreadFile(), cacheBytes: 0 });
  afterAll(() => renderer.close());

  it('runs on a thread (the build is there)', () => {
    expect(renderThreadFile()).toBeDefined();
    for (const content of Object.values(SAMPLES)) expect(renderer.isLong(content)).toBe(true);
  });

  it.each(Object.entries(SAMPLES))('gives the content and excerpt the request thread gives, byte for byte: %s', async (_name, content) => {
    const rendered = await renderer.render({ key: undefined, content, excerpt: '', renderContent: true });
    expect([rendered.content === renderContent(content), rendered.excerpt === renderExcerpt('', content)]).toEqual([true, true]);
  });

  it('sends an excerpt the same as the content once, and gives it back as both', async () => {
    // One word: its excerpt is the whole of it, as the content renders.
    const word = 'a'.repeat(200_000);
    const answer = renderJob({ id: 1, content: word, excerpt: '', renderContent: true });
    expect(sentAnswer(answer)).toEqual({ id: 1, content: renderContent(word), excerpt: undefined, excerptIsContent: true });
    const rendered = await renderer.render({ key: undefined, content: word, excerpt: '', renderContent: true });
    expect([rendered.content === renderContent(word), rendered.excerpt === renderExcerpt('', word)]).toEqual([true, true]);
    const distinct = renderJob({ id: 2, content: word, excerpt: 'Own excerpt', renderContent: true });
    expect(sentAnswer(distinct)).toBe(distinct);
  });

  it('renders a raw excerpt, and only what is asked', async () => {
    const content = SAMPLES.blocks;
    expect(await renderer.render({ key: undefined, content, excerpt: 'My & excerpt', renderContent: false })).toEqual({
      content: undefined,
      excerpt: renderExcerpt('My & excerpt', content),
    });
  });
});

describe('a render thread out of heap', () => {
  it('fails its render alone: the process goes on, and the next render starts another thread', async () => {
    const renderer = new ContentRenderer({ threadFile: renderThreadFile(), cacheBytes: 0, threadHeapMb: 16 });
    const huge = SAMPLES['lines and paragraphs'].repeat(40);
    await expect(renderer.render({ key: undefined, content: huge, excerpt: '', renderContent: true })).rejects.toThrow();
    const content = SAMPLES.blocks;
    expect((await renderer.render({ key: undefined, content, excerpt: undefined, renderContent: true })).content === renderContent(content)).toBe(true);
    await renderer.close();
  }, 60_000);
});

describe('the render cache', () => {
  const content = SAMPLES['one long paragraph'];

  it('keeps a render by item version, and forgets it when emptied', async () => {
    const renderer = new ContentRenderer({ threadFile: undefined, cacheBytes: 16 << 20 });
    const first = await renderer.render({ key: '7:3', content, excerpt: '', renderContent: true });
    // The version names the content: under the same key, the kept render is the answer.
    expect((await renderer.render({ key: '7:3', content: `${content} changed`, excerpt: '', renderContent: true })) === first).toBe(true);
    const next = await renderer.render({ key: '7:4', content: `${content} changed`, excerpt: '', renderContent: true });
    expect(next.content === renderContent(`${content} changed`)).toBe(true);
    renderer.cache.clear();
    expect((await renderer.render({ key: '7:3', content, excerpt: '', renderContent: true })) === first).toBe(false);
  });

  it('keeps nothing beyond its budget', async () => {
    const renderer = new ContentRenderer({ threadFile: undefined, cacheBytes: content.length });
    const first = await renderer.render({ key: '7:3', content, excerpt: undefined, renderContent: true });
    expect((await renderer.render({ key: '7:3', content, excerpt: undefined, renderContent: true })) === first).toBe(false);
  });
});
