import { createHash } from 'node:crypto';
import { type Db } from 'mongodb';
import { type Positioned } from '../../store/history/as-of.js';
import { type IndexSpec } from '../../store/database/mongo.js';

export const MENU_ITEM_TYPES = ['taxonomy', 'post_type', 'post_type_archive', 'custom'] as const;
export type MenuItemType = (typeof MENU_ITEM_TYPES)[number];

/** What a menu item is made of: what its events carry and its read model keeps. */
export interface MenuItemFields {
  title: string;
  /**
   * WordPress's `post_name`: empty until the item is first published, then its title's slug (or
   * its id), unique among menu items, and kept. Decided by the commands, never sent by a client.
   */
  slug: string;
  type: MenuItemType;
  status: string;
  /** The parent menu item (not a post parent); 0 at the top. */
  parent: number;
  attrTitle: string;
  /** Space-joined, as WordPress stores them (so an item without any shows `[""]`). */
  classes: string;
  xfn: string;
  description: string;
  menuOrder: number;
  /** The linked post type, taxonomy, archive's post type, or `custom`. */
  object: string;
  objectId: number;
  target: string;
  /** The stored URL (custom links); linked items derive theirs. */
  url: string;
  /** The `nav_menu` term; 0 when in no menu. */
  menu: number;
  /** Registered meta, as JSON (client-shaped keys stay out of the document's own keys). */
  meta: string;
  author: number;
  /** GMT instants as ISO 8601 strings (the change log keeps event data as JSON). */
  date: string;
  modified: string;
}

export interface MenuItemDoc extends MenuItemFields, Positioned {
  _id: number;
  /** The seq of the last event applied. */
  version: number;
  /** Its revisions and autosaves. */
  revisionCount: number;
}

/** The fields whose content a force delete erases from the log. */
export const MENU_ITEM_CONTENT_FIELDS: readonly (keyof MenuItemFields)[] = ['title', 'slug', 'url', 'attrTitle', 'description', 'classes', 'xfn', 'meta'];

export const menuItemsCollection = (db: Db) => db.collection<MenuItemDoc>('menu_items');

// Titles are not indexed: PostgreSQL (under FerretDB) refuses an index entry over about 2.7 KB,
// and a title may be longer.
export const menuItemIndexes: IndexSpec[] = [
  { collection: 'menu_items', key: { menu: 1, status: 1, menuOrder: 1, _id: 1 }, name: 'menu_status_order' },
  { collection: 'menu_items', key: { status: 1, menuOrder: 1, _id: 1 }, name: 'status_order' },
  { collection: 'menu_items', key: { status: 1, _id: 1 }, name: 'status_id' },
  { collection: 'menu_items', key: { status: 1, date: 1, _id: 1 }, name: 'status_date' },
  // Recently changed items first (`orderby=modified`), as the admin page's finder lists them.
  { collection: 'menu_items', key: { status: 1, modified: 1, _id: 1 }, name: 'status_modified' },
  { collection: 'menu_items', key: { parent: 1 }, name: 'parent' },
  // A slug's owner (whether it is taken), and a list filtered by slugs in menu order.
  { collection: 'menu_items', key: { slug: 1, status: 1, menuOrder: 1, _id: 1 }, name: 'slug_status_order' },
  { collection: 'menu_items', key: { status: 1, slug: 1, _id: 1 }, name: 'status_slug' },
];

/** A menu's state as `If-Match` names it: each of its items and the seq it is at. */
export function menuStateTag(items: readonly Pick<MenuItemDoc, '_id' | 'version'>[]): string {
  const pairs = items.map((item) => `${item._id}:${item.version}`).sort();
  return `menu-${createHash('sha256').update(pairs.join(',')).digest('base64url').slice(0, 22)}`;
}
