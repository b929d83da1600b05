import { type Router } from 'express';
import { builtPageDir, builtPageRouter } from './admin-page.serve.js';

/**
 * Where the API reference is served: beside `/cms-admin/`, outside the API's own prefix, so that
 * it is no route of the API and the OpenAPI document it renders does not list it.
 */
export const API_REFERENCE_PATH = '/cms-api-reference';

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
