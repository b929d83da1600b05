import { type Db } from 'mongodb';
import { leavingOut, type HistoryType } from '../../store/history/kernel.js';
import { PostInvalidId } from '../post-errors.js';
import { isMenuItemEvent, type MenuItemEvent } from './menu-item.events.js';
import { foldMenuItem, MENU_ITEM_STREAM_TYPE, menuItemsProjection } from './menu-item.projection.js';
import { MENU_ITEM_CONTENT_FIELDS, menuItemsCollection, type MenuItemDoc } from './menu-item.model.js';

/** Menu items as the change-log kernel sees them: the same command cycle as posts and pages. */
export const menuItemHistory: HistoryType<MenuItemDoc, MenuItemEvent> = Object.freeze({
  projection: menuItemsProjection,
  isEvent: isMenuItemEvent,
  streamTypeOf: () => MENU_ITEM_STREAM_TYPE,
  load: (db: Db, id: number, leftOut?: readonly string[]) => menuItemsCollection(db).findOne({ _id: id }, leavingOut(leftOut)),
  fold: foldMenuItem,
  etag: (doc: MenuItemDoc) => String(doc.version),
  contentFields: MENU_ITEM_CONTENT_FIELDS,
  blank: (field: string) => (field === 'meta' ? '{}' : ''),
  NotFound: PostInvalidId,
});
