import { type Deps } from '../../deps.js';
import { mergeMeta } from '../../registry/meta.js';
import { findPostType } from '../../registry/post-types.js';
import { combinedErrors, defineRestError, type RestError } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { PostExists, PostInvalidIdParam } from '../post-errors.js';
import { postsCollection } from '../posts/index.js';
import { termsCollection } from '../terms/index.js';
import { menuItemsCollection, type MenuItemDoc, type MenuItemFields, type MenuItemType } from './menu-item.model.js';

const TermInvalidId = defineRestError('rest_term_invalid_id', 'Invalid term ID.', 400);
const PostInvalidType = defineRestError('rest_post_invalid_type', 'Invalid post type.', 400);
const TitleRequired = defineRestError('rest_title_required', 'The title is required when using a custom menu item type.', 400);
const UrlRequired = defineRestError('rest_url_required', 'The url is required when using a custom menu item type.', 400);
const InvalidMenuId = defineRestError('invalid_menu_id', 'Invalid menu ID.', 400);
const OwnParent = defineRestError('invalid_menu_item_parent', 'Menu Item cannot be its own parent.', 400);
const InvalidParent = defineRestError('invalid_menu_item_parent', 'Invalid menu item parent.', 400);

const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'object' && value !== null && typeof (value as { raw?: unknown }).raw === 'string' ? (value as { raw: string }).raw : undefined;

const joined = (value: unknown) => (Array.isArray(value) ? value.map((part) => String(part).trim()).filter(Boolean).join(' ') : undefined);

/**
 * The item a create or update asks for, checked as `WP_REST_Menu_Items_Controller::prepare_item_for_database`
 * and `wp_update_nav_menu_item` check it: an update starts from the stored item, so what is not sent is kept.
 */
export async function menuItemInput(req: RestRequest, deps: Deps, current: MenuItemDoc | null): Promise<MenuItemFields> {
  const p = req.params;
  if (!current && p.id !== undefined && Number(p.id) > 0) throw new PostExists();
  const now = deps.clock().toISOString();
  const base: MenuItemFields = current ?? {
    title: '', slug: '', type: 'custom', status: 'publish', parent: 0, attrTitle: '', classes: '', xfn: '', description: '', menuOrder: 1,
    object: '', objectId: 0, target: '', url: '', menu: 0, meta: '{}', author: req.user.id, date: now, modified: now,
  };
  const next: MenuItemFields = {
    ...base,
    title: textOf(p.title) ?? base.title,
    type: (p.type as MenuItemType | undefined) ?? base.type,
    parent: p.parent !== undefined ? Number(p.parent) : base.parent,
    attrTitle: typeof p.attr_title === 'string' ? p.attr_title : base.attrTitle,
    classes: joined(p.classes) ?? base.classes,
    xfn: joined(p.xfn) ?? base.xfn,
    description: typeof p.description === 'string' ? p.description : base.description,
    menuOrder: p.menu_order !== undefined ? Number(p.menu_order) : base.menuOrder,
    object: typeof p.object === 'string' ? p.object : base.object,
    objectId: p.object_id !== undefined ? Number(p.object_id) : base.objectId,
    target: typeof p.target === 'string' ? p.target : base.target,
    url: typeof p.url === 'string' ? p.url : base.url,
    menu: p.menus !== undefined ? Number(p.menus) : base.menu,
    meta: p.meta !== undefined ? JSON.stringify(mergeMeta('post', 'nav_menu_item', base.meta, p.meta)) : base.meta,
  };
  // WordPress keeps two statuses for menu items: a new one is published unless sent otherwise, an existing one stays a draft only if sent as one.
  if (p.status !== undefined) next.status = current ? (p.status === 'draft' ? 'draft' : 'publish') : p.status === 'publish' ? 'publish' : 'draft';

  if (typeof p.object !== 'string' || p.object === '') {
    if (next.type === 'taxonomy') {
      const term = await termsCollection(deps.store.db).findOne({ _id: next.objectId }, { projection: { taxonomy: 1 } });
      if (!term) throw new TermInvalidId();
      next.object = term.taxonomy;
    } else if (next.type === 'post_type') {
      const post = await postsCollection(deps.store.db).findOne({ _id: next.objectId }, { projection: { type: 1 } });
      if (!post) throw new PostInvalidIdParam();
      next.object = post.type;
    }
  }
  if (next.type === 'custom') {
    next.object = 'custom';
    next.objectId = 0;
  } else {
    next.url = '';
  }
  await admitMenuItem(deps, next, current);
  return next;
}

/**
 * What every write of an item's fields must satisfy, whatever their source (a request, a
 * revision restored, the item restored as of a point, its whole menu restored), as
 * `wp_update_nav_menu_item` checks it: a known archive, a custom link's title and URL, a menu that
 * exists, a parent in that menu. `menusAfter` names the menu items will be in once a write of
 * several is done (null: gone), for those it moves.
 */
export async function admitMenuItem(deps: Deps, next: MenuItemFields, current: MenuItemDoc | null, menusAfter?: ReadonlyMap<number, number | null>): Promise<void> {
  if (next.type === 'post_type_archive' && !findPostType(next.object)) throw new PostInvalidType();
  if (next.type === 'custom') {
    const errors: RestError[] = [...(next.title === '' ? [new TitleRequired()] : []), ...(next.url === '' ? [new UrlRequired()] : [])];
    if (errors.length) throw combinedErrors(errors as [RestError, ...RestError[]]);
  }
  await admitMenuItemPlace(deps, next, current, menusAfter);
}

/** The part of `admitMenuItem` about where the item goes: a menu that exists, a parent in that menu. */
export async function admitMenuItemPlace(deps: Deps, next: MenuItemFields, current: MenuItemDoc | null, menusAfter?: ReadonlyMap<number, number | null>): Promise<void> {
  if (next.menu !== 0 && !(await termsCollection(deps.store.db).findOne({ _id: next.menu, taxonomy: 'nav_menu' }, { projection: { _id: 1 } }))) {
    throw new InvalidMenuId();
  }
  if (next.parent !== 0) {
    if (current && next.parent === current._id) throw new OwnParent();
    const parentMenu = menusAfter?.has(next.parent)
      ? menusAfter.get(next.parent)
      : (await menuItemsCollection(deps.store.db).findOne({ _id: next.parent }, { projection: { menu: 1 } }))?.menu;
    if (parentMenu === null || parentMenu === undefined || parentMenu !== next.menu) throw new InvalidParent();
  }
}

/** The fields a restore makes current, once the item they leave passes `admitMenuItem`. */
export async function admitRestoredMenuItem(deps: Deps, current: MenuItemDoc, restored: Partial<MenuItemFields>): Promise<Partial<MenuItemFields>> {
  await admitMenuItem(deps, { ...current, ...restored }, current);
  return restored;
}
