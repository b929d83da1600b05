import express from 'express';
import { type Deps } from '../deps.js';
import { sessionRoutes, type SessionRouteOptions } from './session.routes.js';

import { ADMIN_PREFIX } from './prefix.js';

export { ADMIN_PREFIX };

/**
 * Everything under `/cms-admin/`. Its answers are never framed, sniffed or sent with a referrer;
 * JSON answers get a CSP that allows nothing (a page served here sets its own).
 */
export function adminRoutes(deps: Deps, options: SessionRouteOptions): express.Router {
  const router = express.Router();
  router.use(ADMIN_PREFIX, (_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    next();
  });
  router.use(ADMIN_PREFIX, sessionRoutes(deps, options));
  return router;
}
