import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError, defineRestErrorWith, invalidParams } from '../../rest/errors.js';
import { sanitizeSlug } from '../../lib/slugs.js';
import { type Links } from '../../rest/links.js';
import { deleteItemsOfMenu, menuHasItems, taggedMenuItem } from '../menu-items/index.js';
import { type TermExtension, termsCollection } from '../terms/index.js';
import { assignLocations, forgetMenu, isAutoAdd, locationsOfMenu, setAutoAdd } from './menu.locations.js';

const MenuExists = defineRestErrorWith('menu_exists', 400, (name: string, termId: number) => ({
  message: `The menu name <strong>${name}</strong> conflicts with another menu name. Please try another.`,
  data: { term_id: termId },
}));
const InvalidMenuLocation = defineRestError('rest_invalid_menu_location', 'Invalid menu location.', 400);
export const CannotViewMenus = defineAuthError('rest_cannot_view', 'Sorry, you are not allowed to view menus.');
const MenusTrashNotSupported = defineRestError('rest_trash_not_supported', "Menus do not support trashing. Set 'force=true' to delete.", 501);

const requestedLocations = (params: Record<string, unknown>) => (Array.isArray(params.locations) ? (params.locations as string[]) : undefined);

/**
 * Menus are `nav_menu` terms served by the terms controller (WordPress's menus controller extends
 * it): without `count`, `link`, `taxonomy` and `parent`, with the theme locations they are shown
 * in and whether new top-level pages join them.
 */
export const menuExtension: TermExtension = {
  schema(base) {
    const { count: _count, link: _link, taxonomy: _taxonomy, parent: _parent, ...kept } = base.properties;
    return {
      ...base,
      properties: {
        ...kept,
        locations: { description: 'The locations assigned to the menu.', type: 'array', items: { type: 'string' }, context: ['view', 'edit'] },
        auto_add: { description: 'Whether to automatically add top level pages to this menu.', type: 'boolean', context: ['view', 'edit'] },
      },
    };
  },
  canRead: (req) => {
    if (!can(req.user, 'edit_theme_options')) throw new CannotViewMenus(req);
    return true;
  },
  async prepare(doc, req, deps) {
    const data: Record<string, unknown> = {};
    if (req.wants('locations')) data.locations = await locationsOfMenu(deps, doc._id);
    if (req.wants('auto_add')) data.auto_add = await isAutoAdd(deps, doc._id);
    return data;
  },
  async links(doc, req, deps): Promise<Links> {
    const locations = await locationsOfMenu(deps, doc._id);
    if (!locations.length) return {};
    return { 'https://api.w.org/menu-location': locations.map((name) => ({ href: req.url(`/cms/v2/menu-locations/${name}`), embeddable: true })) };
  },
  validate(req, deps: Deps) {
    const unknown = requestedLocations(req.params)?.find((name) => !deps.themes.active.menuLocations.has(name));
    if (unknown !== undefined) throw invalidParams({ locations: new InvalidMenuLocation({ location: unknown }) });
  },
  async beforeWrite(write, current, deps) {
    // `wp_update_nav_menu_object` passes an empty slug to `wp_update_term`: a new name makes a new (unique) slug.
    if (current && write.name !== current.name) {
      write.slug = sanitizeSlug(write.name) || String(current._id);
      write.slugProvided = false;
    }
    const same = await termsCollection(deps.store.db).findOne({ taxonomy: 'nav_menu', name: write.name }, { projection: { _id: 1 } });
    if (same && same._id !== current?._id) throw new MenuExists(write.name, same._id);
  },
  async afterWrite(doc, req, deps) {
    const locations = requestedLocations(req.params);
    if (locations) await assignLocations(deps, doc._id, locations);
    if (typeof req.params.auto_add === 'boolean') await setAutoAdd(deps, doc._id, req.params.auto_add);
  },
  taggedObject: taggedMenuItem,
  // Menus keep no count: `hide_empty` keeps those with a published item (a site has few menus).
  async nonEmpty(deps) {
    const menus = await termsCollection(deps.store.db).find({ taxonomy: 'nav_menu' }, { projection: { _id: 1 } }).toArray();
    const kept: number[] = [];
    for (const { _id } of menus) if (await menuHasItems(deps, _id)) kept.push(_id);
    return kept;
  },
  async afterDelete(doc, req, deps) {
    await deleteItemsOfMenu(deps, doc._id, req.user.id);
    await forgetMenu(deps, doc._id);
  },
  writeContext: 'view',
  trashNotSupported: MenusTrashNotSupported,
};
