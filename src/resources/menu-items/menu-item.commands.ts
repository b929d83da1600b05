import { type Deps } from '../../deps.js';
import { type TaggedPost } from '../terms/term.queries.js';
import { ifMatchPasses, type IfMatch } from '../../rest/conditional.js';
import { createItem, loadItem, runCommand } from '../../store/kernel.js';
import { type MenuItemUpdated } from './menu-item.events.js';
import { menuItemHistory } from './menu-item.history.js';
import { menuItemsCollection, type MenuItemDoc, type MenuItemFields } from './menu-item.model.js';
import { MENU_ITEM_STREAM_TYPE } from './menu-item.projection.js';

export const findMenuItem = (deps: Deps, id: number) => loadItem(deps, menuItemHistory, id);

export function createMenuItem(deps: Deps, fields: MenuItemFields, actor: number): Promise<MenuItemDoc> {
  return deps.ids.next('content').then((id) => createItem(deps, menuItemHistory, MENU_ITEM_STREAM_TYPE, id, actor, { type: 'created', data: { fields } }));
}

/** Changes an item; nothing is appended when nothing changes. */
export async function updateMenuItem(
  deps: Deps,
  id: number,
  changes: (doc: MenuItemDoc) => Partial<MenuItemFields>,
  actor: number,
  ifMatch?: IfMatch,
): Promise<MenuItemDoc> {
  const { state } = await runCommand<MenuItemDoc, MenuItemUpdated>(
    deps,
    menuItemHistory,
    id,
    actor,
    async (doc) => {
      const wanted = changes(doc);
      const changed = Object.fromEntries(Object.entries(wanted).filter(([field, value]) => doc[field as keyof MenuItemFields] !== value));
      if (!Object.keys(changed).length) return null;
      return { type: 'updated', data: { changes: { ...changed, modified: deps.clock().toISOString() } } };
    },
    ifMatch ? { precondition: (etag) => ifMatchPasses(ifMatch, etag) } : {},
  );
  return state!;
}

/**
 * Deletes an item for good, erasing its content from the log, and gives its children its parent
 * (as `wp_delete_post` does for menu items).
 */
export async function deleteMenuItem(deps: Deps, doc: MenuItemDoc, actor: number, ifMatch?: IfMatch): Promise<void> {
  await runCommand(deps, menuItemHistory, doc._id, actor, async () => ({ type: 'deleted', data: {}, erase: 'all' as const }), ifMatch ? { precondition: (etag) => ifMatchPasses(ifMatch, etag) } : {});
  const children = await menuItemsCollection(deps.store.db).find({ parent: doc._id }, { projection: { _id: 1 } }).toArray();
  for (const child of children) await updateMenuItem(deps, child._id, () => ({ parent: doc.parent }), actor);
}

/** Every item of a menu, whatever its status. */
export function itemsOfMenu(deps: Deps, menu: number): Promise<MenuItemDoc[]> {
  return menuItemsCollection(deps.store.db).find({ menu }).toArray();
}

/** Every item of a deleted menu goes with it. */
export async function deleteItemsOfMenu(deps: Deps, menu: number, actor: number): Promise<void> {
  for (const { _id } of await itemsOfMenu(deps, menu)) {
    await runCommand(deps, menuItemHistory, _id, actor, async () => ({ type: 'deleted', data: {}, erase: 'all' as const }));
  }
}

/** A menu item as the terms controller's `post` filter reads a tagged object: its menu is its one `nav_menu` term. */
export async function taggedMenuItem(deps: Deps, id: number): Promise<TaggedPost | null> {
  const item = await menuItemsCollection(deps.store.db).findOne({ _id: id }, { projection: { status: 1, author: 1, menu: 1 } });
  return item && { _id: item._id, type: MENU_ITEM_STREAM_TYPE, status: item.status, author: item.author, terms: { nav_menu: item.menu ? [item.menu] : [] } };
}
