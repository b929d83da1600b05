import { can } from '../../auth/capabilities.js';
import { autosaveRoutes } from '../autosaves/index.js';
import { historyRoutes, type HistorySubject } from '../history/index.js';
import { revisionRoutes } from '../revisions/index.js';
import { lockRoutes } from '../locks/index.js';
import { type ResourceManifest } from '../manifest.js';
import { findMenuItem } from './menu-item.commands.js';
import { menuItemHistory } from './menu-item.history.js';
import { MENU_ITEM_CONTENT_FIELDS, menuItemIndexes, type MenuItemDoc } from './menu-item.model.js';
import { MENU_ITEM_STREAM_TYPE, menuItemsProjection } from './menu-item.projection.js';
import { menuItemRevisions } from './menu-item.revisions.js';
import { menuItemRoutes } from './menu-item.routes.js';
import { canEditMenuItems } from './menu-item.permissions.js';
import { linkedObjects, prepareMenuItem } from './menu-item.serializer.js';
import { type ChangeSource } from '../manifest.js';
import { filterByContext } from '../../rest/item-schema.js';
import { menuItemSchema } from './menu-item.schema.js';
import { type RevisionDoc } from '../posts/index.js';

export { createMenuItem, deleteItemsOfMenu, itemsOfMenu, menuHasItems, taggedMenuItem } from './menu-item.commands.js';
export { prepareMenuItems, restoreMenuAt } from './menu-item.as-of.js';
export { menuItemSchema } from './menu-item.schema.js';

/** A menu item's stored `menu` is its `menus` on the wire. */
const menuItemWireNames = (field: string) => (field === 'menu' ? ['menus'] : undefined);

const menuItemHistorySubject: HistorySubject<MenuItemDoc> = {
  route: menuItemRevisions.route,
  find: (deps, id) => findMenuItem(deps, Number.isSafeInteger(Number(id)) ? Number(id) : 0),
  mayRead: (req) => can(req.user, 'edit_theme_options'),
  wireNames: menuItemWireNames,
};

const mayManageMenus = (user: Parameters<typeof can>[0]) => can(user, 'edit_theme_options');

/** Menu items in the change feed: only for those who manage menus (WordPress shows menu items to no one else). */
const menuItemChangeSource: ChangeSource<MenuItemDoc> = {
  itemTypes: [MENU_ITEM_STREAM_TYPE],
  history: menuItemHistory,
  mayReadHistory: mayManageMenus,
  mayRead: mayManageMenus,
  isPublic: () => false,
  longFields: MENU_ITEM_CONTENT_FIELDS,
  diffFields: menuItemRevisions.diffFields,
  wireNames: menuItemWireNames,
  // A revision keeps every field of the item it was made from: its text is read the same way.
  fieldText: (doc, field) => menuItemRevisions.fieldText({ title: doc.title, item: { ...doc } } as unknown as RevisionDoc, field),
  async prepare(docs, req, deps) {
    const linked = await linkedObjects(deps, docs);
    return filterByContext(menuItemSchema, docs.map((doc) => prepareMenuItem(doc, req, deps, linked)), 'view') as Record<string, unknown>[];
  },
};

/**
 * Menu items: their own read model, kept from the change log by the kernel posts and pages use,
 * with autosaves, revisions (diff and restore) and history through the same routes as posts.
 */
export const menuItemsResource: ResourceManifest = {
  routes: [...menuItemRoutes, ...autosaveRoutes(menuItemRevisions), ...revisionRoutes(menuItemRevisions), ...historyRoutes(menuItemHistorySubject), ...lockRoutes(menuItemRevisions, { permission: canEditMenuItems })],
  indexes: menuItemIndexes,
  projections: [menuItemsProjection],
  changeSources: [menuItemChangeSource],
};
