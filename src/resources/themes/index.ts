import { type ResourceManifest } from '../manifest.js';
import { themeRoutes } from './theme.routes.js';

export const themesResource: ResourceManifest = { routes: themeRoutes };
