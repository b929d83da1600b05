import { expect } from 'vitest';
import { ADMIN_PAGE_HEADERS } from '../../src/admin-page/admin-page.serve.js';

/** What a page loads from the service (an inline `data:` icon is no request). */
export function assetsOf(html: string): string[] {
  return [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((match) => match[1]).filter((asset) => !asset.startsWith('data:'));
}

/**
 * The headers the service's own pages (the history page, the API reference) and their files are
 * served with: a strict Content-Security-Policy (nothing inline, nothing from elsewhere), no
 * framing, no sniffing.
 */
export function expectPageHeaders(headers: Headers, label?: string): void {
  const sent = Object.fromEntries(Object.keys(ADMIN_PAGE_HEADERS).map((name) => [name, headers.get(name)]));
  expect(sent, label).toEqual(ADMIN_PAGE_HEADERS);
  const csp = headers.get('content-security-policy') ?? '';
  for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"]) expect(csp, label).toContain(directive);
  expect(csp, label).not.toContain('unsafe-');
  expect(headers.get('x-frame-options'), label).toBe('DENY');
  expect(headers.get('x-content-type-options'), label).toBe('nosniff');
  expect(headers.get('referrer-policy'), label).toBe('same-origin');
}

/** A page's HTML names no inline script, no inline style or handler, and nothing from another origin. */
export function expectSelfContained(html: string): void {
  expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
  expect(html).not.toMatch(/\sstyle=|<style|\son\w+=/i);
  expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
}
