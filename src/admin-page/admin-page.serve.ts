import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Response, type Router } from 'express';

/** Where the history browser is served from. */
export const ADMIN_PATH = '/cms-admin';

/**
 * The page runs only its own files: no inline script or style, nothing from another origin, and
 * it may not be framed (clickjacking a restore button is the attack this closes).
 */
export const ADMIN_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/**
 * The folder `npm run build` writes a page into (`dist/<name>`), found from the project root so
 * that the service finds it whether it runs from `dist/` or from its TypeScript source.
 */
export function builtPageDir(name: string, from = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return join(from, name);
    dir = up;
  }
  return join(dir, 'dist', name);
}

/** Where `npm run build` bundles the history page: `dist/admin-page`. */
export function adminPageDir(from?: string): string {
  return builtPageDir('admin-page', from);
}

function withPageHeaders(res: Response): void {
  for (const [name, value] of Object.entries(ADMIN_PAGE_HEADERS)) res.setHeader(name, value);
}

/**
 * A built page at `<path>/` and its assets, with the page's security headers. No directory
 * listing; every file is revalidated on each load so a new build is picked up, while the file
 * names stay the same (`no-cache` costs one 304).
 */
export function builtPageRouter(path: string, dir: string, pageName: string): Router {
  const router = express.Router({ strict: true });
  router.get(path, (req, res) => {
    const mark = req.originalUrl.indexOf('?');
    res.redirect(301, `${path}/${mark < 0 ? '' : req.originalUrl.slice(mark)}`);
  });
  router.use(path, (req, res, next) => {
    withPageHeaders(res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (!existsSync(join(dir, 'index.html'))) {
      res.status(503).type('text/plain').send(`The ${pageName} is not built: run \`npm run build\`.`);
      return;
    }
    next();
  });
  router.use(
    path,
    express.static(dir, {
      index: 'index.html',
      redirect: false,
      dotfiles: 'ignore',
      fallthrough: true,
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );
  return router;
}

/** `/cms-admin/`: the history page. */
export function adminPageRouter(dir = adminPageDir()): Router {
  return builtPageRouter(ADMIN_PATH, dir, 'admin page');
}
