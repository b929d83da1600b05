import { renderContent, renderExcerpt, renderTitle } from '../../lib/content-render.js';
import { renderKey } from '../../lib/content-render.off-thread.js';
import { type RenderedFields } from '../../lib/content-render.cache.js';
import { type Deps } from '../../deps.js';
import { itemPath } from '../../rest/item-route.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type ItemSchema } from '../../rest/schema.js';
import { type RevisionDoc } from './revision.model.js';
import { type RevisionedItem, type RevisionedType, type RevisionRecord } from './revisioned-type.js';

/**
 * A revision row as a record. WordPress gives a revision the permalink of the time it was
 * saved as its GUID: with plain permalinks, `?p=<revision id>`.
 */
export function revisionRecord(doc: RevisionDoc, siteUrl: string): RevisionRecord {
  return {
    id: doc._id,
    parent: doc.parent,
    author: doc.author,
    date: doc.date,
    dateGmt: doc.dateGmt,
    modified: doc.modified,
    modifiedGmt: doc.modifiedGmt,
    slug: doc.slug,
    guid: `${siteUrl}/?p=${doc._id}`,
    title: doc.title,
    content: doc.content,
    excerpt: doc.excerpt,
    ...(doc.item ? { item: doc.item } : {}),
  };
}

/** As `get_fields_for_response`: asked for (`_fields`), and shown in the request's context. */
export function wantsField(req: RestRequest, schema: ItemSchema, field: string): boolean {
  const contexts = schema.properties[field.split('.')[0]]?.context;
  return req.wants(field) && (!contexts || contexts.includes(req.context));
}

/**
 * A revision as the REST API shows it (`WP_REST_Revisions_Controller::prepare_item_for_response`):
 * only `raw` and `rendered` of the text fields the schema has, the excerpt rendered from itself
 * alone (never generated from the content), and a `parent` link as the only link. The parent is
 * named as its type names it in URLs (a template by `<theme>//<slug>`) when the record belongs to
 * `parent`, the item the route names. Fields the request does not want are not computed; long
 * content comes `rendered` beforehand (`renderLongRevision`).
 */
export function prepareRevision<Item extends RevisionedItem>(
  record: RevisionRecord,
  req: RestRequest,
  type: RevisionedType<Item>,
  schema: ItemSchema,
  parent?: Item,
  rendered?: RenderedFields,
): Record<string, unknown> {
  const ofParent = parent !== undefined && record.parent === parent._id;
  const data: Record<string, unknown> = {};
  const want = (field: string) => wantsField(req, schema, field);
  const text = (field: 'title' | 'content' | 'excerpt', render: (raw: string) => string) => {
    if (!schema.properties[field] || !want(field)) return;
    const raw = record[field] ?? '';
    const out: Record<string, string> = { raw };
    if (want(`${field}.rendered`)) out.rendered = render(raw);
    data[field] = out;
  };
  if (want('author')) data.author = record.author;
  if (want('date')) data.date = record.date;
  if (want('date_gmt')) data.date_gmt = record.dateGmt;
  if (want('id')) data.id = record.id;
  if (want('modified')) data.modified = record.modified;
  if (want('modified_gmt')) data.modified_gmt = record.modifiedGmt;
  if (want('parent')) data.parent = ofParent ? type.route.idOf(parent) : record.parent;
  if (want('slug')) data.slug = record.slug;
  if (want('guid')) data.guid = { rendered: record.guid, raw: record.guid };
  text('title', renderTitle);
  text('content', (raw) => rendered?.content ?? renderContent(raw));
  // `the_excerpt` on the raw excerpt: an empty one stays empty.
  text('excerpt', (raw) => renderExcerpt(raw, ''));
  if (type.extraFields) {
    for (const [field, value] of Object.entries(type.extraFields(record, req))) if (want(field) && !Object.hasOwn(data, field)) data[field] = value;
  }
  if (want('_links') && record.parent) {
    const { namespace, base } = type.route;
    const route = ofParent ? itemPath(type.route, parent) : `/${namespace}/${base}/${record.parent}`;
    data._links = { parent: [{ href: req.url(route) }] } satisfies Links;
  }
  return data;
}

/**
 * The content of a long revision rendered first, off the event loop (and kept by its id and
 * version, as a post's is): a list of long revisions rendered each where it was asked for.
 */
export async function renderLongRevision(doc: RevisionDoc, req: RestRequest, schema: ItemSchema, deps: Pick<Deps, 'renderer'>): Promise<RenderedFields | undefined> {
  if (!schema.properties.content || !wantsField(req, schema, 'content.rendered') || !deps.renderer.isLong(doc.content ?? '')) return undefined;
  return deps.renderer.render({ key: `revision:${renderKey(doc._id, doc.version)}`, content: doc.content, excerpt: undefined, renderContent: true });
}
