import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildAdminPage } from '../../scripts/build-admin-page.js';
import { chromiumFound, CHROMIUM_PATH, cspViolations, launchChromium, screenshot, seriousAxeViolations } from '../support/browser.js';
import { ADMIN_PASSWORD, createTestApp, type TestApp } from '../support/test-app.js';

if (!chromiumFound) console.warn(`Browser tests skipped: no Chromium at ${CHROMIUM_PATH} (install Debian's chromium, or set CHROMIUM_PATH).`);

const MAX_FAILURES = 3;
const CONTENTS = [
  'The harbour opens at dawn.',
  'The quick brown fox jumps over the lazy dog.',
  'The quick red fox jumps over the sleepy dog.',
  'The quick red fox leaps over the sleepy dog.',
];

let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
/** What Chromium reported of the page's CSP, by page: read when all is done, as a page may log after its test. */
const violations = new Map<Page, string[]>();
/** What each page logged as an error (a failed request, an exception). */
const consoleErrors = new Map<Page, string[]>();
// How far the service's clock is ahead of the machine's (one test lets a day pass).
let clockAhead = 0;

describe.skipIf(!chromiumFound)('the history page in Chromium', () => {
  beforeAll(async () => {
    await buildAdminPage();
    app = await createTestApp({ env: { CMS_LOGIN_MAX_FAILURES: String(MAX_FAILURES) }, clock: () => new Date(Date.now() + clockAhead) });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await app?.stop();
  });

  /** A fresh browser (no cookie) on the page, with its CSP reports collected. */
  async function openPage(search = ''): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    violations.set(page, cspViolations(page));
    const errors: string[] = [];
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
    page.on('pageerror', (error) => void errors.push(error.message));
    consoleErrors.set(page, errors);
    await page.goto(`${app.siteUrl}/cms-admin/${search}`);
    return page;
  }

  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.fill('#user_login', username);
    await page.fill('#user_pass', password);
    await page.click('form.sign-in button[type=submit]');
    await page.locator('#bar-user').waitFor();
  }

  async function signedIn(username = 'admin', password = ADMIN_PASSWORD, search = ''): Promise<Page> {
    const page = await openPage(search);
    await signIn(page, username, password);
    return page;
  }

  /** A published post of the administrator's, updated once per further content: one revision per update. */
  async function seedPost(title: string, contents = CONTENTS): Promise<{ id: number; revisions: number[] }> {
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title, content: contents[0], status: 'publish' } });
    expect(created.status).toBe(201);
    for (const content of contents.slice(1)) expect((await app.api('POST', `/cms/v2/posts/${created.body.id}`, { headers: app.admin, json: { content } })).status).toBe(200);
    const revisions = await app.api('GET', `/cms/v2/posts/${created.body.id}/revisions`, { headers: app.admin, query: { order: 'asc', orderby: 'date', _fields: 'id' } });
    return { id: created.body.id, revisions: revisions.body.map((revision: { id: number }) => revision.id) };
  }

  const contentOf = async (id: number) => (await app.api('GET', `/cms/v2/posts/${id}`, { headers: app.admin, query: { context: 'edit' } })).body.content.raw;
  const texts = (page: Page, selector: string) => page.locator(selector).allInnerTexts();

  async function expectAccessible(page: Page): Promise<void> {
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  it('signs in with a username or an email address, and lists recent changes first', async () => {
    await seedPost('Older harbour post', CONTENTS.slice(0, 1));
    await seedPost('Newest lighthouse post', CONTENTS.slice(0, 1));
    const page = await openPage();
    await page.locator('#user_login').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'sign-in');
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.getByRole('heading', { name: 'Recent changes' }).waitFor();
    const titles = await texts(page, '.item-link');
    expect(titles.indexOf('Newest lighthouse post')).toBeLessThan(titles.indexOf('Older harbour post'));
    await expectAccessible(page);
    await screenshot(page, 'finder');

    const editor = await app.asRole('editor');
    const byEmail = await signedIn(`${editor.username}@example.test`, editor.password);
    expect(await byEmail.locator('#bar-name').innerText()).toContain(editor.username);
  });

  it('loads, signs in and opens an item with nothing logged as an error (no failed request, no missing icon)', async () => {
    const { id } = await seedPost('A quiet console', CONTENTS.slice(0, 3));
    const page = await openPage(`?type=posts&id=${id}`);
    await page.locator('#user_login').waitFor();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.locator('.field-diff[data-field=content]').waitFor();
    await page.locator('#edit-lock').waitFor();
    expect(consoleErrors.get(page)).toEqual([]);
  });

  it('refuses a wrong password, saying so, and then throttles the guesser', async () => {
    const victim = await app.asRole('author');
    const page = await openPage();
    const messages: string[] = [];
    for (let attempt = 0; attempt <= MAX_FAILURES; attempt++) {
      await page.fill('#user_login', victim.username);
      await page.fill('#user_pass', `wrong-${attempt}`);
      await page.click('form.sign-in button[type=submit]');
      // The button is disabled while the sign-in is sent, and enabled again with its answer shown.
      await page.waitForFunction(() => !document.querySelector('form.sign-in button[disabled]'));
      messages.push(await page.locator('#sign-in-error').innerText());
      if (attempt === 0) await screenshot(page, 'sign-in-refused');
    }
    expect(messages[0]).toBe(`The password you entered for the username ${victim.username} is incorrect.`);
    expect(messages.at(-1)).toMatch(/Too many failed sign-ins/);
    expect(await page.locator('#bar-user').isHidden()).toBe(true);
  });

  it('opens an item from the list: its timeline by day, with kinds, authors and fields, filtered', async () => {
    const { id, revisions: [oldest] } = await seedPost('Timeline of the pier');
    expect((await app.api('DELETE', `/cms/v2/posts/${id}`, { headers: app.admin })).status).toBe(200);
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { status: 'publish' } })).status).toBe(200);
    expect((await app.api('DELETE', `/cms/v2/posts/${id}/revisions/${oldest}`, { headers: app.admin, query: { force: true } })).status).toBe(200);
    const history = await app.api('GET', `/cms/v2/posts/${id}/history`, { headers: app.admin });

    const page = await signedIn();
    await page.getByRole('link', { name: 'Timeline of the pier' }).click();
    await page.locator('.event').first().waitFor();
    expect(await page.locator('.event').count()).toBe(Number(history.headers.get('X-WP-Total')));
    const kinds = await texts(page, '.event .kind');
    expect(kinds[0]).toBe('Revision deleted');
    expect(kinds).toEqual(expect.arrayContaining(['Created', 'Updated', 'Trashed', 'Restored from trash']));
    // The deleted revision's content was erased from the log: the entry that wrote it says so.
    expect(await texts(page, '.event-updated .fields')).toContain('Content · erased: Content');
    expect(await texts(page, '.event .who')).toEqual(kinds.map(() => 'admin'));
    expect((await texts(page, '.event-updated .fields')).filter((fields) => /^Content · revision \d+/.test(fields))).toHaveLength(CONTENTS.length - 2);
    expect(await page.locator('.day').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.chart rect').count()).toBe(30);
    await expectAccessible(page);
    await screenshot(page, 'item');

    // An entry shows what it changed: its revision against the one before.
    const revisions = (await app.api('GET', `/cms/v2/posts/${id}/revisions`, { headers: app.admin, query: { order: 'asc', orderby: 'date', _fields: 'id' } })).body.map((r: { id: number }) => r.id);
    await page.locator('.event-updated .show-change').first().click();
    await page.waitForFunction(([from, to]) => {
      const params = new URL(window.location.href).searchParams;
      return params.get('from') === String(from) && params.get('to') === String(to);
    }, revisions.slice(-2));

    await page.selectOption('#filter-kind', 'updated');
    await page.waitForFunction(() => [...document.querySelectorAll('.event .kind')].every((kind) => kind.textContent === 'Updated'));
    expect(await page.locator('.event').count()).toBe(CONTENTS.length - 1);
    expect(await page.locator('.filter-note').innerText()).toBe(`${CONTENTS.length - 1} of the ${kinds.length} changes on this page match.`);
  });

  it('compares two revisions, marking the changed words, and the address reopens the comparison', async () => {
    const { id, revisions } = await seedPost('Fox and dog');
    const [first, second, third] = revisions;
    const page = await openPage(`?type=posts&id=${id}&from=${first}&to=${second}`);
    const fetched: string[] = [];
    page.on('request', (request) => fetched.push(request.url()));
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.locator('.field-diff[data-field=content]').waitFor();
    expect(await texts(page, '.field-diff[data-field=content] del')).toEqual(['brown', 'lazy']);
    expect(await texts(page, '.field-diff[data-field=content] ins')).toEqual(['red', 'sleepy']);
    expect(await page.locator('.field-diff[data-field=title]').count()).toBe(0);
    expect(await page.locator('details.unchanged summary').innerText()).toContain('Title');
    expect(await page.locator('details.unchanged').getAttribute('open')).toBeNull();
    await expectAccessible(page);
    await screenshot(page, 'compare');

    // The next pair was fetched ahead, before anyone asked for it.
    await expect.poll(() => fetched.some((url) => url.includes(`/revisions/${third}/diff?against=${second}`))).toBe(true);

    // The scrubber's handles move with the keyboard; the address follows.
    await page.focus('#scrub-to');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((to) => new URL(window.location.href).searchParams.get('to') === String(to), third);
    await page.waitForFunction(() => [...document.querySelectorAll('.field-diff[data-field=content] ins')].some((ins) => ins.textContent === 'leaps'));

    // And with the mouse: the older handle dragged from the start to the middle state.
    const track = (await page.locator('#scrub-from').boundingBox())!;
    const thumb = 18;
    const y = track.y + track.height / 2;
    await page.mouse.move(track.x + thumb / 2, y);
    await page.mouse.down();
    await page.mouse.move(track.x + track.width / 2, y, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction((from) => new URL(window.location.href).searchParams.get('from') === String(from), second);
    await page.waitForFunction(() => [...document.querySelectorAll('.field-diff[data-field=content] ins')].map((ins) => ins.textContent).join() === 'leaps');
    await page.focus('#scrub-from');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((from) => new URL(window.location.href).searchParams.get('from') === String(from), first);

    // What a reader sees is shown first; the source is one click away, and the address keeps it.
    expect(await page.locator('#view-rendered').isChecked()).toBe(true);
    await page.click('label[for=view-source]');
    await page.waitForFunction(() => new URL(window.location.href).searchParams.get('view') === 'source');
    const address = page.url();
    const again = await openPageSignedIn(address);
    await again.locator('.field-diff[data-field=content]').waitFor();
    expect(await again.locator('#view-source').isChecked()).toBe(true);
    expect(await again.locator('#from-label').innerText()).toContain(`Revision ${first}`);
    expect(await again.locator('#to-label').innerText()).toContain(`Revision ${third}`);
    expect(await texts(again, '.field-diff[data-field=content] ins')).toEqual(expect.arrayContaining(['red', 'sleepy']));
    await screenshot(again, 'compare-source');

    // Two entries picked in the timeline.
    await again.check(`.events input[value="${second}"]`);
    await again.check(`.events input[value="${third}"]`);
    await again.click('#compare-picked');
    await again.waitForFunction(([from, to]) => {
      const params = new URL(window.location.href).searchParams;
      return params.get('from') === String(from) && params.get('to') === String(to);
    }, [second, third]);
    await again.waitForFunction(() => [...document.querySelectorAll('.field-diff[data-field=content] del')].some((del) => del.textContent === 'jumps'));
  });

  async function openPageSignedIn(address: string): Promise<Page> {
    const page = await signedIn();
    await page.goto(address);
    return page;
  }

  it('restores a revision after a preview of what changes, sent with If-Match', async () => {
    const { id, revisions } = await seedPost('Restore me');
    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${id}&from=${revisions[0]}&to=${revisions[1]}`);
    const sent: Record<string, string>[] = [];
    page.on('request', (request) => request.method() === 'POST' && request.url().includes('/restore') && sent.push(request.headers()));
    await page.click('#restore-from');
    await page.locator('dialog.restore-dialog[open]').waitFor();
    expect(await texts(page, 'dialog .field-diff[data-field=content] del')).toEqual(['red', 'leaps', 'sleepy']);
    expect(await texts(page, 'dialog .field-diff[data-field=content] ins')).toEqual(['brown', 'jumps', 'lazy']);
    await expectAccessible(page);
    await screenshot(page, 'restore-preview');
    await page.click('#confirm-restore');
    await page.locator('dialog.restore-dialog').waitFor({ state: 'detached' });
    expect(await contentOf(id)).toBe(CONTENTS[1]);
    expect(sent[0]['if-match']).toMatch(/^"/);
    await page.locator('.event .kind', { hasText: 'Revision restored' }).first().waitFor();
  });

  it('says so when the item changed meanwhile (412), and shows the new difference', async () => {
    const { id, revisions } = await seedPost('Edited by two');
    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${id}&from=${revisions[0]}&to=${revisions[1]}`);
    await page.click('#restore-from');
    await page.locator('dialog.restore-dialog[open]').waitFor();
    const concurrent = 'Changed elsewhere meanwhile.';
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { content: concurrent } })).status).toBe(200);
    const answers: number[] = [];
    page.on('response', (response) => response.url().includes('/restore') && answers.push(response.status()));
    await page.click('#confirm-restore');
    await page.locator('#restore-notice', { hasText: 'changed by someone else' }).waitFor();
    expect(answers).toEqual([412]);
    expect(await texts(page, 'dialog .field-diff[data-field=content] del')).toContain('Changed elsewhere meanwhile');
    expect(await contentOf(id)).toBe(concurrent);
    await screenshot(page, 'restore-412');
    await page.click('#confirm-restore');
    await page.locator('dialog.restore-dialog').waitFor({ state: 'detached' });
    expect(await contentOf(id)).toBe(CONTENTS[1]);
  });

  it('restores a single field from the preview', async () => {
    const { id, revisions } = await seedPost('One field');
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { title: 'Renamed' } })).status).toBe(200);
    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${id}&from=${revisions[0]}&to=${revisions[1]}`);
    await page.click('#restore-from');
    await page.locator('dialog .field-diff[data-field=title]').waitFor();
    await page.click('dialog .field-diff[data-field=title] .restore-field');
    await page.locator('dialog.restore-dialog').waitFor({ state: 'detached' });
    const item = (await app.api('GET', `/cms/v2/posts/${id}`, { headers: app.admin, query: { context: 'edit' } })).body;
    expect(item.title.raw).toBe('One field');
    expect(item.content.raw).toBe(CONTENTS.at(-1));
  });

  it('offers another user’s newer autosave, showing its difference, to restore or discard', async () => {
    const { id } = await seedPost('Autosaved story');
    const editor = await app.asRole('editor', { name: 'Erin Editor' });
    // As the block editor autosaves: title, content and excerpt together.
    const autosave = async (content: string) =>
      expect((await app.api('POST', `/cms/v2/posts/${id}/autosaves`, { headers: editor.headers, json: { title: 'Autosaved story', content, excerpt: '' } })).status).toBe(200);
    await autosave('The quick red fox leaps over the sleepy cat.');
    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${id}`);
    const banner = page.locator('.autosave-banner');
    await banner.waitFor();
    expect(await banner.locator('h2').innerText()).toContain('Erin Editor');
    expect(await texts(page, '.autosave-banner del')).toEqual(['dog']);
    expect(await texts(page, '.autosave-banner ins')).toEqual(['cat']);
    await expectAccessible(page);
    await screenshot(page, 'autosave');
    await page.click('#autosave-discard');
    await banner.waitFor({ state: 'detached' });
    expect((await app.api('GET', `/cms/v2/posts/${id}/autosaves`, { headers: app.admin })).body).toEqual([]);

    await autosave('The quick red fox leaps over the sleepy hen.');
    await page.reload();
    await page.click('#autosave-restore');
    await page.locator('dialog.restore-dialog[open]').waitFor();
    await page.click('#confirm-restore');
    await page.locator('dialog.restore-dialog').waitFor({ state: 'detached' });
    expect(await contentOf(id)).toBe('The quick red fox leaps over the sleepy hen.');
  });

  it('offers the previous holder their autosave after a take-over, compared with what the new holder saved, leaving fields it did not carry unchanged', async () => {
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Handed over', content: 'The ferry leaves at noon.', excerpt: 'Ferry times.', status: 'publish' } });
    const { id } = created.body;
    const ada = await app.asRole('editor', { name: 'Ada Autosaver' });
    const ben = await app.asRole('editor', { name: 'Ben Takeover' });
    // An author of a published post: as in WordPress, another editor may read his name only then.
    expect((await app.api('POST', '/cms/v2/posts', { headers: ben.headers, json: { title: 'By Ben', status: 'publish' } })).status).toBe(201);
    expect((await app.api('POST', `/cms/v2/posts/${id}/lock`, { headers: ada.headers, json: {} })).status).toBe(200);
    // As a client that autosaves what was edited: the content alone.
    const autosave = await app.api('POST', `/cms/v2/posts/${id}/autosaves`, { headers: ada.headers, json: { content: 'The ferry leaves at one.' } });
    expect(autosave.status).toBe(200);
    expect((await app.api('POST', `/cms/v2/posts/${id}/lock`, { headers: ben.headers, json: { take_over: true } })).status).toBe(200);
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: ben.headers, json: { content: 'The ferry leaves at two.' } })).status).toBe(200);

    // The new holder is offered nothing: the autosave is older than their save, and not theirs.
    const benPage = await signedIn(ben.username, ben.password, `?type=posts&id=${id}`);
    await benPage.locator('.event').first().waitFor();
    expect(await benPage.locator('.autosave-banner').count()).toBe(0);

    const page = await signedIn(ada.username, ada.password, `?type=posts&id=${id}`);
    const banner = page.locator('.autosave-banner');
    await banner.waitFor();
    expect(await banner.locator('h2').innerText()).toContain('Your autosave was kept');
    expect(await page.locator('#autosave-taken-over').innerText()).toMatch(/^Ben Takeover took over editing this post at .+, after your autosave of .+\. Ben Takeover saved it at /);
    expect(await texts(page, '.autosave-banner .field-diff[data-field=content] del')).toEqual(['two']);
    expect(await texts(page, '.autosave-banner .field-diff[data-field=content] ins')).toEqual(['one']);
    // Sent only the content: its title and excerpt, stored empty, are no deletion.
    expect(await page.locator('.autosave-banner .field-diff[data-field=title], .autosave-banner .field-diff[data-field=excerpt]').count()).toBe(0);
    expect(await texts(page, '.autosave-banner .unchanged-fields li')).toEqual(['Title: unchanged', 'Excerpt: unchanged']);
    await expectAccessible(page);
    await screenshot(page, 'autosave-taken-over');

    // Restoring it sets what it carried, and leaves the title and excerpt alone.
    await page.click('#autosave-restore');
    await page.locator('dialog.restore-dialog[open]').waitFor();
    expect(await texts(page, 'dialog .field-diff')).toHaveLength(1);
    expect(await texts(page, 'dialog .unchanged-fields li')).toEqual(['Title: unchanged', 'Excerpt: unchanged']);
    await page.click('#confirm-restore');
    await page.locator('dialog.restore-dialog').waitFor({ state: 'detached' });
    const item = (await app.api('GET', `/cms/v2/posts/${id}`, { headers: app.admin, query: { context: 'edit' } })).body;
    expect([item.title.raw, item.content.raw, item.excerpt.raw]).toEqual(['Handed over', 'The ferry leaves at one.', 'Ferry times.']);
    await banner.waitFor({ state: 'detached' });
    expect(consoleErrors.get(page)).toEqual([]);
    expect(consoleErrors.get(benPage)).toEqual([]);
  });

  it('dismisses the autosave a take-over left behind, when its holder asks', async () => {
    const { id } = await seedPost('Left behind', CONTENTS.slice(0, 2));
    const ada = await app.asRole('editor', { name: 'Ada Again' });
    const ben = await app.asRole('editor', { name: 'Ben Again' });
    expect((await app.api('POST', `/cms/v2/posts/${id}/lock`, { headers: ada.headers, json: {} })).status).toBe(200);
    expect((await app.api('POST', `/cms/v2/posts/${id}/autosaves`, { headers: ada.headers, json: { content: 'Typed, then taken over.' } })).status).toBe(200);
    expect((await app.api('POST', `/cms/v2/posts/${id}/lock`, { headers: ben.headers, json: { take_over: true } })).status).toBe(200);
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: ben.headers, json: { content: 'Saved by the new holder.' } })).status).toBe(200);
    const page = await signedIn(ada.username, ada.password, `?type=posts&id=${id}`);
    await page.locator('.autosave-banner').waitFor();
    await page.click('#autosave-discard');
    await page.locator('.autosave-banner').waitFor({ state: 'detached' });
    expect((await app.api('GET', `/cms/v2/posts/${id}/autosaves`, { headers: app.admin })).body).toEqual([]);
    expect(await contentOf(id)).toBe('Saved by the new holder.');
  });

  it('compares an autosave that carried only the content with the revision before it, showing the title as unchanged, not deleted', async () => {
    const { id, revisions } = await seedPost('Carried content', CONTENTS.slice(0, 2));
    const editor = await app.asRole('editor', { name: 'Cy Content' });
    const autosave = await app.api('POST', `/cms/v2/posts/${id}/autosaves`, { headers: editor.headers, json: { content: 'The quick brown fox naps.' } });
    expect(autosave.status).toBe(200);
    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${id}&from=${revisions.at(-1)}&to=${autosave.body.id}`);
    await page.locator('.compare .field-diff[data-field=content]').waitFor();
    expect(await page.locator('#to-label').innerText()).toContain(`Autosave ${autosave.body.id}`);
    expect(await page.locator('.compare .field-diff[data-field=title]').count()).toBe(0);
    expect(await page.locator('details.unchanged summary').innerText()).toContain('Title');
    expect(await page.locator('.field-same[data-field=title] .diff-text').textContent()).toBe('Carried content');
  });

  it('takes the lock of the item it opens, shows a lock another editor holds, and takes it over after asking', async () => {
    const lockOf = async (id: number) => (await app.api('GET', `/cms/v2/posts/${id}/lock`, { headers: app.admin })).body;
    const admin = (await app.api('GET', '/cms/v2/users/me', { headers: app.admin })).body;
    const free = await seedPost('Nobody on it', CONTENTS.slice(0, 2));
    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${free.id}`);
    await page.locator('#edit-lock').waitFor();
    expect(await lockOf(free.id)).toMatchObject({ user: admin.id });

    const { id } = await seedPost('Locked story', CONTENTS.slice(0, 2));
    const editor = await app.asRole('editor', { name: 'Lee Locker' });
    expect((await app.api('POST', `/cms/v2/posts/${id}/lock`, { headers: editor.headers, json: {} })).status).toBe(200);
    await page.goto(`${app.siteUrl}/cms-admin/?type=posts&id=${id}`);
    const notice = page.locator('#edit-lock.notice-warning');
    await notice.waitFor();
    expect(await notice.innerText()).toContain('Lee Locker has been editing this post since');
    // Leaving the first item's view released its lock; the held one was left alone.
    await expect.poll(async () => (await app.api('GET', `/cms/v2/posts/${free.id}/lock`, { headers: app.admin })).status).toBe(404);
    expect(await lockOf(id)).toMatchObject({ user: editor.id });
    await expectAccessible(page);
    await screenshot(page, 'locked');

    await page.click('#take-over');
    await page.locator('dialog[open] #confirm-take-over').waitFor();
    expect(await page.locator('dialog[open] h2').innerText()).toBe('Take over from Lee Locker?');
    await page.click('#cancel-take-over');
    expect(await lockOf(id)).toMatchObject({ user: editor.id });
    await page.click('#take-over');
    await page.click('#confirm-take-over');
    await page.locator('#edit-lock:not(.notice-warning)').waitFor();
    expect(await page.locator('#edit-lock').innerText()).toContain('You took over');
    expect(await lockOf(id)).toMatchObject({ user: admin.id });

    await page.click('.back a');
    await page.getByRole('heading', { name: 'Recent changes' }).waitFor();
    await expect.poll(async () => (await app.api('GET', `/cms/v2/posts/${id}/lock`, { headers: app.admin })).status).toBe(404);
  });

  it('shows a change scheduled for the item ahead of its past, with who scheduled it and what it sets', async () => {
    const { id } = await seedPost('Scheduled headline', CONTENTS.slice(0, 2));
    const editor = await app.asRole('editor', { name: 'Sam Scheduler' });
    const inADay = new Date(Date.now() + clockAhead + 86_400_000).toISOString().slice(0, 19);
    const scheduled = await app.api('POST', `/cms/v2/posts/${id}/scheduled-changes`, { headers: editor.headers, json: { date_gmt: inADay, title: 'Tomorrow’s headline', excerpt: 'Soon.' } });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(201);
    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${id}`);
    const row = page.locator(`.event-scheduled[data-scheduled="${scheduled.body.id}"]`);
    await row.waitFor();
    // The first day shown is the one ahead of now.
    expect(await page.locator('.day').first().innerText()).toBe('Scheduled');
    expect(await row.locator('.who').innerText()).toBe('Sam Scheduler');
    expect(await row.locator('.fields').innerText()).toBe('Title, Excerpt');
    expect(await row.locator('time').getAttribute('datetime')).toBe(`${inADay}.000Z`);
    await expectAccessible(page);
    await screenshot(page, 'scheduled');
  });

  it('names on a change who held the lock meanwhile, and on a scheduled change applied who scheduled it and what had changed since', async () => {
    const { id } = await seedPost('Applied on time', CONTENTS.slice(0, 2));
    const editor = await app.asRole('editor', { name: 'Lou Locksmith' });
    const soon = new Date(Date.now() + clockAhead + 120_000).toISOString().slice(0, 19);
    const scheduled = await app.api('POST', `/cms/v2/posts/${id}/scheduled-changes`, { headers: editor.headers, json: { date_gmt: soon, title: 'On time' } });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(201);
    // The administrator changes the title while the editor holds the lock.
    expect((await app.api('POST', `/cms/v2/posts/${id}/lock`, { headers: editor.headers, json: {} })).status).toBe(200);
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { title: 'Changed meanwhile' } })).status).toBe(200);
    clockAhead += 180_000;
    const title = async () => (await app.api('GET', `/cms/v2/posts/${id}`, { headers: app.admin, query: { context: 'edit' } })).body.title.raw;
    await expect.poll(title, { timeout: 10_000 }).toBe('On time');

    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${id}`);
    await page.locator('.event-updated').first().waitFor();
    const updates = await texts(page, '.event-updated .fields');
    expect(updates).toContainEqual(expect.stringContaining('while Lou Locksmith held the lock'));
    expect(updates).toContainEqual(expect.stringContaining('applied as scheduled by Lou Locksmith; Title had changed since'));
    expect(consoleErrors.get(page)).toEqual([]);
  });

  /** Elements of the document that carry an attribute of the hostile markup, or an event handler. */
  const injectedElements = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll('*')]
        .filter((el) => [...el.attributes].some((attr) => attr.name.startsWith('on') || /evil\.invalid|javascript:|srcdoc/i.test(`${attr.name}=${attr.value}`)))
        .map((el) => el.outerHTML.slice(0, 120)),
    );

  it("shows an administrator's hostile markup as text in every view: nothing of it runs, loads, navigates or clobbers", async () => {
    const hostile = [
      '<meta http-equiv="refresh" content="0;url=https://evil.invalid/refresh">',
      '<base href="https://evil.invalid/base/">',
      '<form id="sign-out" action="https://evil.invalid/form"><input name="user_pass"><button>Go</button></form>',
      '<img id="bar-name" src="https://evil.invalid/img.png" onerror="window.__xss = 1">',
      '<a href="javascript:window.__xss = 1">click</a><style>body { background: url(https://evil.invalid/css.png) }</style>',
      '<iframe srcdoc="<script>parent.__xss = 1</script>"></iframe><svg onload="window.__xss = 1"></svg><img src="https://evil.invalid/dangling',
    ].join('');
    const admin = await app.asRole('administrator');
    const named = await app.api('POST', '/cms/v2/users/me', { headers: admin.headers, json: { name: '<img src="https://evil.invalid/name.png">Admin' } });
    expect(named.status).toBe(200);
    const title = '<b>Bold</b><img src="https://evil.invalid/title.png" onerror="window.__xss = 1"><svg onload="window.__xss = 1"></svg><script>window.__xss = 1</script><a href="javascript:window.__xss = 1">link</a>';
    const created = await app.api('POST', '/cms/v2/posts', { headers: admin.headers, json: { title, content: 'Plain words.', status: 'publish' } });
    const { id } = created.body;
    for (const content of ['Plain words again.', `${hostile} words.`]) {
      expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: admin.headers, json: { content, excerpt: content } })).status).toBe(200);
    }
    const [from, to] = (await app.api('GET', `/cms/v2/posts/${id}/revisions`, { headers: admin.headers, query: { order: 'asc', orderby: 'date', _fields: 'id' } })).body.map((revision: { id: number }) => revision.id);
    const page = await signedIn(admin.username, admin.password);
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(app.siteUrl)) elsewhere.push(request.url());
    });
    for (const view of ['source', 'rendered']) {
      await page.goto(`${app.siteUrl}/cms-admin/?type=posts&id=${id}&from=${from}&to=${to}&view=${view}`);
      await page.locator('.field-diff[data-field=content] ins').first().waitFor();
      expect(await page.locator('.field-diff[data-field=content]').innerText()).toContain(view === 'source' ? 'evil.invalid/refresh' : 'click');
      expect(await injectedElements(page)).toEqual([]);
    }
    await page.click('#restore-from');
    await page.locator('dialog .field-diff[data-field=content]').waitFor();
    expect(await page.locator('dialog').innerText()).toContain('evil.invalid/refresh');
    expect(await injectedElements(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await page.goto(`${app.siteUrl}/cms-admin/`);
    await page.getByRole('heading', { name: 'Recent changes' }).waitFor();
    expect(await injectedElements(page)).toEqual([]);

    expect(elsewhere).toEqual([]);
    expect(page.url().startsWith(`${app.siteUrl}/cms-admin/`)).toBe(true);
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    // Nor does the page's reading of it trip the page's own CSP (Chromium reports an inline handler even in a parse that runs nothing).
    expect(violations.get(page)).toEqual([]);
  });

  it('shows a contributor neither another author’s draft nor a way to it', async () => {
    const contributor = await app.asRole('contributor');
    const secret = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Secret plans', content: 'Hidden.', status: 'draft' } });
    const own = await app.api('POST', '/cms/v2/posts', { headers: contributor.headers, json: { title: 'My own draft', content: 'Mine.', status: 'draft' } });
    const published = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Published by another', content: 'Read only.', status: 'publish' } });
    expect([secret.status, own.status, published.status]).toEqual([201, 201, 201]);

    const page = await signedIn(contributor.username, contributor.password);
    await page.getByRole('heading', { name: 'Recent changes' }).waitFor();
    const titles = await texts(page, '.item-link');
    expect(titles).toContain('My own draft');
    expect(titles).not.toContain('Secret plans');
    expect(titles).not.toContain('Published by another');
    await page.fill('#find', 'Secret');
    await page.press('#find', 'Enter');
    await page.getByRole('heading', { name: 'Results for “Secret”' }).waitFor();
    expect(await page.locator('.item-link').count()).toBe(0);

    await page.goto(`${app.siteUrl}/cms-admin/?type=posts&id=${secret.body.id}`);
    await page.getByRole('heading', { name: 'Not available' }).waitFor();
    expect(await page.content()).not.toContain('Secret plans');
    expect(await page.locator('#restore-to, #restore-from, .events').count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'not-available');

    // A subscriber may edit nothing: nothing is listed, and no item opens.
    const subscriber = await app.asRole('subscriber');
    const reader = await signedIn(subscriber.username, subscriber.password);
    await reader.getByText('Nothing you may edit has changed yet.').waitFor();
    await reader.goto(`${app.siteUrl}/cms-admin/?type=posts&id=${own.body.id}`);
    await reader.getByRole('heading', { name: 'Not available' }).waitFor();
  });

  it('pages through a long history, newest page first', async () => {
    const { id } = await seedPost('Long story', Array.from({ length: 55 }, (_, n) => `Version ${n} of the story.`));
    const history = await app.api('GET', `/cms/v2/posts/${id}/history`, { headers: app.admin, query: { per_page: 50 } });
    expect(history.headers.get('X-WP-TotalPages')).toBe('2');
    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${id}`);
    await page.locator('.pager').getByText('Page 1 of 2').waitFor();
    expect(await page.locator('.event').count()).toBe(55 - 50);
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.locator('.pager').getByText('Page 2 of 2').waitFor();
    expect(await page.locator('.event').count()).toBe(50);
    expect(await page.locator('.event .kind').last().innerText()).toBe('Created');
  });

  it('finds a menu item, and compares its fields', async () => {
    const menu = (await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Footer' } })).body.id;
    const item = await app.api('POST', '/cms/v2/menu-items', { headers: app.admin, json: { title: 'Docs link', url: 'https://example.org/docs', menus: menu, status: 'publish' } });
    expect(item.status).toBe(201);
    for (const url of ['https://example.org/manual', 'https://example.org/guide']) {
      expect((await app.api('POST', `/cms/v2/menu-items/${item.body.id}`, { headers: app.admin, json: { url } })).status).toBe(200);
    }
    const page = await signedIn();
    await page.fill('#find', 'Docs link');
    await page.press('#find', 'Enter');
    await page.getByRole('link', { name: 'Docs link' }).click();
    await page.locator('.field-diff[data-field=url]').waitFor();
    expect(await texts(page, '.field-diff[data-field=url] del')).toEqual(['manual']);
    expect(await texts(page, '.field-diff[data-field=url] ins')).toEqual(['guide']);
    expect(await page.locator('.item-head .muted').innerText()).toContain('Menu item');
  });

  it('works from the keyboard alone', async () => {
    const { id } = await seedPost('Keyboard only');
    const page = await openPage();
    await page.locator('#user_login:focus').waitFor();
    await page.keyboard.type('admin');
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Recent changes' }).waitFor();

    const focused = () => page.evaluate(() => ({ id: document.activeElement?.id ?? '', text: document.activeElement?.textContent ?? '' }));
    async function tabTo(wanted: (element: { id: string; text: string }) => boolean): Promise<void> {
      for (let presses = 0; presses < 40; presses++) {
        if (wanted(await focused())) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`nothing wanted took the focus; last: ${JSON.stringify(await focused())}`);
    }
    await tabTo((element) => element.text === 'Keyboard only');
    await page.keyboard.press('Enter');
    await page.waitForFunction((item) => new URL(window.location.href).searchParams.get('id') === String(item), id);
    await page.locator('.field-diff[data-field=content]').waitFor();

    // The newest two revisions are compared first; the older handle moves back one.
    await tabTo((element) => element.id === 'scrub-from');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => [...document.querySelectorAll('.field-diff[data-field=content] ins')].some((ins) => ins.textContent === 'red'));

    await tabTo((element) => element.id === 'restore-from');
    await page.keyboard.press('Enter');
    await page.locator('dialog.restore-dialog[open]').waitFor();
    expect((await focused()).id).toBe('confirm-restore');
    await page.keyboard.press('Escape');
    await page.locator('dialog.restore-dialog').waitFor({ state: 'detached' });
    expect((await focused()).id).toBe('restore-from');
  });

  it('signs out, after which the session is gone', async () => {
    const page = await signedIn();
    await page.click('#sign-out');
    await page.locator('#user_login').waitFor();
    expect(await page.evaluate(async () => (await fetch('session', { credentials: 'same-origin' })).status)).toBe(204);
    await page.reload();
    await page.locator('#user_login').waitFor();
  });

  it('refuses a request that carries the session cookie but not the nonce', async () => {
    const page = await signedIn();
    const forged = await page.evaluate(async () => {
      const send = (headers: Record<string, string>) =>
        fetch('../cms-json/cms/v2/posts', { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ title: 'Forged', status: 'publish' }) });
      return [(await send({})).status, (await send({ 'X-WP-Nonce': 'not-the-nonce' })).status];
    });
    expect(forged).toEqual([401, 403]);
    const found = await app.api('GET', '/cms/v2/posts', { headers: app.admin, query: { search: 'Forged', status: 'any', context: 'edit' } });
    expect(found.body).toEqual([]);
  });

  // Moves the service's clock a day on: keep it last but one.
  it('gets a fresh nonce when the page was left open for a day, and carries on', async () => {
    const { id, revisions } = await seedPost('Left open overnight');
    const page = await signedIn('admin', ADMIN_PASSWORD, `?type=posts&id=${id}&from=${revisions[0]}&to=${revisions[1]}`);
    await page.locator('#restore-from').waitFor();
    await page.locator('.event').first().waitFor();
    await page.waitForLoadState('networkidle');
    clockAhead = 25 * 60 * 60 * 1000;
    const answers: string[] = [];
    // Comparisons fetched ahead may still be arriving: only the item and the nonce are followed.
    page.on('response', (response) => !response.url().includes('/diff') && answers.push(`${response.status()} ${new URL(response.url()).pathname}`));
    await page.click('#restore-from');
    await page.locator('dialog.restore-dialog[open]').waitFor();
    expect(answers).toEqual([`403 /cms-json/cms/v2/posts/${id}`, '200 /cms-admin/session/nonce', `200 /cms-json/cms/v2/posts/${id}`]);
  });

  it('broke no Content-Security-Policy rule on any page', () => {
    expect([...violations.values()].flat()).toEqual([]);
  });
});
