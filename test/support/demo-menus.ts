// A menus-like taxonomy registered only in tests, built on the terms controller by composition,
// to show that every extension hook of `termRoutes` is honoured.
import { can } from '../../src/auth/capabilities.js';
import { type Deps } from '../../src/deps.js';
import { defineAuthError, defineRestError } from '../../src/rest/errors.js';
import { findTaxonomy } from '../../src/registry/taxonomies.js';
import { type ResourceManifest } from '../../src/resources/manifest.js';
import { termRoutes, termsCollection, type TermExtension } from '../../src/resources/terms/index.js';

const MenuExists = defineRestError('menu_exists', 'The menu name already exists.', 400);
const CannotView = defineAuthError('rest_cannot_view', 'Sorry, you are not allowed to view menus.');
const MenusTrashNotSupported = defineRestError('rest_trash_not_supported', "Menus do not support trashing. Set 'force=true' to delete.", 501);

const options = (deps: Deps) => deps.store.db.collection<{ _id: number; auto_add: boolean }>('demo_menu_options');

const menuExtension: TermExtension = {
  schema(base) {
    const { count: _count, link: _link, taxonomy: _taxonomy, parent: _parent, ...kept } = base.properties;
    return { ...base, properties: { ...kept, auto_add: { description: 'Whether to add new pages automatically.', type: 'boolean', context: ['view', 'edit'] } } };
  },
  canRead: (req) => {
    if (!can(req.user, 'edit_theme_options')) throw new CannotView(req);
    return true;
  },
  async prepare(doc, _req, deps) {
    return { auto_add: (await options(deps).findOne({ _id: doc._id }))?.auto_add ?? false };
  },
  links: (doc, req) => ({ 'https://api.w.org/menu-location': [{ href: req.url(`/cms/v2/menu-locations/primary?menu=${doc._id}`), embeddable: true }] }),
  async beforeWrite(write, current, deps) {
    const same = await termsCollection(deps.store.db).findOne({ taxonomy: 'nav_menu', name: write.name });
    if (same && same._id !== current?._id) throw new MenuExists({ term_id: same._id });
  },
  async afterWrite(doc, req, deps) {
    if (typeof req.params.auto_add === 'boolean') {
      await options(deps).updateOne({ _id: doc._id }, { $set: { auto_add: req.params.auto_add } }, { upsert: true });
    }
  },
  async afterDelete(doc, _req, deps) {
    await options(deps).deleteOne({ _id: doc._id });
  },
  writeContext: 'view',
  trashNotSupported: MenusTrashNotSupported,
};

export const demoMenusResource: ResourceManifest = {
  routes: termRoutes({ ...findTaxonomy('nav_menu')!, rest_base: 'demo-menus' }, menuExtension),
};
