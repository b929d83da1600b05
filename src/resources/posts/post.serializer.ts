import { can } from '../../auth/capabilities.js';
import { blockVersion, renderContent, renderExcerpt, renderTitle } from '../../lib/content-render.js';
import { formatRestDate, parseRestDate } from '../../lib/site-dates.js';
import { sanitizeSlug } from '../../lib/slugs.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { TAXONOMIES } from '../../registry/taxonomies.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type Deps } from '../../deps.js';
import { siteTimezone } from '../settings/index.js';
import { revisionsCollection, UNKNOWN, type PostDoc } from './post.model.js';
import { canEditPost } from './post.permissions.js';
import { metaForResponse } from '../../registry/meta.js';
import { mapInSlices } from '../../lib/time-slices.js';
import { type RenderedFields } from '../../lib/content-render.cache.js';
import { renderKey } from '../../lib/content-render.off-thread.js';
import { answerCarriesLock, currentLocks, lockFields, lockKey, type LockDoc } from '../locks/index.js';

/** The item's URL on the site: WordPress's plain permalinks (`?p=`, `?page_id=`). */
export function permalink(siteUrl: string, doc: Pick<PostDoc, '_id' | 'type'>): string {
  return doc.type === 'page' ? `${siteUrl}/?page_id=${doc._id}` : `${siteUrl}/?p=${doc._id}`;
}

/**
 * What preparing an item needs beyond the item: site facts, for `_links` its newest revision, and
 * its long content rendered beforehand (off the event loop, or kept from an earlier answer).
 */
export interface PrepareFacts {
  timezone: string;
  latestRevision: { id: number } | null;
  rendered?: RenderedFields;
  /** In edit context, the item's edit lock (null: free); absent when not asked for. */
  lock?: LockDoc | null;
}

/**
 * The post as the REST API shows it (`WP_REST_Posts_Controller::prepare_item_for_response`),
 * computing only the fields the request wants: rendering content is the expensive part.
 */
export function preparePost(doc: PostDoc, req: RestRequest, type: PostTypeDef, siteUrl: string, facts: PrepareFacts): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const want = (field: string) => req.wants(field);
  const locked = isLocked(doc, req);
  if (want('id')) data.id = doc._id;
  if (want('date')) data.date = doc.date;
  // A draft's date floats (no GMT date is stored); WordPress shows it converted from the local one.
  if (want('date_gmt')) data.date_gmt = doc.dateGmt ?? formatRestDate(parseRestDate(doc.date, facts.timezone));
  if (want('guid')) data.guid = { raw: doc.guid, rendered: doc.guid };
  if (want('modified')) data.modified = doc.modified;
  if (want('modified_gmt')) data.modified_gmt = doc.modifiedGmt;
  if (want('slug')) data.slug = doc.slug;
  if (want('status')) data.status = doc.status;
  if (want('type')) data.type = doc.type;
  if (want('link')) data.link = permalink(siteUrl, doc);
  if (want('title') && type.supports.title) data.title = { raw: doc.title, rendered: renderTitle(doc.title) };
  if (want('content') && type.supports.editor) {
    data.content = {
      raw: doc.content,
      rendered: locked ? '' : (facts.rendered?.content ?? renderContent(doc.content)),
      protected: doc.password !== '',
      block_version: blockVersion(doc.content),
    };
  }
  if (want('excerpt') && type.supports.excerpt) {
    const rendered = locked ? '' : (facts.rendered?.excerpt ?? renderExcerpt(doc.excerpt, doc.content));
    data.excerpt = { raw: doc.excerpt, rendered, protected: doc.password !== '' };
  }
  if (want('author') && type.supports.author) data.author = doc.author;
  if (want('featured_media') && type.supports.thumbnail) data.featured_media = doc.featured_media;
  if (want('comment_status') && type.supports.comments) data.comment_status = doc.comment_status;
  if (want('ping_status') && type.supports.comments) data.ping_status = doc.ping_status;
  if (want('sticky') && type.slug === 'post') data.sticky = doc.sticky;
  if (want('template')) data.template = doc.template;
  if (want('format') && type.supports['post-formats']) data.format = doc.format || 'standard';
  if (want('meta')) data.meta = metaForResponse('post', type.slug, doc.meta);
  if (want('parent') && type.hierarchical) data.parent = doc.parent;
  if (want('menu_order') && type.supports['page-attributes']) data.menu_order = doc.menu_order;
  if (want('password')) data.password = doc.password;
  if (type.viewable) {
    if (want('permalink_template')) data.permalink_template = `${siteUrl}/?${type.slug === 'page' ? 'page_id' : 'p'}=${doc._id}`;
    if (want('generated_slug')) data.generated_slug = sanitizeSlug(doc.title) || String(doc._id);
  }
  const taxonomies = TAXONOMIES.filter((taxonomy) => taxonomy.types.includes(type.slug));
  for (const taxonomy of taxonomies) {
    if (want(taxonomy.rest_base)) data[taxonomy.rest_base] = doc.terms?.[taxonomy.slug] ?? [];
  }
  if (want('class_list')) data.class_list = classList(doc, type);
  if (facts.lock !== undefined && want('lock')) data.lock = facts.lock ? lockFields(facts.lock) : null;
  if (want('_links')) data._links = postLinks(doc, req, type, facts);
  return data;
}

// A password-protected item shows its content to editors and to requests giving the password.
function isLocked(doc: PostDoc, req: RestRequest): boolean {
  return doc.password !== '' && !canEditPost(req.user, doc) && req.params.password !== doc.password;
}

