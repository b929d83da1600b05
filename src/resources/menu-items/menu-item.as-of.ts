import { type Deps } from '../../deps.js';
import { asOfAnswer, asOfListTag, HISTORY_ITEM_LINKS, pinLinks, requestedPosition, restorePosition } from '../../rest/as-of.js';
import { ifMatchOf, ifMatchPasses, type IfMatch } from '../../rest/conditional.js';
import { PreconditionFailed } from '../../rest/errors.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestResponse } from '../../rest/rest-response.js';
import { listAt, stateAt, streamsDeletedSince } from '../../store/history/as-of.js';
import { PostInvalidPage } from '../posts/index.js';
import { createMenuItem, deleteMenuItem, findMenuItem, itemsOfMenu, updateMenuItem } from './menu-item.commands.js';
import { PostInvalidId } from '../post-errors.js';
import { menuItemHistory } from './menu-item.history.js';
import { admitMenuItem, admitMenuItemPlace, admitRestoredMenuItem } from './menu-item.input.js';
import { menuItemsCollection, type MenuItemDoc, type MenuItemFields, menuStateTag } from './menu-item.model.js';
import { MENU_ITEM_STREAM_TYPE } from './menu-item.projection.js';
import { filterKeptText } from './menu-item.revisions.js';
import { menuItemListIndex } from './menu-item.projection.js';
import { menuItemListQuery } from './menu-item.queries.js';
import { linkedObjects, prepareMenuItem, prepareOne } from './menu-item.serializer.js';


/**
 * `GET /menu-items/<id>?as_of=...`: the item as it stood then. Who may read menu items may read
 * their revisions (both take `edit_theme_options`), so the route's own permission is the rule.
 */
export async function getMenuItemAt(req: RestRequest, deps: Deps): Promise<RestResponse> {
  const current = await findMenuItem(deps, Number(req.params.id));
  const position = (await requestedPosition(req, deps.store.db, deps.clock()))!;
  const doc = await stateAt(deps.store.db, menuItemHistory, current._id, position, current);
  if (!doc) throw new PostInvalidId();
  const data = pinLinks(await prepareOne(doc, req, deps), position, HISTORY_ITEM_LINKS);
  return asOfAnswer(new RestResponse(data), position, `${doc._id}@${position}:${req.context}`);
}

/** `GET /menu-items?as_of=...` (and `?menus=<id>`): a page of the items as they stood then. */
export async function listMenuItemsAt(req: RestRequest, deps: Deps): Promise<RestResponse> {
  const position = (await requestedPosition(req, deps.store.db, deps.clock()))!;
  const { filter, sort, reorder } = await menuItemListQuery(req, deps);
  const window = pageWindow(req.params);
  const { docs, total } = await listAt(deps.store.db, {
    type: menuItemHistory,
    index: menuItemListIndex,
    collection: menuItemsCollection(deps.store.db),
    position,
    filter,
    sort,
    readable: () => true,
    skip: window.skip,
    limit: window.perPage,
  });
  reorder(docs);
  const linked = await linkedObjects(deps, docs);
  const items = docs.map((doc) => pinLinks(prepareMenuItem(doc, req, deps, linked), position, HISTORY_ITEM_LINKS));
  const response = pageOf(items, total, window, PostInvalidPage);
  return asOfAnswer(response, position, asOfListTag(req, 'nav_menu_item', position));
}

/**
 * The fields a restore makes current: the item's at the point, less who made it and when, and
 * its slug (decided by every save, never sent); the text ones through the caller's save filters.
 */
function restoredFields(then: MenuItemDoc, req: RestRequest): Partial<MenuItemFields> {
  const { _id: _id, version: _version, revisionCount: _count, firstPosition: _first, position: _position, author: _author, date: _date, modified: _modified, slug: _slug, ...fields } = then;
  return filterKeptText(fields, [req.user]);
}

/** `POST /menu-items/<id>/restore?as_of=...`: the item's fields return to what they were then, by one `restored` command. */
export async function restoreMenuItemAt(req: RestRequest, deps: Deps): Promise<RestResponse> {
  const current = await findMenuItem(deps, Number(req.params.id));
  const position = await restorePosition(req, deps.store.db, deps.clock());
  const then = await stateAt(deps.store.db, menuItemHistory, current._id, position, current);
  if (!then) throw new PostInvalidId();
  const doc = await updateMenuItem(deps, current._id, (doc) => admitRestoredMenuItem(deps, doc, restoredFields(then, req)), req.user.id, { ifMatch: ifMatchOf(req), fromPosition: position, current });
  return new RestResponse(await prepareOne(doc, req, deps), 200, { ETag: `"${doc.version}"` });
}


/** The items of a menu now, and its state's tag. */
export async function menuState(deps: Deps, menu: number): Promise<{ items: MenuItemDoc[]; tag: string }> {
  const items = await itemsOfMenu(deps, menu);
  return { items, tag: menuStateTag(items) };
}

/** The one condition each command of a restore carries: the item is still at the seq the restore read. */

