import { type Deps } from '../../deps.js';
import { firstFreeSlug, sanitizeSlug } from '../../lib/slugs.js';
import { type TaggedPost } from '../terms/index.js';
import { ifMatchPasses, type IfMatch } from '../../rest/conditional.js';
import { createItem, findItem, loadItem, runCommand, type Decision } from '../../store/history/kernel.js';
import { lockKey, otherHolder, type LockRef } from '../locks/index.js';
import { siteNow, autosaveOf, revisionsCollection, type RevisionDoc } from '../posts/index.js';
import { type MenuItemCreated, type MenuItemDeleted, type MenuItemEvent, type MenuItemUpdated } from './menu-item.events.js';
import { menuItemHistory } from './menu-item.history.js';
import { admitRestoredMenuItem } from './menu-item.input.js';
import { menuItemsCollection, type MenuItemDoc, type MenuItemFields } from './menu-item.model.js';
import { MENU_ITEM_STREAM_TYPE, slugOf } from './menu-item.projection.js';

export const findMenuItem = (deps: Deps, id: number) => loadItem(deps, menuItemHistory, id);
/** The menu item `id`, or null. */
export const menuItemOrNull = (deps: Deps, id: number) => findItem(deps, menuItemHistory, id);

/** Creates an item; its slug is decided here (`slugOnSave`), never taken from `fields`. */
export async function createMenuItem(deps: Deps, fields: Omit<MenuItemFields, 'slug'>, actor: number, fromPosition?: number): Promise<MenuItemDoc> {
  const id = await deps.ids.next('content');
  const slug = await slugOnSave(deps, id, '', fields);
  const data: MenuItemCreated = { fields: { ...fields, slug }, ...(fromPosition !== undefined ? { fromPosition } : {}) };
  return createItem(deps, menuItemHistory, MENU_ITEM_STREAM_TYPE, id, actor, { type: 'created', data });
}

/**
 * `wp_insert_post`'s `post_name` for a menu item saved with these fields (`wp_update_nav_menu_item`
 * never passes one): the one it has is kept; a published item without one gets its title's
 * slug, or else its id (`sanitize_title( $post_title, $post_id )`), made unique among menu items
 * of any status (`wp_unique_post_slug`); a draft gets none.
 */
async function slugOnSave(deps: Deps, id: number, kept: string, next: Pick<MenuItemFields, 'status' | 'title'>): Promise<string> {
  if (kept || next.status !== 'publish') return kept;
  const items = menuItemsCollection(deps.store.db);
  return firstFreeSlug(sanitizeSlug(next.title) || String(id), async (slug) => (await items.findOne({ slug, _id: { $ne: id } }, { projection: { _id: 1 } })) !== null);
}

/**
 * What a save changes. The slug is decided here, never taken from what is asked (so a restore
 * does not bring an older one back): only a first publish gives one.
 */
async function changesOf(deps: Deps, doc: MenuItemDoc, wanted: Partial<MenuItemFields>): Promise<Partial<MenuItemFields>> {
  const { slug: _decidedHere, ...asked } = wanted;
  const changes: Partial<MenuItemFields> = Object.fromEntries(Object.entries(asked).filter(([field, value]) => !sameField(doc[field as keyof MenuItemFields], value)));
  const slug = await slugOnSave(deps, doc._id, slugOf(doc), { ...doc, ...changes });
  if (slug !== slugOf(doc)) changes.slug = slug;
  return changes;
}

/**
 * Runs the kernel's command cycle on a menu item, with the client's `If-Match`; `current` is the
 * item as the request read it, which the command then need not read again.
 */
function commit(deps: Deps, id: number, actor: number, decide: (doc: MenuItemDoc) => Promise<Decision<MenuItemEvent>>, ifMatch?: IfMatch, current?: MenuItemDoc) {
  return runCommand(deps, menuItemHistory, id, actor, decide, {
    ...(ifMatch ? { precondition: (etag: string) => ifMatchPasses(ifMatch, etag) } : {}),
    ...(current ? { current } : {}),
  });
}

