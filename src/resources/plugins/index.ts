import { type ResourceManifest } from '../manifest.js';
import { pluginRoutes } from './plugin.routes.js';

/** Installed plugins, one document each in the small `plugins` collection (its `_id` is the plugin's identifier). */
export { activePluginBlockTypes } from './plugin.model.js';

export const pluginsResource: ResourceManifest = { routes: pluginRoutes };
