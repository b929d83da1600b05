import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium unless `CHROMIUM_PATH` names another; browsers are never downloaded. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumFound = existsSync(CHROMIUM_PATH);

/** Where the browser tests leave a screenshot of each page they see (gitignored). */
export const SCREENSHOTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');

export async function launchChromium(): Promise<Browser> {
  await mkdir(SCREENSHOTS_DIR, { recursive: true });
  // Chromium's sandbox needs user namespaces that containers (and root) often lack.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}.png`), fullPage: true });
}

/** Every message Chromium logs about a blocked resource or inline code: a CSP the page breaks. */
export function cspViolations(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) seen.push(message.text());
  });
  return seen;
}

let axeSource: string | undefined;

/**
 * axe-core's serious and critical findings on the page as it is. The script is evaluated through
 * the browser's debugging protocol, which the page's CSP does not govern (it is the test's, not
 * the page's).
 */
export async function seriousAxeViolations(page: Page): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((node) => node.target.join(' ')) }));
  });
  return found.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
