import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadThemes, ThemeError } from './themes.js';

const shipped = path.resolve('themes/cornerstone');
const roots: string[] = [];
afterAll(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })));

/** A themes folder holding a copy of the default theme, changed by `change`. */
function themesWith(change: (theme: string) => void): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-themes-'));
  roots.push(root);
  const theme = path.join(root, 'cornerstone');
  fs.cpSync(shipped, theme, { recursive: true });
  change(theme);
  return root;
}

function loadError(themesDir: string, theme = 'cornerstone'): ThemeError {
  try {
    loadThemes({ themesDir, theme });
  } catch (error) {
    if (error instanceof ThemeError) return error;
    throw error;
  }
  throw new Error('the themes loaded');
}

describe('loadThemes', () => {
  it('loads the shipped default theme', () => {
    const themes = loadThemes({ themesDir: path.dirname(shipped), theme: 'cornerstone' });
    const theme = themes.active;
    expect([...theme.templates.keys()]).toEqual(expect.arrayContaining(['index', 'home', 'single', 'page', 'archive', 'search', '404']));
    expect([...theme.parts.values()].map((part) => [part.slug, part.area])).toEqual([['footer', 'footer'], ['header', 'header'], ['sidebar', 'uncategorized']]);
    expect([...theme.menuLocations.keys()]).toEqual(['primary', 'footer']);
    expect(theme.sidebars.map((sidebar) => sidebar.id)).toEqual(['sidebar-1', 'footer-1']);
    expect(theme.variations.length).toBeGreaterThanOrEqual(2);
    expect(theme.isBlockTheme).toBe(true);
  });

  it('names the file and the problem of a broken theme', () => {
    const cases: [string, (theme: string) => void, string, RegExp][] = [
      ['bad JSON', (theme) => fs.writeFileSync(path.join(theme, 'theme.json'), '{"version": 3,'), 'theme.json', /is not valid JSON/],
      ['a missing manifest', (theme) => fs.rmSync(path.join(theme, 'theme-manifest.json')), 'theme-manifest.json', /is missing/],
      ['a manifest without a name', (theme) => fs.writeFileSync(path.join(theme, 'theme-manifest.json'), '{"version":"1"}'), 'theme-manifest.json', /name/],
      ['an unknown theme.json key', (theme) => fs.writeFileSync(path.join(theme, 'theme.json'), '{"version":3,"stiles":{}}'), 'theme.json', /stiles/],
      ['a bad palette', (theme) => fs.writeFileSync(path.join(theme, 'theme.json'), '{"version":3,"settings":{"color":{"palette":[{"name":"x"}]}}}'), 'theme.json', /palette/],
      ['a bad variation', (theme) => fs.writeFileSync(path.join(theme, 'styles', 'broken.json'), '{"version":9}'), path.join('styles', 'broken.json'), /version/],
      ['a template outside the folder', (theme) => fs.symlinkSync('/etc/hostname', path.join(theme, 'templates', 'leak.html')), path.join('templates', 'leak.html'), /outside the theme folder/],
      ['a parts folder outside the folder', (theme) => {
        fs.rmSync(path.join(theme, 'parts'), { recursive: true });
        fs.symlinkSync(os.tmpdir(), path.join(theme, 'parts'));
      }, 'parts', /outside the theme folder/],
      ['a template name that is no slug', (theme) => fs.writeFileSync(path.join(theme, 'templates', 'a.b.html'), ''), path.join('templates', 'a.b.html'), /not a template slug/],
    ];
    for (const [what, change, file, problem] of cases) {
      const root = themesWith(change);
      const error = loadError(root);
      expect(error.file, what).toBe(path.join(root, 'cornerstone', file));
      expect(error.message, what).toMatch(problem);
    }
  });

  it('refuses an active theme that is not there', () => {
    const error = loadError(path.dirname(shipped), 'missing-theme');
    expect(error.message).toMatch(/missing-theme: is not a theme folder \(CMS_THEME=missing-theme\)/);
  });
});
