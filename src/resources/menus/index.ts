import { findTaxonomy } from '../../registry/taxonomies.js';
import { type ResourceManifest } from '../manifest.js';
import { termRoutes } from '../terms/index.js';
import { addPublishedPageToMenus } from './menu.auto-add.js';
import { menuExtension } from './menu.extension.js';
import { menuLocationIndexes } from './menu.locations.js';
import { menuRestoreRoutes } from './menu.restore.js';

export { activeLocations } from './menu.locations.js';

/** `/menus`: the `nav_menu` taxonomy through the terms controller (its indexes are the terms'). */
export const menusResource: ResourceManifest = {
  routes: [...termRoutes(findTaxonomy('nav_menu')!, menuExtension), ...menuRestoreRoutes],
  indexes: menuLocationIndexes,
  hooks: { afterPostWrite: addPublishedPageToMenus },
};
