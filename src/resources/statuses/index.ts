import { type ResourceManifest } from '../manifest.js';
import { statusRoutes } from './status.routes.js';

export const statusesResource: ResourceManifest = { routes: statusRoutes };