export interface MenuItemUpdateOptions {
  ifMatch?: IfMatch;
  /** A revision's fields made current again. */
  fromRevision?: number;
  /** The fields the item had at this position of the log made current again. */
  fromPosition?: number;
  /** The item as the request read it, so the command need not read it again. */
  current?: MenuItemDoc;
  /** The item's edit lock (a caller's edit): another user holding it is recorded on the change (`lockedBy`). */
  lock?: LockRef;
}

/**
 * Changes an item; every change makes a revision holding every field (a menu item has no field
 * that is not revisioned), and nothing is appended when nothing changes.
 */
export async function updateMenuItem(
  deps: Deps,
  id: number,
  changes: (doc: MenuItemDoc) => Partial<MenuItemFields> | Promise<Partial<MenuItemFields>>,
  actor: number,
  options: MenuItemUpdateOptions = {},
): Promise<MenuItemDoc> {
  const { state } = await commit(
    deps,
    id,
    actor,
    async (doc) => {
      const changed = await changesOf(deps, doc, await changes(doc));
      if (!Object.keys(changed).length) return null;
      const [revisionId, savedAt] = await Promise.all([deps.ids.next('content'), siteNow(deps)]);
      const data: MenuItemUpdated = { changes: { ...changed, modified: deps.clock().toISOString() }, revisionId, savedAt: { local: savedAt.local, gmt: savedAt.gmt } };
      if (options.fromRevision !== undefined) data.fromRevision = options.fromRevision;
      if (options.fromPosition !== undefined) data.fromPosition = options.fromPosition;
      const holder = options.lock ? await otherHolder(deps, options.lock, actor) : undefined;
      if (holder !== undefined) data.lockedBy = holder;
      return { type: options.fromRevision !== undefined || options.fromPosition !== undefined ? 'restored' : 'updated', data };
    },
    options.ifMatch,
    options.current,
  );
  return state!;
}

const sameField = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The fields a revision kept that are made current again by restoring it: all but who made the
 * item and when. Its slug stays as it is, whatever the revision kept, as through every save (`changesOf`).
 */
export function restoreMenuItemRevision(deps: Deps, item: MenuItemDoc, revision: RevisionDoc, actor: number, ifMatch?: IfMatch): Promise<MenuItemDoc> {
  const { author: _author, date: _date, modified: _modified, ...kept } = (revision.item ?? {}) as Partial<MenuItemFields>;
  return updateMenuItem(deps, item._id, (doc) => admitRestoredMenuItem(deps, doc, kept), actor, { ifMatch, fromRevision: revision._id, current: item });
}

/** The caller's autosave of an item, if any (the newest, should there be more). */
export function callersAutosave(deps: Deps, id: number, actor: number): Promise<RevisionDoc | null> {
  return autosaveOf(deps.store.db, id, actor);
}

export type MenuItemAutosave = { inPlace: true; doc: MenuItemDoc } | { inPlace: false; autosave: RevisionDoc };

/**
 * A menu item's autosave keeps every field (WordPress's keeps none): its author's draft is saved
 * in place, with no revision; anyone else's is their one autosave of the item, written when it
 * is new or differs from the item, and otherwise left as it is. `item` is the item as the request
 * read it, and `previous` the caller's autosave as read after it.
 */
