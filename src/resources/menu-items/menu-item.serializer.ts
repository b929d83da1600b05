import { findByIds } from '../../store/queries/filters.js';
import { type Deps } from '../../deps.js';
import { theTitle } from '../../lib/texturize.js';
import { metaForResponse } from '../../registry/meta.js';
import { findPostType } from '../../registry/post-types.js';
import { findTaxonomy } from '../../registry/taxonomies.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { answerCarriesLock, currentLocks, lockFields, lockKey, type LockDoc } from '../locks/index.js';
import { postsCollection, permalink } from '../posts/index.js';
import { termsCollection, type TermDoc, termLink } from '../terms/index.js';
import { type MenuItemDoc } from './menu-item.model.js';

interface LinkedPost {
  _id: number;
  type: string;
  status: string;
  title: string;
}

/**
 * The posts and terms a page of items links to, read once for the page (not once an item), and
 * the items' edit locks when the request reads them (in edit context).
 */
export interface LinkedObjects {
  posts: Map<number, LinkedPost>;
  terms: Map<number, TermDoc>;
  locks?: Map<string, LockDoc>;
}

const menuItemLockKey = (doc: MenuItemDoc) => lockKey('nav_menu_item', doc._id);

/** With `req`, the items' locks too where it reads them. */
export async function linkedObjects(deps: Deps, docs: readonly MenuItemDoc[], req?: RestRequest): Promise<LinkedObjects> {
  const ids = (type: MenuItemDoc['type']) => [...new Set(docs.filter((doc) => doc.type === type && doc.objectId > 0).map((doc) => doc.objectId))];
  const postIds = ids('post_type');
  const termIds = ids('taxonomy');
  const readsLocks = req !== undefined && req.context === 'edit' && req.wants('lock') && answerCarriesLock(req);
  const [posts, terms, locks] = await Promise.all([
    findByIds(postsCollection(deps.store.db), postIds, { projection: { type: 1, status: 1, title: 1 } }),
    findByIds(termsCollection(deps.store.db), termIds),
    readsLocks ? currentLocks(deps, docs.map(menuItemLockKey)) : undefined,
  ]);
  return { posts: new Map(posts.map((post) => [post._id, post as LinkedPost])), terms: new Map(terms.map((term) => [term._id, term])), locks };
}

interface Derived {
  url: string;
  typeLabel: string;
  title: string;
  invalid: boolean;
}

/** `wp_setup_nav_menu_item`: what an item shows of the object it links to, which may be gone. */
function derive(doc: MenuItemDoc, linked: LinkedObjects, siteUrl: string): Derived {
  const own = (fallback: string) => (doc.title !== '' ? doc.title : fallback);
  switch (doc.type) {
    case 'post_type': {
      const type = findPostType(doc.object);
      const post = linked.posts.get(doc.objectId);
      const invalid = !type || !post || post.status === 'trash';
      return {
        url: post ? permalink(siteUrl, post) : '',
        typeLabel: type?.labels.singular_name ?? doc.object,
        title: own(post?.title ? post.title : `#${doc.objectId} (no title)`),
        invalid,
      };
    }
    case 'taxonomy': {
      const taxonomy = findTaxonomy(doc.object);
      const term = linked.terms.get(doc.objectId);
      return { url: term ? termLink(term, siteUrl) : '', typeLabel: taxonomy?.labels.singular_name ?? doc.object, title: own(term?.name ?? ''), invalid: !taxonomy || !term };
    }
    case 'post_type_archive': {
      const type = findPostType(doc.object);
      return { url: type ? `${siteUrl}/?post_type=${encodeURIComponent(type.slug)}` : '', typeLabel: 'Post Type Archive', title: own(type?.labels.archives ?? ''), invalid: !type };
    }
    default:
      return { url: doc.url, typeLabel: 'Custom Link', title: doc.title, invalid: false };
  }
}

/** `WP_REST_Menu_Items_Controller::prepare_item_for_response`. */
export function prepareMenuItem(doc: MenuItemDoc, req: RestRequest, deps: Deps, linked: LinkedObjects): Record<string, unknown> {
  const derived = derive(doc, linked, deps.siteUrl);
  const data: Record<string, unknown> = {};
  const add = (field: string, value: () => unknown) => {
    if (req.wants(field)) data[field] = value();
  };
  add('id', () => doc._id);
  // `title.rendered` through WordPress's `the_title` filters, as the menu items controller applies them.
  add('title', () => ({ raw: derived.title, rendered: theTitle(derived.title) }));
  add('status', () => doc.status);
  add('url', () => derived.url);
  add('attr_title', () => doc.attrTitle);
  add('description', () => doc.description);
  add('type', () => doc.type);
  add('type_label', () => derived.typeLabel);
  add('object', () => doc.object);
  add('object_id', () => doc.objectId);
  add('parent', () => doc.parent);
  add('menu_order', () => doc.menuOrder);
  add('target', () => doc.target);
  add('classes', () => doc.classes.split(' '));
  add('xfn', () => doc.xfn.split(' '));
  add('invalid', () => derived.invalid);
  if (doc.menu) add('menus', () => doc.menu);
  add('meta', () => metaForResponse('post', 'nav_menu_item', doc.meta));
  if (linked.locks) {
    const lock = linked.locks.get(menuItemLockKey(doc));
    add('lock', () => (lock ? lockFields(lock) : null));
  }
  if (req.wants('_links')) data._links = menuItemLinks(doc, req);
  return data;
}

/** One item, its linked object read for it alone. */
export async function prepareOne(doc: MenuItemDoc, req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  return prepareMenuItem(doc, req, deps, await linkedObjects(deps, [doc], req));
}

function menuItemLinks(doc: MenuItemDoc, req: RestRequest): Links {
  const links: Links = {
    self: [{ href: req.url(`/cms/v2/menu-items/${doc._id}`) }],
    collection: [{ href: req.url('/cms/v2/menu-items') }],
    about: [{ href: req.url('/cms/v2/types/nav_menu_item') }],
    'https://api.w.org/term': [{ href: `${req.url('/cms/v2/menus')}?post=${doc._id}`, taxonomy: 'nav_menu', embeddable: true }],
    // Beyond WordPress: the item's edit lock, for `_embed` (whoever reads menu items may edit them).
    lock: [{ href: req.url(`/cms/v2/menu-items/${doc._id}/lock`), embeddable: true }],
  };
  const route =
    doc.type === 'post_type' ? findPostType(doc.object)
    : doc.type === 'taxonomy' ? findTaxonomy(doc.object)
    : undefined;
  if (route && doc.objectId > 0) {
    links['https://api.w.org/menu-item-object'] = [{ href: req.url(`/${route.rest_namespace}/${route.rest_base}/${doc.objectId}`), [doc.type]: doc.object, embeddable: true }];
  }
  return links;
}
