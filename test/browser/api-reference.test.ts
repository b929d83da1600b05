import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { buildApiReference } from '../../scripts/build-api-reference.js';
import { chromiumFound, CHROMIUM_PATH, cspViolations, launchChromium, screenshot } from '../support/browser.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

if (!chromiumFound) console.warn(`Browser tests skipped: no Chromium at ${CHROMIUM_PATH} (install Debian's chromium, or set CHROMIUM_PATH).`);

// Swagger UI reads the whole document (some 800 KB) before it shows anything: on a busy
// two-core machine that takes seconds, rather than the tenth of a second the history page needs.
const RENDERED_WITHIN_MS = 90_000;

let app: TestApp;
let browser: Browser;
const pages: Page[] = [];
/** What each page reported, read when all is done: its CSP breaches, its errors, and the addresses it asked for. */
const reports = new Map<Page, { violations: string[]; errors: string[]; requested: string[] }>();

describe.skipIf(!chromiumFound)('the API reference in Chromium', () => {
  beforeAll(async () => {
    await buildApiReference();
    app = await createTestApp();
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const page of pages) await page.close();
    await browser?.close();
    await app?.stop();
  });

  /**
   * The page as a browser opens it. CSP breaches are taken both from the console and from the
   * page's `securitypolicyviolation` events, which a script added through the debugging protocol
   * (not governed by the page's CSP) records.
   */
  async function openReference(hash = ''): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    pages.push(page);
    await page.addInitScript(() => {
      const seen: string[] = [];
      Object.assign(window, { cspEvents: seen });
      document.addEventListener('securitypolicyviolation', (event) => void seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    const report = { violations: cspViolations(page), errors: [] as string[], requested: [] as string[] };
    page.on('console', (message) => void (message.type() === 'error' && report.errors.push(message.text())));
    page.on('pageerror', (error) => void report.errors.push(error.message));
    page.on('request', (request) => void report.requested.push(request.url()));
    reports.set(page, report);
    await page.goto(`${app.siteUrl}/cms-api-reference/${hash}`);
    return page;
  }

  it('renders the service’s own OpenAPI document: its title, and its operations in order', async () => {
    const document = (await app.api('GET', '/openapi.json')).body;
    // Grouped by tag, in the document's order of tags; in each, in the order of the paths.
    const firstTag = (document.tags as { name: string }[])[0].name;
    const [firstPath, firstPathItem] = Object.entries(document.paths as Record<string, Record<string, { tags: string[] }>>).find(([, item]) =>
      Object.values(item).some((operation) => operation.tags.includes(firstTag)),
    )!;
    const page = await openReference();
    await page.locator('.opblock').first().waitFor({ timeout: RENDERED_WITHIN_MS });
    expect(await page.locator('.info .title').innerText()).toContain(document.info.title);
    expect(await page.locator('.opblock-summary-path').first().getAttribute('data-path')).toBe(firstPath);
    const firstMethod = Object.entries(firstPathItem).find(([, operation]) => operation.tags.includes(firstTag))![0];
    expect(await page.locator('.opblock-tag').first().getAttribute('data-tag')).toBe(firstTag);
    expect(await page.locator('.opblock-summary-method').first().innerText()).toBe(firstMethod.toUpperCase());
    expect(reports.get(page)!.requested).toContain(`${app.siteUrl}/cms-json/openapi.json`);
    await screenshot(page, 'api-reference');
  }, RENDERED_WITHIN_MS + 30_000);

  it('opens GET /cms/v2/posts from its address, with its parameters, and tries it out without the session cookie, logging no error', async () => {
    // Swagger UI draws only the operations near the screen: a deep link brings one into view.
    const page = await openReference('#/posts/getCmsV2Posts');
    const listPosts = page.locator('#operations-posts-getCmsV2Posts.is-open');
    await listPosts.locator('tr[data-param-name="per_page"]').waitFor({ timeout: RENDERED_WITHIN_MS });
    expect(await listPosts.locator('.opblock-summary-path').getAttribute('data-path')).toBe('/cms/v2/posts');
    expect(await listPosts.locator('.opblock-summary-method').innerText()).toBe('GET');
    await screenshot(page, 'api-reference-posts');

    // "Try it out" asks the service itself (its CSP allows the page's own origin), without the cookie.
    const seed = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Tried from the reference', status: 'publish' } });
    expect(seed.status).toBe(201);
    const sent: { url: string; cookie?: string }[] = [];
    page.on('request', async (request) => {
      if (request.url().includes('/cms-json/cms/v2/posts')) sent.push({ url: request.url(), cookie: (await request.allHeaders()).cookie });
    });
    await page.context().addCookies([{ name: 'cms_session', value: 'not-sent', url: app.siteUrl }]);
    await listPosts.getByRole('button', { name: 'Try it out' }).click();
    await listPosts.getByRole('button', { name: 'Execute' }).click();
    const answer = listPosts.locator('.live-responses-table tr.response .response-col_status');
    await answer.waitFor({ timeout: RENDERED_WITHIN_MS });
    expect(await answer.innerText()).toBe('200');
    expect(await listPosts.locator('.live-responses-table .microlight').first().innerText()).toContain('Tried from the reference');
    expect(sent).toEqual([{ url: expect.stringMatching(/\/cms-json\/cms\/v2\/posts\?/), cookie: undefined }]);
    expect(reports.get(page)!.errors).toEqual([]);
  }, RENDERED_WITHIN_MS + 60_000);

  it('broke no Content-Security-Policy rule, and loaded nothing from elsewhere, on any page', async () => {
    for (const page of pages) await page.waitForLoadState('networkidle');
    for (const [page, { violations, requested }] of reports) {
      expect(violations).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { cspEvents: string[] }).cspEvents)).toEqual([]);
      expect(requested.filter((url) => !url.startsWith(`${app.siteUrl}/`) && !url.startsWith('data:'))).toEqual([]);
    }
    expect(reports.size).toBe(2);
  });
});