/**
 * Every item of menu `menu` returns to its state at `position`, one command per item on the
 * kernel's path, each recording the position: items added to the menu since are deleted (or, if
 * they existed then in another menu, returned there); items deleted since are re-created with
 * their fields then (new ids, since a deleted item's stream has ended, and what was erased with
 * them stays erased), parents first so that their children point at them; the others get their
 * fields then, order included. Everything is read and decided before the first command, so a
 * refusal (`If-Match` on the menu's state: 412) changes nothing; each command also requires its
 * item to be as read, so a change landing during the restore stops it with a 412 rather than
 * being overwritten.
 */
export async function restoreMenuAt(deps: Deps, req: RestRequest, menu: number, position: number, ifMatch: IfMatch | undefined): Promise<{ items: MenuItemDoc[]; tag: string }> {
  const { db } = deps.store;
  const now = await menuState(deps, menu);
  if (!ifMatchPasses(ifMatch, now.tag)) throw new PreconditionFailed();
  const entries = await menuItemListIndex.entries(db);
  const current = new Map<number, MenuItemDoc>();
  // Items in the menu now, and any item changed since the point (it may have been in the menu then).
  for (const item of now.items) current.set(item._id, item);
  const changedIds = [...entries.values()].filter((entry) => !current.has(entry._id as number) && !(entry.position !== undefined && entry.position <= position)).map((entry) => entry._id as number);
  for (const doc of await Promise.all(changedIds.map((id) => menuItemsCollection(db).findOne({ _id: id })))) if (doc) current.set(doc._id, doc);
  const thenOf = new Map<number, MenuItemDoc | null>();
  for (const doc of current.values()) thenOf.set(doc._id, await stateAt(db, menuItemHistory, doc._id, position, doc));
  const recreate: MenuItemDoc[] = [];
  for (const id of await streamsDeletedSince(db, position, MENU_ITEM_STREAM_TYPE)) {
    const then = await stateAt(db, menuItemHistory, id, position);
    if (then?.menu === menu) recreate.push(then);
  }
  const inMenuThen = (doc: MenuItemDoc | null | undefined) => doc?.menu === menu;
  const removed = [...current.values()].filter((doc) => doc.menu === menu && !thenOf.get(doc._id));
  const returned = [...current.values()].filter((doc) => thenOf.get(doc._id) && (doc.menu === menu || inMenuThen(thenOf.get(doc._id))));

  // Every item's state then passes the checks an update of it would, against the menu as the
  // restore leaves it, before anything is written: a restore refused is refused whole.
  const menusAfter = new Map<number, number | null>([
    ...removed.map((doc) => [doc._id, null] as const),
    ...recreate.map((item) => [item._id, item.menu] as const),
    ...returned.map((doc) => [doc._id, thenOf.get(doc._id)!.menu] as const),
  ]);
  // A re-created item's words may have been erased by its force delete: only its place is checked.
  for (const item of recreate) await admitMenuItemPlace(deps, { ...item, ...restoredFields(item, req) } as MenuItemFields, null, menusAfter);
  for (const doc of returned) await admitMenuItem(deps, { ...doc, ...restoredFields(thenOf.get(doc._id)!, req) } as MenuItemFields, doc, menusAfter);

  // If-Match was checked on the whole menu above. Each item's command below sets the item to its
  // state then whatever it is now, unguarded: a change landing meanwhile must not stop the restore
  // half done, answering an error after the commands before it were recorded.
  // Items added since: deleted, or returned to where they were.
  const actor = req.user.id;
  for (const doc of removed) await deleteMenuItem(deps, doc, actor, undefined, position);
  // Items deleted since: re-created, parents first, their children's parents pointed at the new ids.
  const newIds = new Map<number, number>();
  const parentOf = (old: number) => newIds.get(old) ?? old;
  const pending = [...recreate];
  while (pending.length) {
    const index = pending.findIndex((item) => !pending.some((other) => other._id === item.parent));
    const [item] = pending.splice(index < 0 ? 0 : index, 1);
    const fields = { ...restoredFields(item, req), parent: parentOf(item.parent) } as Omit<MenuItemFields, 'slug'>;
    const created = await createMenuItem(deps, { ...fields, author: item.author, date: item.date, modified: deps.clock().toISOString() }, actor, position);
    newIds.set(item._id, created._id);
  }
  // The others: their fields then, order and parent included.
  for (const doc of returned) {
    const then = thenOf.get(doc._id)!;
    const fields = { ...restoredFields(then, req), parent: parentOf(then.parent) };
    await updateMenuItem(deps, doc._id, () => fields, actor, { fromPosition: position });
  }
  return menuState(deps, menu);
}

/** The items of a menu as a restore answers them: in menu order, in `edit` context. */
export async function prepareMenuItems(docs: MenuItemDoc[], req: RestRequest, deps: Deps): Promise<unknown[]> {
  const ordered = [...docs].sort((a, b) => a.menuOrder - b.menuOrder || a._id - b._id);
  const linked = await linkedObjects(deps, ordered);
  return ordered.map((doc) => prepareMenuItem(doc, req, deps, linked));
}
