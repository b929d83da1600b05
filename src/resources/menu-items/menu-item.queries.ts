import { type Filter, type Sort } from 'mongodb';
import { type Deps } from '../../deps.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { plainFilter } from '../../store/queries/filters.js';
import { matcher, sortDocuments } from '../../store/projections/kept-index.js';
import { type PageWindow } from '../../rest/pagination.js';
import { SETTABLE_STATUSES } from '../../registry/post-statuses.js';
import { dateBounds, searchColumnsFilter } from '../posts/index.js';
import { menuItemsCollection, type MenuItemDoc, menuStateTag } from './menu-item.model.js';
import { menuItemListIndex } from './menu-item.projection.js';

// Fields an item list can be ordered by; the others of WordPress's enum have no column of their own here.
const SORT_FIELDS: Readonly<Record<string, string>> = {
  menu_order: 'menuOrder', id: '_id', title: 'title', date: 'date', modified: 'modified', parent: 'parent', author: 'author', slug: 'slug', include_slugs: 'slug',
};

/** The filter and order of `GET /menu-items`, and how a page is put in the order asked (`include`, `include_slugs`). */
export async function menuItemListQuery(req: RestRequest, deps: Deps): Promise<{ filter: Filter<MenuItemDoc>; sort: Sort; reorder: (docs: MenuItemDoc[]) => void }> {
  const p = req.params;
  const ids = (name: string) => (p[name] as number[] | undefined) ?? [];
  const statuses = (p.status as string[]).includes('any') ? [...SETTABLE_STATUSES] : (p.status as string[]);
  const and: Filter<MenuItemDoc>[] = [{ status: { $in: statuses } }];
  if (ids('menus').length) and.push({ menu: { $in: ids('menus') } });
  if (ids('menus_exclude').length) and.push({ menu: { $nin: ids('menus_exclude') } });
  if (ids('include').length) and.push({ _id: { $in: ids('include') } });
  if (ids('exclude').length) and.push({ _id: { $nin: ids('exclude') } });
  if (p.menu_order !== undefined) and.push({ menuOrder: Number(p.menu_order) });
  const slugs = (p.slug as string[] | undefined) ?? [];
  if (slugs.length) and.push({ slug: { $in: slugs } });
  // The item's dates are GMT instants: each bound is compared as one.
  for (const bound of await dateBounds(p, deps)) and.push({ [bound.field]: { [bound.operator]: bound.instant.toISOString() } });
  if (typeof p.search === 'string' && p.search !== '') {
    // WordPress keeps a menu item's description as its content and its title attribute as its excerpt.
    and.push(searchColumnsFilter<MenuItemDoc>(p.search, p.search_columns as string[] | undefined, { post_title: 'title', post_content: 'description', post_excerpt: 'attrTitle' }));
  }
  const filter = plainFilter<MenuItemDoc>({ $and: and });
  const direction = p.order === 'desc' ? -1 : 1;
  const field = SORT_FIELDS[String(p.orderby)] ?? '_id';
  const sort: Sort = field === '_id' ? { _id: direction } : { [field]: direction, _id: direction };
  const reorder = (docs: MenuItemDoc[]) => {
    if (p.orderby === 'include' && ids('include').length) {
      const position = new Map(ids('include').map((id, index) => [id, index]));
      docs.sort((a, b) => (position.get(a._id)! - position.get(b._id)!) * direction);
    }
    // As the posts list orders `include_slugs`: in the order the slugs were asked for.
    if (p.orderby === 'include_slugs' && slugs.length) docs.sort((a, b) => slugs.indexOf(a.slug) - slugs.indexOf(b.slug));
  };
  return { filter, sort, reorder };
}

/**
 * A page of items for `GET /menu-items`, and how many match; for the items of one menu, also the
 * menu's state tag. One menu's items (what a site's menu is read as) are read at once by the
 * menu's key, its few dozen rows then filtered, ordered and paged in memory, the tag taken from
 * the same rows: one query, where a query, a count and the tag's query each decoded them.
 */
export async function listMenuItems(req: RestRequest, deps: Deps, window: PageWindow): Promise<{ docs: MenuItemDoc[]; total: number; menuTag?: string }> {
  const { filter, sort, reorder } = await menuItemListQuery(req, deps);
  const items = menuItemsCollection(deps.store.db);
  const menus = (req.params.menus as number[] | undefined) ?? [];
  if (menus.length === 1) {
    const ofMenu = await items.find({ menu: menus[0] }).toArray();
    const matching = sortDocuments(ofMenu.filter(matcher(filter)), sort);
    const docs = matching.slice(window.skip, window.perPage > 0 ? window.skip + window.perPage : undefined);
    reorder(docs);
    return { docs, total: matching.length, menuTag: menuStateTag(ofMenu) };
  }
  const { docs, total } = await menuItemListIndex.list(deps.store.db, items, filter, sort, window, 'a search of titles and descriptions, or the title order, which the list index does not keep');
  reorder(docs);
  return { docs, total };
}
