import { type ResourceManifest } from '../manifest.js';
import { menuLocationRoutes } from './menu-location.routes.js';

export const menuLocationsResource: ResourceManifest = { routes: menuLocationRoutes };
