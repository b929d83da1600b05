import { type Db } from 'mongodb';
import { type StoredEvent } from '../../store/change-log.js';
import { defineProjection } from '../../store/projections.js';
import { MENU_ITEM_EVENT_TYPES, type MenuItemCreated, type MenuItemUpdated } from './menu-item.events.js';
import { menuItemsCollection, type MenuItemDoc } from './menu-item.model.js';

export const MENU_ITEM_STREAM_TYPE = 'nav_menu_item';

/** The pure fold: the item before `event` (null before `created`) to the item after it (null: deleted). */
export function evolveMenuItem(doc: MenuItemDoc | null, event: StoredEvent): MenuItemDoc | null {
  switch (event.type) {
    case 'created':
      return { _id: event.stream, ...(event.data as unknown as MenuItemCreated).fields, version: event.seq };
    case 'updated':
      return doc && { ...doc, ...(event.data as unknown as MenuItemUpdated).changes, version: event.seq };
    case 'deleted':
      return null;
  }
  return doc && { ...doc, version: event.seq };
}

export function foldMenuItem(doc: MenuItemDoc | null, event: StoredEvent): { state: MenuItemDoc | null; documents: object[] } {
  const state = evolveMenuItem(doc, event);
  return { state, documents: state ? [state] : [] };
}

/** Applies one event to `menu_items`, unless the item has reached it already (its `version` is the guard). */
async function applyMenuItemEvent(db: Db, event: StoredEvent): Promise<void> {
  const items = menuItemsCollection(db);
  const current = await items.findOne({ _id: event.stream });
  if (current && current.version >= event.seq) return;
  const next = evolveMenuItem(current, event);
  if (next === null) {
    await items.deleteOne({ _id: event.stream });
  } else if (!current) {
    await items.insertOne(next).catch((error: { code?: number }) => {
      if (error.code !== 11000) throw error;
    });
  } else {
    await items.replaceOne({ _id: event.stream, version: current.version }, next);
  }
}

export const menuItemsProjection = defineProjection({
  name: 'menu-items',
  streamTypes: [MENU_ITEM_STREAM_TYPE],
  handles: MENU_ITEM_EVENT_TYPES,
  endsStream: ['deleted'],
  apply: applyMenuItemEvent,
  async versionsOf(db, streams) {
    const docs = await menuItemsCollection(db).find({ _id: { $in: streams } }, { projection: { version: 1 } }).toArray();
    return new Map(docs.map((doc) => [doc._id, doc.version]));
  },
  async rebuildStream(db, events) {
    const item = events.reduce<MenuItemDoc | null>(evolveMenuItem, null);
    if (item) await menuItemsCollection(db).insertOne(item);
  },
  async clear(db) {
    await menuItemsCollection(db).deleteMany({});
  },
});
