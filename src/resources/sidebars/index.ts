import { type ResourceManifest } from '../manifest.js';
import { sidebarRoutes } from './sidebar.routes.js';

export const sidebarsResource: ResourceManifest = { routes: sidebarRoutes };
