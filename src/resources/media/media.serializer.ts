import { renderContent, renderExcerpt } from '../../lib/content-render.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { preparePost } from '../posts/index.js';
import { type AttachmentDoc, type ImageSize } from './media.model.js';
import { attachmentType } from './media.schema.js';

/** Where a stored file is served: `{site_url}/uploads/YYYY/MM/<name>` (CONTRACT). */
export const uploadUrl = (siteUrl: string, file: string) => `${siteUrl}/uploads/${file.split('/').map(encodeURIComponent).join('/')}`;

/** The folder part of a stored path: `2024/05/photo.jpg` -> `2024/05`. */
const folderOf = (file: string) => file.slice(0, file.lastIndexOf('/'));
const baseName = (file: string) => file.slice(file.lastIndexOf('/') + 1);

/** `media_details` as the REST API shows it: each size gets its `source_url`, and `full` is added when sizes exist. */
export function mediaDetails(doc: AttachmentDoc, siteUrl: string): Record<string, unknown> {
  const stored = doc.media_details;
  if (!stored.sizes) return { ...stored };
  const folder = folderOf(doc.file);
  const sizes: Record<string, unknown> = {};
  for (const [name, size] of Object.entries(stored.sizes as Record<string, ImageSize>)) {
    sizes[name] = { ...size, source_url: uploadUrl(siteUrl, `${folder}/${size.file}`) };
  }
  if (Object.keys(sizes).length) {
    sizes.full = { file: baseName(doc.file), width: stored.width, height: stored.height, mime_type: doc.mime_type, source_url: uploadUrl(siteUrl, doc.file) };
  }
  return { ...stored, sizes };
}

/**
 * A media item as `WP_REST_Attachments_Controller::prepare_item_for_response` shows it: the
 * posts fields of the `attachment` type (by the posts serializer), then the file's.
 */
export function prepareAttachment(doc: AttachmentDoc, req: RestRequest, siteUrl: string, timezone: string): Record<string, unknown> {
  const data = preparePost(doc, req, attachmentType, siteUrl, { timezone, latestRevision: null });
  delete data.password;
  delete data.class_list;
  const want = (field: string) => req.wants(field);
  if (want('link')) data.link = `${siteUrl}/?attachment_id=${doc._id}`;
  if (want('permalink_template')) data.permalink_template = `${siteUrl}/?attachment_id=${doc._id}`;
  if (want('alt_text')) data.alt_text = doc.alt_text;
  if (want('caption')) data.caption = { raw: doc.excerpt, rendered: renderExcerpt(doc.excerpt, doc.content) };
  if (want('description')) data.description = { raw: doc.content, rendered: renderContent(doc.content) };
  if (want('media_type')) data.media_type = doc.mime_type.startsWith('image/') ? 'image' : 'file';
  if (want('mime_type')) data.mime_type = doc.mime_type;
  if (want('media_details')) data.media_details = mediaDetails(doc, siteUrl);
  if (want('post')) data.post = doc.parent || null;
  if (want('source_url')) data.source_url = uploadUrl(siteUrl, doc.file);
  if (want('missing_image_sizes')) data.missing_image_sizes = [...doc.missing_sizes];
  if (data._links) {
    const links = data._links as Links;
    // WordPress links attachments of other items, not of an attachment.
    delete links['https://api.w.org/attachment'];
  }
  return data;
}
