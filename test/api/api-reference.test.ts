import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminPage } from '../../scripts/build-admin-page.js';
import { buildApiReference } from '../../scripts/build-api-reference.js';
import { assetsOf, expectPageHeaders, expectSelfContained } from '../support/served-page.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  await Promise.all([buildApiReference(), buildAdminPage()]);
  app = await createTestApp();
});
afterAll(() => app?.stop());

describe('the API reference, as served', () => {
  it('serves the page at /cms-api-reference/ under the history page’s Content-Security-Policy and headers', async () => {
    const page = await app.site('GET', '/cms-api-reference/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectPageHeaders(page.headers);
  });

  it('has no inline script or style, and nothing from another origin', async () => {
    expectSelfContained((await app.site('GET', '/cms-api-reference/')).text);
  });

  it('serves Swagger UI’s files and its own, with their content types and the same headers', async () => {
    const { text } = await app.site('GET', '/cms-api-reference/');
    const assets = assetsOf(text);
    expect(assets.sort()).toEqual(['api-reference.css', 'api-reference.js', 'swagger-ui-bundle.js', 'swagger-ui.css']);
    for (const asset of assets) {
      const answer = await app.site('GET', `/cms-api-reference/${asset}`);
      expect(answer.status, asset).toBe(200);
      expect(answer.headers.get('content-type'), asset).toMatch(asset.endsWith('.css') ? /^text\/css/ : /^(text|application)\/javascript/);
      expectPageHeaders(answer.headers, asset);
    }
    // The start-up script reads the document from the site's own API, found from the page's address.
    expect((await app.site('GET', '/cms-api-reference/api-reference.js')).text).toContain('../cms-json/openapi.json');
  });

  it('keeps a query when it adds the trailing slash, and lists no folder', async () => {
    const bare = await fetch(`${app.siteUrl}/cms-api-reference?x=1`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/cms-api-reference/?x=1');
    expect((await app.site('GET', '/cms-api-reference/nothing-here.js')).status).toBe(404);
    expect((await app.site('GET', '/cms-api-reference/%2e%2e/package.json')).status).toBe(404);
  });

  it('is no route of the API: the OpenAPI document it renders does not list it', async () => {
    const document = (await app.api('GET', '/openapi.json')).body;
    expect(JSON.stringify(document)).not.toContain('cms-api-reference');
  });

  it('is linked from the history page’s bar', async () => {
    const history = await app.site('GET', '/cms-admin/');
    const link = /<nav class="bar-nav"[^>]*>\s*<a href="([^"]+)">API reference<\/a>/.exec(history.text)?.[1];
    expect(link).toBeDefined();
    const target = new URL(link!, `${app.siteUrl}/cms-admin/`);
    expect(target.pathname).toBe('/cms-api-reference/');
    expect((await app.site('GET', target.pathname)).status).toBe(200);
  });
});
