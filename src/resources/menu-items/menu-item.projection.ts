import { type StoredEvent } from '../../store/log/change-log.js';
import { atPosition } from '../../store/history/as-of.js';
import { documentFold, documentProjection, type DocumentEffects } from '../../store/projections/document-projection.js';
import { keptIndex } from '../../store/projections/kept-index.js';
import { revisionsCollection, storedRevision, type RevisionDoc } from '../posts/index.js';
import { isMenuItemEvent, MENU_ITEM_EVENT_TYPES, type SavedAt, type StoredMenuItemEvent } from './menu-item.events.js';
import { menuItemsCollection, type MenuItemDoc, type MenuItemFields } from './menu-item.model.js';

export const MENU_ITEM_STREAM_TYPE = 'nav_menu_item';

/** What one event does to the read models: the next item (null: gone) and the revision rows it writes or removes. */
export type MenuItemEffects = DocumentEffects<MenuItemDoc, RevisionDoc>;

/**
 * A revision or autosave row of a menu item: the shared revision columns (a menu item's
 * description and title attribute are WordPress's content and excerpt) and every field kept.
 */
function revisionRow(parent: number, id: number, kind: RevisionDoc['kind'], actor: number, item: MenuItemFields, savedAt: SavedAt, version: number): RevisionDoc {
  return {
    _id: id,
    parent,
    kind,
    author: actor,
    title: item.title,
    content: item.description,
    excerpt: item.attrTitle,
    date: savedAt.local,
    dateGmt: savedAt.gmt,
    modified: savedAt.local,
    modifiedGmt: savedAt.gmt,
    slug: `${parent}-${kind}-v1`,
    version,
    item: { ...item },
  };
}

const fieldsOf = ({ _id: _omitted, version: _version, revisionCount: _count, firstPosition: _first, position: _position, ...fields }: MenuItemDoc): MenuItemFields => fields;

/**
 * The item's slug as its events decided it. Events stored before menu items kept a slug carry
 * none: a published item then has its id, the slug WordPress gives an item without a title, which
 * the fold can give without the database (a title's slug must be made unique among the other
 * items, which only a command can ask); a draft has none until it is published.
 */
export function slugOf(item: Pick<MenuItemDoc, '_id' | 'status'> & { slug?: string }): string {
  return item.slug || (item.status === 'publish' ? String(item._id) : '');
}

/** The pure fold: the item before `event` (null before `created`) to its effects. */
export function evolveMenuItem(doc: MenuItemDoc | null, event: StoredEvent): MenuItemEffects {
  const effects = effectsOf(doc, event);
  if (effects.item && effects.item.slug !== slugOf(effects.item)) effects.item = { ...effects.item, slug: slugOf(effects.item) };
  if (effects.item && effects.item.version === event.seq) effects.item = atPosition(effects.item, event, event.type === 'created');
  return effects;
}

function effectsOf(doc: MenuItemDoc | null, event: StoredEvent): MenuItemEffects {
  const effects: MenuItemEffects = { item: doc, upsertRevisions: [], deleteRevisions: [], deleteAllRevisions: false };
  if (isMenuItemEvent(event)) return effectsOfEvent(doc, event, effects);
  // An event of another type only moves the item's version.
  if (doc) effects.item = { ...doc, version: event.seq };
  return effects;
}

function effectsOfEvent(doc: MenuItemDoc | null, event: StoredMenuItemEvent, effects: MenuItemEffects): MenuItemEffects {
  switch (event.type) {
    case 'created':
      effects.item = { _id: event.stream, ...event.data.fields, version: event.seq, revisionCount: 0 };
      return effects;
    case 'updated':
    case 'restored': {
      if (!doc) return effects;
      const { changes, revisionId, savedAt } = event.data;
      const next: MenuItemDoc = { ...doc, ...changes, version: event.seq };
      if (revisionId !== undefined && savedAt) {
        next.revisionCount++;
        effects.upsertRevisions.push(revisionRow(doc._id, revisionId, 'revision', event.actor, fieldsOf(next), savedAt, event.seq));
      }
      effects.item = next;
      return effects;
    }
    case 'autosaved': {
      if (!doc) return effects;
      const { autosaveId, isNew, fields, savedAt } = event.data;
      effects.item = { ...doc, revisionCount: doc.revisionCount + (isNew ? 1 : 0), version: event.seq };
      effects.upsertRevisions.push(revisionRow(doc._id, autosaveId, 'autosave', event.actor, fields, savedAt, event.seq));
      return effects;
    }
    case 'revision_deleted': {
      effects.deleteRevisions.push(event.data.revisionId);
      if (doc) effects.item = { ...doc, revisionCount: Math.max(0, doc.revisionCount - 1), version: event.seq };
      return effects;
    }
    case 'deleted':
      effects.item = null;
      effects.deleteAllRevisions = true;
      return effects;
  }
}

export const foldMenuItem = documentFold(evolveMenuItem);

/**
 * The fields menu item lists filter and sort on, kept in each process for every item: what lists
 * as of an earlier point start from (which items existed then, which changed since).
 */
export const menuItemListIndex = keptIndex({
  name: 'menu-items',
  collection: 'menu_items',
  holds: {},
  fields: ['status', 'menu', 'menuOrder', 'parent', 'slug', 'date', 'modified', 'author', 'firstPosition', 'position'],
  streamTypes: [MENU_ITEM_STREAM_TYPE],
  endsStream: ['deleted'],
});

export const menuItemsProjection = documentProjection<MenuItemDoc, RevisionDoc>({
  keptIndex: menuItemListIndex,
  name: 'menu-items',
  streamTypes: [MENU_ITEM_STREAM_TYPE],
  handles: MENU_ITEM_EVENT_TYPES,
  endsStream: ['deleted'],
  items: menuItemsCollection,
  rows: revisionsCollection,
  evolve: evolveMenuItem,
  stored: storedRevision,
  async clear(db) {
    const ids = (await menuItemsCollection(db).find({}, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id);
    if (ids.length) await revisionsCollection(db).deleteMany({ parent: { $in: ids } });
    await menuItemsCollection(db).deleteMany({});
  },
});
