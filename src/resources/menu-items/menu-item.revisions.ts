import { type Principal } from '../../auth/capabilities.js';
import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { formatRestDate, formatSiteDate } from '../../lib/site-dates.js';
import { findPostType } from '../../registry/post-types.js';
import { ifMatchOf } from '../../rest/conditional.js';
import { integerItemRoute } from '../../rest/item-route.js';
import { RestResponse } from '../../rest/rest-response.js';
import { type FieldSchema } from '../../rest/schema.js';
import { type AutosavingType } from '../autosaves/index.js';
import { restoringWriters, revisionRecord, type RevisionRecord } from '../revisions/index.js';
import { filterSaved } from '../../registry/saved-fields.js';
import { siteTimezone } from '../settings/index.js';
import { autosaveMenuItem, callersAutosave, deleteMenuItemRevision, menuItemOrNull, restoreMenuItemRevision } from './menu-item.commands.js';
import { menuItemInput } from './menu-item.input.js';
import { type MenuItemDoc, type MenuItemFields } from './menu-item.model.js';
import { menuItemSchema, menuItemWriteArgs } from './menu-item.schema.js';
import { prepareOne } from './menu-item.serializer.js';

/**
 * The item fields a revision keeps, by their REST names, beside the shared revision shape; the
 * item's parent menu item is `menu_item_parent` there, as `parent` names the revision's item.
 */
const KEPT: Readonly<Record<string, keyof MenuItemFields>> = {
  type: 'type',
  status: 'status',
  url: 'url',
  description: 'description',
  attr_title: 'attrTitle',
  classes: 'classes',
  xfn: 'xfn',
  target: 'target',
  object: 'object',
  object_id: 'objectId',
  menu_item_parent: 'parent',
  menu_order: 'menuOrder',
  menus: 'menu',
};

const SPLIT = new Set(['classes', 'xfn']);

/** A kept field as the item shows it (`classes` and `xfn` as lists). */
const shown = (name: string, value: unknown) => (SPLIT.has(name) ? String(value ?? '').split(' ') : value);

const keptProperties: Record<string, FieldSchema> = Object.fromEntries(
  Object.entries(KEPT).map(([name, stored]) => {
    const { readonly: _readonly, default: _default, ...property } = menuItemSchema.properties[name === 'menu_item_parent' ? 'parent' : name];
    return [name, { ...property, context: ['edit'], ...(stored === 'parent' ? { description: 'The ID of the parent menu item the revision kept.' } : {}) }];
  }),
);

const mayEdit = (user: Parameters<typeof can>[0]) => can(user, 'edit_theme_options');

/** A draft saved in place by its author's autosave, shown as WordPress shows it: the item through the revision shape. */
async function itemAsRecord(deps: Deps, doc: MenuItemDoc): Promise<RevisionRecord> {
  const timezone = await siteTimezone(deps);
  const at = (iso: string) => ({ local: formatSiteDate(new Date(iso), timezone)!, gmt: formatRestDate(new Date(iso))! });
  const [date, modified] = [at(doc.date), at(doc.modified)];
  return {
    id: doc._id,
    parent: 0,
    author: doc.author,
    date: date.local,
    dateGmt: date.gmt,
    modified: modified.local,
    modifiedGmt: modified.gmt,
    slug: String(doc._id),
    guid: `${deps.siteUrl}/?p=${doc._id}`,
    title: doc.title,
    content: doc.description,
    excerpt: doc.attrTitle,
    item: { ...doc },
  };
}

/**
 * Menu items as a revisioned type: every change makes a revision keeping every field (shown in
 * `edit` context), a diff compares every field, a restore makes them all current again, and an
 * autosave keeps every field sent (WordPress's keeps none), so an unsaved menu change survives.
 */
export const menuItemRevisions: AutosavingType<MenuItemDoc> = {
  postType: findPostType('nav_menu_item')!,
  route: integerItemRoute('cms/v2', 'menu-items'),
  itemSchema: menuItemSchema,
  extraProperties: keptProperties,
  findItem: (deps, id) => menuItemOrNull(deps, Number(id)),
  canEdit: mayEdit,
  canDelete: mayEdit,
  async restore(deps, item, revision, req) {
    const filtered = filterKeptText((revision.item ?? {}) as Partial<MenuItemFields>, await restoringWriters(deps, req, revision));
    const doc = await restoreMenuItemRevision(deps, item, { ...revision, item: filtered }, req.user.id, ifMatchOf(req));
    return new RestResponse(await prepareOne(doc, req, deps));
  },
  deleteRevision: (deps, item, revision, actor) => deleteMenuItemRevision(deps, item, revision, actor),
  diffFields: ['title', ...Object.keys(KEPT)],
  fieldText: (revision, field) => {
    const value = field === 'title' ? revision.title : revision.item?.[KEPT[field]];
    return Array.isArray(value) ? value.join(' ') : String(value ?? '');
  },
  extraFields: ({ item: kept }) => (kept ? Object.fromEntries(Object.entries(KEPT).map(([name, stored]) => [name, shown(name, kept[stored])])) : {}),
  updateArgs: menuItemWriteArgs('update'),
  async autosave(deps, item, req) {
    // What is not sent keeps the caller's autosave's value, or else the item's.
    const previous = await callersAutosave(deps, item._id, req.user.id);
    const base: MenuItemDoc = { ...item, ...(previous?.item as Partial<MenuItemFields> | undefined) };
    const result = await autosaveMenuItem(deps, item, previous, await menuItemInput(req, deps, base), req.user.id);
    if (result.inPlace) return { record: await itemAsRecord(deps, result.doc), inPlace: true };
    return { record: revisionRecord(result.autosave, deps.siteUrl), inPlace: false };
  },
};

/** A menu item's kept fields made current again: the text ones by their REST names, through the menu items' save filters for `writers`, and back. */
export function filterKeptText(kept: Partial<MenuItemFields>, writers: readonly Principal[]): Partial<MenuItemFields> {
  const text: Record<string, unknown> = { title: kept.title, attr_title: kept.attrTitle, description: kept.description, url: kept.url, classes: kept.classes?.split(' '), xfn: kept.xfn?.split(' ') };
  filterSaved('menu-items', text, writers);
  const joined = (value: unknown) => (Array.isArray(value) ? value.filter(Boolean).join(' ') : undefined);
  const filtered: Partial<MenuItemFields> = { ...kept };
  for (const [field, value] of [['title', text.title], ['attrTitle', text.attr_title], ['description', text.description], ['url', text.url], ['classes', joined(text.classes)], ['xfn', joined(text.xfn)]] as const) {
    if (typeof value === 'string') filtered[field] = value;
  }
  return filtered;
}
