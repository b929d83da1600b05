// Bundles the admin page (admin/) into dist/admin-page: one script, one style sheet, the HTML.
//   npm run build (after tsc) runs it; the browser tests call buildAdminPage() before starting.
import { copyFile, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { adminPageDir } from '../src/admin-page/admin-page.serve.js';

const root = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  // From scripts/ when run as TypeScript, from dist/scripts/ when compiled.
  return here.endsWith(join('dist', 'scripts')) ? join(here, '..', '..') : join(here, '..');
})();

/** Builds the page; returns each output file's size in bytes, by name. */
export async function buildAdminPage(outDir = adminPageDir()): Promise<Record<string, number>> {
  const source = join(root, 'admin');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: { 'admin': join(source, 'src', 'main.ts'), 'admin-style': join(source, 'admin.css') },
    outdir: outDir,
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'warning',
  });
  await copyFile(join(source, 'index.html'), join(outDir, 'index.html'));
  const sizes: Record<string, number> = {};
  for (const name of await readdir(outDir)) sizes[name] = (await stat(join(outDir, name))).size;
  return sizes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = await buildAdminPage();
  const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
  console.log(`admin page: ${Object.keys(sizes).join(', ')} (${(total / 1024).toFixed(1)} KB)`);
}
