import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, runService } from '../support/service-process.js';
import { createTestApp } from '../support/test-app.js';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })));

function themesFolder(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-themes-'));
  roots.push(root);
  fs.cpSync(path.resolve('themes/cornerstone'), path.join(root, 'cornerstone'), { recursive: true });
  return root;
}

describe('themes at start-up', () => {
  it('stops the service on a broken theme, naming the file and the problem', async () => {
    const root = themesFolder();
    fs.writeFileSync(path.join(root, 'cornerstone', 'theme.json'), '{ "version": 3, ');
    const service = runService(baseEnv({ CMS_THEMES_DIR: root }));
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toContain(`Theme error: ${path.join(root, 'cornerstone', 'theme.json')}: is not valid JSON`);
  });

  it('stops the service when CMS_THEME names no theme folder', async () => {
    const service = runService(baseEnv({ CMS_THEME: 'nowhere' }));
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toMatch(/Theme error: .*nowhere: is not a theme folder \(CMS_THEME=nowhere\)/);
  });

  it('serves the theme CMS_THEME picks, the others inactive', async () => {
    const root = themesFolder();
    fs.cpSync(path.join(root, 'cornerstone'), path.join(root, 'second'), { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'second', 'theme-manifest.json'), 'utf8'));
    fs.writeFileSync(path.join(root, 'second', 'theme-manifest.json'), JSON.stringify({ ...manifest, name: 'Second' }));
    fs.writeFileSync(path.join(root, 'second', 'templates', 'index.html'), '<!-- wp:paragraph --><p>second</p><!-- /wp:paragraph -->');
    const app = await createTestApp({ env: { CMS_THEMES_DIR: root, CMS_THEME: 'second' } });
    try {
      const themes = await app.api('GET', '/cms/v2/themes', { headers: app.admin });
      expect(themes.body.map((theme: { stylesheet: string; status: string }) => [theme.stylesheet, theme.status])).toEqual([
        ['cornerstone', 'inactive'],
        ['second', 'active'],
      ]);
      expect(themes.body[0]._links['wp:user-global-styles']).toBeUndefined();
      const inactive = await app.api('GET', '/cms/v2/themes', { headers: app.admin, query: { status: ['inactive'] } });
      expect(inactive.body.map((theme: { stylesheet: string }) => theme.stylesheet)).toEqual(['cornerstone']);
      const index = await app.api('GET', '/cms/v2/templates/second//index', { headers: app.admin });
      expect(index.body.content.raw).toContain('second');
      const other = await app.api('GET', '/cms/v2/templates/cornerstone//index', { headers: app.admin });
      expect(other.status).toBe(404);
      const styles = await app.api('GET', '/cms/v2/global-styles/themes/cornerstone', { headers: app.admin });
      expect(styles.status).toBe(404);
    } finally {
      await app.stop();
    }
  });
});