export async function autosaveMenuItem(deps: Deps, item: MenuItemDoc, previous: RevisionDoc | null, wanted: MenuItemFields, actor: number): Promise<MenuItemAutosave> {
  const revisions = revisionsCollection(deps.store.db);
  const id = item._id;
  let autosaveId = 0;
  const { state, event, documents } = await commit(deps, id, actor, async (doc) => {
    autosaveId = 0;
    // Into the author's own draft, as a post's, unless another user holds its edit lock (took it over).
    if (doc.status === 'draft' && doc.author === actor && (await otherHolder(deps, { key: lockKey('nav_menu_item', id), id }, actor)) === undefined) {
      const changes = await changesOf(deps, doc, wanted);
      return Object.keys(changes).length ? { type: 'updated', data: { changes: { ...changes, modified: deps.clock().toISOString() } } } : null;
    }
    // An autosave is not published: it keeps the item's slug, whatever an earlier autosave held.
    const fields: MenuItemFields = { ...wanted, slug: slugOf(doc) };
    // Read after `item`, the autosave is as current as it while the decision is on `item` itself:
    // had either changed since, the append at its version loses the race and the retry reads both.
    const existing = doc === item ? previous : await callersAutosave(deps, id, actor);
    const differs = (Object.keys(fields) as (keyof MenuItemFields)[]).some((field) => !['date', 'modified', 'slug'].includes(field) && !sameField(doc[field], fields[field]));
    if (existing && (!differs || sameField(existing.item, fields))) {
      autosaveId = existing._id;
      return null;
    }
    autosaveId = existing?._id ?? (await deps.ids.next('content'));
    const now = await siteNow(deps);
    return { type: 'autosaved', data: { autosaveId, isNew: !existing, fields, savedAt: { local: now.local, gmt: now.gmt } } };
  }, undefined, item);
  if (autosaveId === 0) return { inPlace: true, doc: state! };
  const written = event ? (documents as RevisionDoc[]).find((row) => row._id === autosaveId) : undefined;
  return { inPlace: false, autosave: written ?? (await revisions.findOne({ _id: autosaveId }))! };
}

// The kept fields whose words a deleted revision takes out of the log, unless the item or another revision still shows them.
const ERASABLE: readonly (keyof MenuItemFields)[] = ['title', 'url', 'description', 'attrTitle'];

/** Deletes a revision or autosave and erases from the log the words only it held. */
export async function deleteMenuItemRevision(deps: Deps, item: MenuItemDoc, revision: RevisionDoc, actor: number): Promise<void> {
  const revisions = revisionsCollection(deps.store.db);
  const id = item._id;
  await commit(deps, id, actor, async (doc) => {
    const gone: Partial<Record<keyof MenuItemFields, unknown[]>> = {};
    for (const field of ERASABLE) {
      const value = revision.item?.[field];
      if (!value || doc[field] === value) continue;
      if (await revisions.findOne({ parent: id, _id: { $ne: revision._id }, [`item.${field}`]: value }, { projection: { _id: 1 } })) continue;
      gone[field] = [value];
    }
    return { type: 'revision_deleted', data: { revisionId: revision._id }, erase: gone };
  }, undefined, item);
}

/**
 * Deletes an item for good, erasing its content from the log, and gives its children its parent
 * (as `wp_delete_post` does for menu items).
 */
export async function deleteMenuItem(deps: Deps, doc: MenuItemDoc, actor: number, ifMatch?: IfMatch, fromPosition?: number): Promise<void> {
  const data: MenuItemDeleted = fromPosition !== undefined ? { fromPosition } : {};
  await commit(deps, doc._id, actor, async () => ({ type: 'deleted', data, erase: 'all' as const }), ifMatch, doc);
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
    await commit(deps, _id, actor, async () => ({ type: 'deleted', data: {}, erase: 'all' as const }));
  }
}

/** Whether a menu has a published item, as WordPress's count of a `nav_menu` term tells. */
export async function menuHasItems(deps: Deps, menu: number): Promise<boolean> {
  return (await menuItemsCollection(deps.store.db).findOne({ menu, status: 'publish' }, { projection: { _id: 1 } })) !== null;
}

/** A menu item as the terms controller's `post` filter reads a tagged object: its menu is its one `nav_menu` term. */
export async function taggedMenuItem(deps: Deps, id: number): Promise<TaggedPost | null> {
  const item = await menuItemsCollection(deps.store.db).findOne({ _id: id }, { projection: { status: 1, author: 1, menu: 1 } });
  return item && { _id: item._id, type: MENU_ITEM_STREAM_TYPE, status: item.status, author: item.author, terms: { nav_menu: item.menu ? [item.menu] : [] } };
}
