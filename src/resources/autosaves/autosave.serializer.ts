import { createHash } from 'node:crypto';
import { type RestRequest } from '../../rest/rest-request.js';
import { type ItemSchema } from '../../rest/schema.js';
import { prepareRevision, type RevisionedItem, type RevisionedType, type RevisionRecord } from '../revisions/index.js';

/** What `preview_link` is built from: the item, and whether the record is the item itself (a draft saved in place). */
export interface PreviewOf<Item extends RevisionedItem = RevisionedItem> {
  item: Item;
  inPlace: boolean;
}

// WordPress's nonces last a day in two halves (`wp_nonce_tick`).
const NONCE_TICK_MS = 12 * 60 * 60 * 1000;

/**
 * The `preview_nonce` of a preview link, shaped as WordPress's (ten hex digits that change every
 * twelve hours, per user and item). The service has no preview screen that checks it; it keeps
 * the link as clients of WordPress expect it.
 */
function previewNonce(itemId: number, userId: number, now: Date): string {
  const tick = Math.ceil(now.getTime() / NONCE_TICK_MS);
  return createHash('sha256').update(`${tick}|post_preview_${itemId}|${userId}`).digest('hex').slice(-12, -2);
}

/**
 * `get_preview_post_link`: the item's permalink with `preview=true`, and for an autosave record
 * also `preview_id` and `preview_nonce`; empty for types whose items cannot be viewed.
 */
export function previewLink<Item extends RevisionedItem>(type: RevisionedType<Item>, preview: PreviewOf<Item>, req: RestRequest, siteUrl: string, now: Date): string {
  if (!type.permalink) return '';
  const itemId = preview.item._id;
  const link = type.permalink(siteUrl, preview.item);
  const args = preview.inPlace ? [] : [`preview_id=${itemId}`, `preview_nonce=${previewNonce(itemId, req.user.id, now)}`];
  return `${link}${link.includes('?') ? '&' : '?'}${[...args, 'preview=true'].join('&')}`;
}

/** An autosave as the REST API shows it: the revision shape plus `preview_link` (edit context only). */
export function prepareAutosave<Item extends RevisionedItem>(
  record: RevisionRecord,
  req: RestRequest,
  type: RevisionedType<Item>,
  schema: ItemSchema,
  preview: PreviewOf<Item>,
  deps: { siteUrl: string; clock: () => Date },
): Record<string, unknown> {
  const data = prepareRevision(record, req, type, schema, preview.item);
  if (req.context === 'edit' && req.wants('preview_link')) {
    const { _links: links, ...fields } = data;
    return { ...fields, preview_link: previewLink(type, preview, req, deps.siteUrl, deps.clock()), ...(links ? { _links: links } : {}) };
  }
  return data;
}
