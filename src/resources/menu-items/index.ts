import { type ResourceManifest } from '../manifest.js';
import { menuItemIndexes } from './menu-item.model.js';
import { menuItemsProjection } from './menu-item.projection.js';
import { menuItemRoutes } from './menu-item.routes.js';

export { deleteItemsOfMenu, taggedMenuItem } from './menu-item.commands.js';

/** Menu items: their own read model, kept from the change log by the kernel posts and pages use. */
export const menuItemsResource: ResourceManifest = {
  routes: menuItemRoutes,
  indexes: menuItemIndexes,
  projections: [menuItemsProjection],
};
