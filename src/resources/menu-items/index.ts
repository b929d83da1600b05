import { can } from '../../auth/capabilities.js';
import { autosaveRoutes } from '../autosaves/index.js';
import { historyRoutes, type HistorySubject } from '../history/index.js';
import { revisionRoutes } from '../revisions/index.js';
import { type ResourceManifest } from '../manifest.js';
import { findMenuItem } from './menu-item.commands.js';
import { menuItemIndexes } from './menu-item.model.js';
import { menuItemsProjection } from './menu-item.projection.js';
import { menuItemRevisions } from './menu-item.revisions.js';
import { menuItemRoutes } from './menu-item.routes.js';

export { deleteItemsOfMenu, menuHasItems, taggedMenuItem } from './menu-item.commands.js';
export { prepareMenuItems, restoreMenuAt } from './menu-item.as-of.js';
export { menuItemSchema } from './menu-item.schema.js';

const menuItemHistorySubject: HistorySubject = {
  rest_namespace: 'cms/v2',
  rest_base: 'menu-items',
  find: (deps, id) => findMenuItem(deps, Number.isSafeInteger(id) ? id : 0),
  mayRead: (req) => can(req.user, 'edit_theme_options'),
};

/**
 * Menu items: their own read model, kept from the change log by the kernel posts and pages use,
 * with autosaves, revisions (diff and restore) and history through the same routes as posts.
 */
export const menuItemsResource: ResourceManifest = {
  routes: [...menuItemRoutes, ...autosaveRoutes(menuItemRevisions), ...revisionRoutes(menuItemRevisions), ...historyRoutes(menuItemHistorySubject)],
  indexes: menuItemIndexes,
  projections: [menuItemsProjection],
};
