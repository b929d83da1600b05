// Long content is rendered on the render thread and kept by item version: answers must be the
// request thread's rendering byte for byte, never an older version's (whoever wrote the newer one),
// and nothing kept may outlive an erasure.
import { describe, expect, it } from 'vitest';
import { renderContent, renderExcerpt } from '../../src/lib/content-render.js';
import { OFF_THREAD_CHARS } from '../../src/lib/content-render.off-thread.js';
import { siteChanges, updatePost } from '../../src/resources/posts/index.js';
import { twoServicesOnOneDatabase } from '../support/test-app.js';

const services = twoServicesOnOneDatabase();

const paragraph = (html: string) => `<!-- wp:paragraph -->\n<p>${html}</p>\n<!-- /wp:paragraph -->`;
// Blocks, freeform text, shortcode-like text, a long paragraph and pre blocks, past the thread's threshold.
const longContent = (word: string) =>
  [
    ...Array.from({ length: 300 }, (_, i) => paragraph(`${word} ${i} <em>said</em> "so" -- R&D`)),
    `Free text [gallery ids="1,2"] [[gallery]] [caption id="c"]<img src="a.png"> cap[/caption]\n\n<pre>a\n\nb</pre>`,
    Array.from({ length: 3000 }, (_, i) => `${word} sentence ${i}.`).join(' '),
  ].join('\n\n');

async function createLong(word: string): Promise<number> {
  const { app } = services;
  const response = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Long', content: longContent(word), status: 'publish' } });
  expect(response.status).toBe(201);
  return response.body.id;
}

const read = async (id: number) => (await services.app.api('GET', `/cms/v2/posts/${id}`, { query: { _fields: 'content,excerpt', round: Math.random() } })).body;

describe('rendering long content', () => {
  it('answers what the request thread renders, byte for byte, when written and when read', async () => {
    const { app } = services;
    const content = longContent('alpha');
    expect(content.length).toBeGreaterThan(OFF_THREAD_CHARS);
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Long', content, status: 'publish' } });
    for (const body of [created.body, await read(created.body.id), await read(created.body.id)]) {
      expect(body.content.rendered === renderContent(content)).toBe(true);
      expect(body.excerpt.rendered).toBe(renderExcerpt('', content));
    }
  });

  it('answers the new version after an update through this process', async () => {
    const { app } = services;
    const id = await createLong('before');
    await read(id);
    const updated = await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { content: longContent('after') } });
    expect(updated.status).toBe(200);
    expect((await read(id)).content.rendered === renderContent(longContent('after'))).toBe(true);
  });

  it("answers the new version after another process's write it was not told of", async () => {
    const id = await createLong('mine');
    await read(id);
    // A write through the other process's commands, without the site's change token: only the version tells.
    await updatePost(services.other.deps, id, siteChanges({ content: longContent('theirs') }), 1);
    const body = await read(id);
    expect(body.content.rendered === renderContent(longContent('theirs'))).toBe(true);
    expect(body.excerpt.rendered).toBe(renderExcerpt('', longContent('theirs')));
  });

  it('keeps nothing once a revision or the item is erased', async () => {
    const { app } = services;
    const id = await createLong('first');
    await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { content: longContent('second') } });
    await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { content: longContent('third') } });
    const revisions = (await app.api('GET', `/cms/v2/posts/${id}/revisions`, { headers: app.admin, query: { _fields: 'id' } })).body as { id: number }[];
    await read(id);
    expect(app.deps.renderer.cache.bytes).toBeGreaterThan(0);
    const erased = await app.api('DELETE', `/cms/v2/posts/${id}/revisions/${revisions.at(-1)!.id}`, { headers: app.admin, query: { force: true } });
    expect(erased.status).toBe(200);
    expect(app.deps.renderer.cache.bytes).toBe(0);

    await read(id);
    expect(app.deps.renderer.cache.bytes).toBeGreaterThan(0);
    expect((await app.api('DELETE', `/cms/v2/posts/${id}`, { headers: app.admin, query: { force: true } })).status).toBe(200);
    expect(app.deps.renderer.cache.bytes).toBe(0);
  });
});
