import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminPage } from '../../scripts/build-admin-page.js';
import { assetsOf, expectPageHeaders, expectSelfContained } from '../support/served-page.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

// Everything the page loads (HTML, script, style sheet), uncompressed. About 60 KB of it is
// htmlparser2 and its entity table: the page reads untrusted markup with it rather than with the
// browser's parser, which reports every inline handler it meets as a breach of the page's CSP.
const PAGE_WEIGHT_BUDGET_BYTES = 112 * 1024;

let app: TestApp;
beforeAll(async () => {
  await buildAdminPage();
  app = await createTestApp();
});
afterAll(() => app?.stop());

describe('the admin page, as served', () => {
  it('serves the page at /cms-admin/ with a strict Content-Security-Policy and no framing', async () => {
    const page = await app.site('GET', '/cms-admin/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectPageHeaders(page.headers);
  });

  it('has no inline script, no inline style, and nothing from another origin', async () => {
    expectSelfContained((await app.site('GET', '/cms-admin/')).text);
  });

  it('serves the assets with their content types', async () => {
    const { text } = await app.site('GET', '/cms-admin/');
    const types = await Promise.all(assetsOf(text).map(async (asset) => (await app.site('GET', `/cms-admin/${asset}`)).headers.get('content-type')));
    expect(types.sort()).toEqual([expect.stringMatching(/^text\/css/), expect.stringMatching(/^text\/javascript|^application\/javascript/)]);
  });

  it('keeps a query when it adds the trailing slash, and lists no folder', async () => {
    const bare = await fetch(`${app.siteUrl}/cms-admin?type=posts&id=4`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/cms-admin/?type=posts&id=4');
    const unknown = await app.site('GET', '/cms-admin/nothing-here.js');
    expect(unknown.status).toBe(404);
    const parent = await app.site('GET', '/cms-admin/%2e%2e/package.json');
    expect(parent.status).toBe(404);
  });

  it(`stays within its weight budget (${PAGE_WEIGHT_BUDGET_BYTES / 1024} KB of HTML, script and style)`, async () => {
    const page = await app.site('GET', '/cms-admin/');
    const sizes = await Promise.all(assetsOf(page.text).map(async (asset) => Buffer.byteLength((await app.site('GET', `/cms-admin/${asset}`)).text)));
    const total = Buffer.byteLength(page.text) + sizes.reduce((sum, size) => sum + size, 0);
    expect(sizes.length).toBe(2);
    expect(total).toBeLessThanOrEqual(PAGE_WEIGHT_BUDGET_BYTES);
  });
});
