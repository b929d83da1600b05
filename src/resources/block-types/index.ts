import { type ResourceManifest } from '../manifest.js';
import { blockTypeRoutes } from './block-type.routes.js';

/** Core block types from `blocks/core`, and those of the active plugins, read from the database on each request. */
export const blockTypesResource: ResourceManifest = { routes: blockTypeRoutes };
