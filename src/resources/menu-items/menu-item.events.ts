import { type MenuItemFields } from './menu-item.model.js';

/** The change log's event types for menu items (DESIGN.md, "The change log"). */
export const MENU_ITEM_EVENT_TYPES = ['created', 'updated', 'deleted'] as const;

export interface MenuItemCreated {
  fields: MenuItemFields;
}

export interface MenuItemUpdated {
  changes: Partial<MenuItemFields>;
}