function classList(doc: PostDoc, type: PostTypeDef): string[] {
  const classes = [`post-${doc._id}`, doc.type, `type-${doc.type}`, `status-${doc.status}`];
  if (type.supports['post-formats']) classes.push(`format-${doc.format || 'standard'}`);
  if (doc.featured_media) classes.push('has-post-thumbnail');
  classes.push('hentry');
  return classes;
}

function postLinks(doc: PostDoc, req: RestRequest, type: PostTypeDef, facts: PrepareFacts): Links {
  const base = `/${type.rest_namespace}/${type.rest_base}`;
  const links: Links = {
    self: [{ href: req.url(`${base}/${doc._id}`) }],
    collection: [{ href: req.url(base) }],
    about: [{ href: req.url(`/${type.rest_namespace}/types/${type.slug}`) }],
  };
  if (type.supports.author) links.author = [{ href: req.url(`/cms/v2/users/${doc.author}`), embeddable: true }];
  if (type.supports.revisions) {
    links['version-history'] = [{ href: req.url(`${base}/${doc._id}/revisions`), count: doc.revisionCount }];
    if (facts.latestRevision) {
      links['predecessor-version'] = [{ href: req.url(`${base}/${doc._id}/revisions/${facts.latestRevision.id}`), id: facts.latestRevision.id }];
    }
  }
  if (type.hierarchical && doc.parent) links.up = [{ href: req.url(`${base}/${doc.parent}`), embeddable: true }];
  if (doc.featured_media) links['https://api.w.org/featuredmedia'] = [{ href: req.url(`/cms/v2/media/${doc.featured_media}`), embeddable: true }];
  links['https://api.w.org/attachment'] = [{ href: req.url(`/cms/v2/media?parent=${doc._id}`) }];
  const terms = TAXONOMIES.filter((taxonomy) => taxonomy.types.includes(type.slug));
  if (terms.length) {
    links['https://api.w.org/term'] = terms.map((taxonomy) => ({
      href: req.url(`/${taxonomy.rest_namespace}/${taxonomy.rest_base}?post=${doc._id}`),
      taxonomy: taxonomy.slug,
      embeddable: true,
    }));
  }
  // Beyond WordPress: the item's edit lock, for those who may edit it, so that `_embed` carries it in the same read.
  if (canEditPost(req.user, doc)) links.lock = [{ href: req.url(`${base}/${doc._id}/lock`), embeddable: true }];
  if (req.context === 'edit') {
    if (can(req.user, type.caps.publish_posts)) links['https://api.w.org/action-publish'] = [{ href: req.url(`${base}/${doc._id}`) }];
    if (can(req.user, 'unfiltered_html')) links['https://api.w.org/action-unfiltered-html'] = [{ href: req.url(`${base}/${doc._id}`) }];
  }
  return links;
}

/**
 * The newest revision (or autosave) of each item, for `predecessor-version`: kept on the item,
 * looked up (index-served) only after that revision was deleted.
 */
async function latestRevisions(deps: Deps, docs: PostDoc[]): Promise<Map<number, number>> {
  const revisions = revisionsCollection(deps.store.db);
  const latest = new Map<number, number>();
  for (const doc of docs) {
    if (doc.latestRevision === UNKNOWN) {
      const found = await revisions.findOne({ parent: doc._id }, { sort: { parent: 1, date: -1, _id: -1 }, projection: { _id: 1 } });
      if (found) latest.set(doc._id, found._id);
    } else if (doc.latestRevision !== null && doc.latestRevision !== undefined) {
      latest.set(doc._id, doc.latestRevision);
    }
  }
  return latest;
}

/**
 * The content and excerpt of the long items `preparePost` will render, rendered first on the
 * render thread (or kept from an earlier answer for the same version): the rendering of one item
 * alone could keep the process from answering anything else for most of a second.
 */
async function renderLongContent(docs: PostDoc[], req: RestRequest, deps: Deps, type: PostTypeDef): Promise<Map<number, RenderedFields>> {
  const rendered = new Map<number, RenderedFields>();
  const wantsContent = req.wants('content') && type.supports.editor;
  const wantsExcerpt = req.wants('excerpt') && type.supports.excerpt;
  if (!wantsContent && !wantsExcerpt) return rendered;
  for (const doc of docs) {
    if (!deps.renderer.isLong(doc.content) || isLocked(doc, req)) continue;
    const request = { key: renderKey(doc._id, doc.version), content: doc.content, renderContent: wantsContent, excerpt: wantsExcerpt ? doc.excerpt : undefined };
    rendered.set(doc._id, await deps.renderer.render(request));
  }
  return rendered;
}

export async function prepareMany(docs: PostDoc[], req: RestRequest, deps: Deps, type: PostTypeDef): Promise<Record<string, unknown>[]> {
  const latest = req.wants('_links') && type.supports.revisions ? await latestRevisions(deps, docs) : new Map<number, number>();
  const timezone = await siteTimezone(deps);
  const rendered = await renderLongContent(docs, req, deps, type);
  const locks = req.context === 'edit' && req.wants('lock') && answerCarriesLock(req) ? await currentLocks(deps, docs.map((doc) => lockKey(type.slug, doc._id))) : undefined;
  // Rendering a page of posts takes a while: other requests are answered between items.
  return mapInSlices(docs, (doc) => {
    const facts: PrepareFacts = { timezone, latestRevision: latest.has(doc._id) ? { id: latest.get(doc._id)! } : null, rendered: rendered.get(doc._id) };
    if (locks) facts.lock = locks.get(lockKey(type.slug, doc._id)) ?? null;
    return preparePost(doc, req, type, deps.siteUrl, facts);
  });
}

/** One item as the posts route renders it (restore answers with it too). */
export async function prepareOne(doc: PostDoc, req: RestRequest, deps: Deps, type: PostTypeDef): Promise<Record<string, unknown>> {
  return (await prepareMany([doc], req, deps, type))[0];
}
