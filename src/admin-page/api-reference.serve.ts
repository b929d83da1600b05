import { type Router } from 'express';
import { builtPageDir, builtPageRouter } from './admin-page.serve.js';
import { API_REFERENCE_PATH } from './api-reference.path.js';

/** Where `npm run build` puts the reference: `dist/api-reference`. */
export function apiReferenceDir(from?: string): string {
  return builtPageDir('api-reference', from);
}

/**
 * `/cms-api-reference/`: Swagger UI reading the service's own OpenAPI document, under the history
 * page's headers (its CSP allows no inline script or style, and Swagger UI needs none).
 */
export function apiReferenceRouter(dir = apiReferenceDir()): Router {
  return builtPageRouter(API_REFERENCE_PATH, dir, 'API reference');
}
