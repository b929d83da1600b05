import { type ResourceManifest } from '../manifest.js';
import { taxonomyRoutes } from './taxonomy.routes.js';

export const taxonomiesResource: ResourceManifest = { routes: taxonomyRoutes };
