import { eventsOfTypes, type TypedEvent } from '../../store/log/change-log.js';
import { type MenuItemFields } from './menu-item.model.js';

/** The change log's event types for menu items (DESIGN.md, "The change log"). */
export const MENU_ITEM_EVENT_TYPES = ['created', 'updated', 'restored', 'autosaved', 'revision_deleted', 'deleted'] as const;

/** When a revision or autosave was saved, in the site's timezone and in GMT. */
export interface SavedAt {
  local: string;
  gmt: string;
}

/** An item's `created` event. Events stored before menu items kept a slug carry none (see `withSlug`). */
export interface MenuItemCreated {
  fields: MenuItemFields;
  /** A menu's restore as of a point re-created it: that position. */
  fromPosition?: number;
}

/** A force delete; by a menu's restore as of a point, that position. */
export interface MenuItemDeleted {
  fromPosition?: number;
}

/** `updated` and `restored`: the fields that changed and the revision that records the item after them. */
export interface MenuItemUpdated {
  changes: Partial<MenuItemFields>;
  revisionId?: number;
  savedAt?: SavedAt;
  /** `restored` only: the revision whose fields were made current. */
  fromRevision?: number;
  /** `restored` only: the position of the log whose state was made current (a restore as of a point). */
  fromPosition?: number;
  /** Who held the item's edit lock when another user wrote this change (locks are advisory: the write went through). */
  lockedBy?: number;
}

/** The caller's one autosave of the item, holding every field (those not sent as the item has them). */
export interface MenuItemAutosaved {
  autosaveId: number;
  isNew: boolean;
  fields: MenuItemFields;
  savedAt: SavedAt;
}

export interface MenuItemRevisionDeleted {
  revisionId: number;
}

/** A menu item's events, as its commands decide them and the log stores them (the type strings of `MENU_ITEM_EVENT_TYPES`). */
export type MenuItemEvent =
  | { type: 'created'; data: MenuItemCreated }
  | { type: 'updated' | 'restored'; data: MenuItemUpdated }
  | { type: 'autosaved'; data: MenuItemAutosaved }
  | { type: 'revision_deleted'; data: MenuItemRevisionDeleted }
  | { type: 'deleted'; data: MenuItemDeleted };

/** A menu item's event as read from the log. */
export type StoredMenuItemEvent = TypedEvent<MenuItemEvent>;

/** Whether an event read from the log is one of a menu item's: the one narrowing of its data. */
export const isMenuItemEvent = eventsOfTypes<MenuItemEvent>(MENU_ITEM_EVENT_TYPES);
