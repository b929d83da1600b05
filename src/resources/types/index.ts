import { type ResourceManifest } from '../manifest.js';
import { typeRoutes } from './type.routes.js';

export const typesResource: ResourceManifest = { routes: typeRoutes };
