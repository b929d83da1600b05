import { type Deps } from '../../deps.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { findPostType, type PostTypeDef } from '../../registry/post-types.js';
import { type TermController } from './term.controller.js';
import { type TermDoc } from './term.model.js';
import { metaForResponse } from '../../registry/meta.js';

/** `get_term_link` without pretty permalinks: categories by id, tags by slug, others by taxonomy and slug. */
export function termLink(doc: TermDoc, siteUrl: string): string {
  if (doc.taxonomy === 'category') return `${siteUrl}/?cat=${doc._id}`;
  if (doc.taxonomy === 'post_tag') return `${siteUrl}/?tag=${encodeURIComponent(doc.slug)}`;
  return `${siteUrl}/?taxonomy=${encodeURIComponent(doc.taxonomy)}&term=${encodeURIComponent(doc.slug)}`;
}

/** `prepare_item_for_response`: the fields of the controller's schema that the request wants, and `_links`. */
export async function prepareTerm(
  ctl: TermController,
  doc: TermDoc,
  req: RestRequest,
  deps: Deps,
): Promise<Record<string, unknown>> {
  const wants = (field: string) => field in ctl.schema.properties && req.wants(field);
  const data: Record<string, unknown> = {};
  if (wants('id')) data.id = doc._id;
  if (wants('count')) data.count = doc.count;
  if (wants('description')) data.description = doc.description;
  if (wants('link')) data.link = termLink(doc, deps.siteUrl);
  if (wants('name')) data.name = doc.name;
  if (wants('slug')) data.slug = doc.slug;
  if (wants('taxonomy')) data.taxonomy = doc.taxonomy;
  if (wants('parent')) data.parent = doc.parent;
  if (wants('meta')) data.meta = metaForResponse('term', doc.taxonomy, doc.meta);
  if (ctl.extension.prepare) Object.assign(data, await ctl.extension.prepare(doc, req, deps));
  if (req.wants('_links')) {
    data._links = { ...termLinks(ctl, doc, req), ...(await ctl.extension.links?.(doc, req, deps)) };
  }
  return data;
}

function termLinks(ctl: TermController, doc: TermDoc, req: RestRequest): Links {
  const { taxonomy } = ctl;
  const links: Links = {
    self: [{ href: req.url(`${ctl.route}/${doc._id}`) }],
    collection: [{ href: req.url(ctl.route) }],
    about: [{ href: req.url(`/${taxonomy.rest_namespace}/taxonomies/${taxonomy.slug}`) }],
  };
  if (doc.parent) links.up = [{ href: req.url(`${ctl.route}/${doc.parent}`), embeddable: true }];
  const postTypeLinks = taxonomy.types
    .map((slug) => findPostType(slug))
    .filter((type): type is PostTypeDef => type?.show_in_rest === true)
    .map((type) => ({ href: `${req.url(`/${type.rest_namespace}/${type.rest_base}`)}?${taxonomy.rest_base}=${doc._id}` }));
  if (postTypeLinks.length) links['https://api.w.org/post_type'] = postTypeLinks;
  return links;
}
