// Bundles the admin page (admin/) into dist/admin-page: one script, one style sheet, the HTML.
//   npm run build (after tsc) runs it; the browser tests call buildAdminPage() before starting.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { adminPageDir } from '../src/admin-page/admin-page.serve.js';
import { builtSummary, moveBuiltFiles, projectRoot as root } from './built-page.js';

/**
 * Builds the page; returns each output file's size in bytes, by name. Files are written beside
 * the folder and moved in one by one, so a service serving it meanwhile never sends half a file.
 */
export async function buildAdminPage(outDir = adminPageDir()): Promise<Record<string, number>> {
  const source = join(root, 'admin');
  const staging = `${outDir}.${process.pid}.tmp`;
  await mkdir(staging, { recursive: true });
  await build({
    entryPoints: { 'admin': join(source, 'src', 'main.ts'), 'admin-style': join(source, 'admin.css') },
    outdir: staging,
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'warning',
    // htmlparser2's entry also re-exports domutils, which esbuild keeps whole (some 80 KB the
    // page never calls): the page is given the module of the Parser it imports, alone.
    alias: { htmlparser2: join(root, 'node_modules', 'htmlparser2', 'dist', 'esm', 'Parser.js') },
  });
  await copyFile(join(source, 'index.html'), join(staging, 'index.html'));
  return moveBuiltFiles(staging, outDir);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(builtSummary('admin page', await buildAdminPage()));
}
