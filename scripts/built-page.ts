// What the scripts that build a page (build-admin-page.ts, build-api-reference.ts) share.
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's folder: scripts/ is one below it as TypeScript, dist/scripts/ two when compiled. */
export const projectRoot = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.endsWith(join('dist', 'scripts')) ? join(here, '..', '..') : join(here, '..');
})();

/**
 * Moves each file of `staging` into `outDir`, one by one, so that a service serving the page
 * meanwhile never sends half a file, then removes what an earlier build left that this one did not
 * write (a file the page no longer has is not served on); returns each file's size, by name.
 */
export async function moveBuiltFiles(staging: string, outDir: string): Promise<Record<string, number>> {
  await mkdir(outDir, { recursive: true });
  const sizes: Record<string, number> = {};
  for (const name of await readdir(staging)) {
    sizes[name] = (await stat(join(staging, name))).size;
    await rename(join(staging, name), join(outDir, name));
  }
  await rm(staging, { recursive: true, force: true });
  for (const name of await readdir(outDir)) {
    if (!(name in sizes)) await rm(join(outDir, name), { recursive: true, force: true });
  }
  return sizes;
}

/** A line for the build's output: the files written and their total size. */
export function builtSummary(page: string, sizes: Record<string, number>): string {
  const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
  return `${page}: ${Object.keys(sizes).join(', ')} (${(total / 1024).toFixed(1)} KB)`;
}
