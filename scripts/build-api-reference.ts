// Builds the API reference page (admin/api-reference/) into dist/api-reference: our HTML, style
// sheet and start-up script, beside Swagger UI's prebuilt bundle and style sheet, copied from its
// npm package (swagger-ui-dist) with their licences.
//   npm run build (after tsc) runs it; the page's tests call buildApiReference() before starting.
import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { apiReferenceDir } from '../src/admin-page/api-reference.serve.js';
import { builtSummary, moveBuiltFiles, projectRoot as root } from './built-page.js';

/** Swagger UI's files the page loads, and the licences that go with them, by name in the package and as served. */
const SWAGGER_UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.LICENSE.txt': 'swagger-ui-bundle.js.LICENSE.txt',
  'swagger-ui.css': 'swagger-ui.css',
  LICENSE: 'swagger-ui.LICENSE.txt',
  NOTICE: 'swagger-ui.NOTICE.txt',
};

/** Builds the page; returns each output file's size in bytes, by name. */
export async function buildApiReference(outDir = apiReferenceDir()): Promise<Record<string, number>> {
  const source = join(root, 'admin', 'api-reference');
  const swaggerUi = dirname(createRequire(join(root, 'package.json')).resolve('swagger-ui-dist/package.json'));
  const staging = `${outDir}.${process.pid}.tmp`;
  await mkdir(staging, { recursive: true });
  await build({
    entryPoints: { 'api-reference': join(source, 'main.ts') },
    outdir: staging,
    bundle: true,
    minify: true,
    // A classic script, deferred after Swagger UI's bundle, whose global it calls.
    format: 'iife',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const name of ['index.html', 'api-reference.css']) await copyFile(join(source, name), join(staging, name));
  for (const [name, served] of Object.entries(SWAGGER_UI_FILES)) await copyFile(join(swaggerUi, name), join(staging, served));
  return moveBuiltFiles(staging, outDir);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(builtSummary('API reference', await buildApiReference()));
}
