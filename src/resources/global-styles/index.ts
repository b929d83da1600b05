import { type ResourceManifest } from '../manifest.js';
import { globalStylesIndexes } from './global-styles.model.js';
import { globalStylesRoutes } from './global-styles.routes.js';

export { ensureGlobalStyles, findGlobalStylesOfTheme } from './global-styles.model.js';

export const globalStylesResource: ResourceManifest = { routes: globalStylesRoutes, indexes: globalStylesIndexes };
