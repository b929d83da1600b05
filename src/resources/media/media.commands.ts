import { type Db, type ObjectId } from 'mongodb';
import { type Deps } from '../../deps.js';
import { sanitizeSlug } from '../../lib/slugs.js';
import { RestError } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { readSetting } from '../settings/index.js';
import { siteChanges, siteNow, uniqueSlug, updatePost, postHistory, postsCollection, type PostDoc, type PostFields, canEditPost, changesFromRequest, rawText } from '../posts/index.js';
import { describeFile, NotAnImage } from './media.details.js';
import { NOT_AN_IMAGE, CannotUploadToPost, InvalidParentType, SideloadError, UploadNameTaken, UploadNoData, UploadUnknownError } from './media.errors.js';
import { beginUpload, endUpload, filesOf, releaseName, removeFiles } from './media.files.js';
import { type AttachmentDoc } from './media.model.js';
import { attachmentType } from './media.schema.js';
import { uploadUrl } from './media.serializer.js';
import { receiveUpload, type ReceivedUpload } from './media.upload.js';
import { isDuplicateKey } from '../../store/database/mongo.js';

/** Fields of posts that media items do not have (WordPress removes them from the attachment schema). */
const NOT_MEDIA_FIELDS = ['content', 'excerpt', 'password', 'format', 'menu_order', 'sticky', 'featured_media', 'parent', 'terms'] as const;
/** The posts' parameters of those fields, which the media routes do not declare (a media item's parent is `post`). */
const NOT_MEDIA_PARAMS = ['content', 'excerpt', 'password', 'format', 'menu_order', 'sticky', 'featured_media', 'parent'];

/**
 * The fields a create or update sets: the posts rules for what media items share with posts
 * (title, author, dates, slug, comment and ping status, template, meta), then the media ones.
 */
type AttachmentChanges = Partial<PostFields> & { alt_text?: string };

async function attachmentChanges(req: RestRequest, deps: Deps, current: AttachmentDoc | null): Promise<AttachmentChanges> {
  const changes: AttachmentChanges = await changesFromRequest(req, deps, attachmentType, current, NOT_MEDIA_PARAMS);
  for (const field of NOT_MEDIA_FIELDS) delete changes[field];
  // Media items are `inherit` (shown with their post) unless private (`wp_insert_attachment`).
  if (req.params.status !== undefined) changes.status = req.params.status === 'private' ? 'private' : 'inherit';
  else delete changes.status;
  // Caption, description and alt text come filtered by their save filters (src/registry/saved-fields.ts).
  const caption = rawText(req.params.caption);
  if (caption !== undefined) changes.excerpt = caption;
  const description = rawText(req.params.description);
  if (description !== undefined) changes.content = description;
  if (req.params.alt_text !== undefined) changes.alt_text = String(req.params.alt_text);
  if (req.params.post !== undefined) changes.parent = await attachableParent(req, deps, Number(req.params.post));
  return changes;
}

/** The post a media item is attached to: not a media item, and one the caller may edit (`rest_cannot_edit`). */
export async function attachableParent(req: RestRequest, deps: Deps, id: number): Promise<number> {
  if (id === 0) return 0;
  const parent = (await postsCollection(deps.store.db).findOne({ _id: id })) as PostDoc | null;
  if (parent?.type === 'attachment') throw new InvalidParentType();
  if (!parent || !canEditPost(req.user, parent)) throw new CannotUploadToPost(req);
  return id;
}

/**
 * An upload, whole (`WP_REST_Attachments_Controller::create_item`): the file is streamed into
 * GridFS, its sizes or details made, and only then is the item written. Anything refused or
 * failing before that write removes every file stored for it; the write is the commit point.
 */
export async function createAttachment(req: RestRequest, deps: Deps): Promise<AttachmentDoc> {
  if (!req.stream) throw new UploadNoData();
  const db = deps.store.db;
  const id = await deps.ids.next('content');
  const now = await siteNow(deps);
  const folder = `${now.local.slice(0, 4)}/${now.local.slice(5, 7)}`;
  const multipart = /^multipart\//i.test(req.headers['content-type'] ?? '');
  await beginUpload(db, id, deps.clock());
  let received;
  try {
    received = await receiveUpload(req.stream, req.headers, { db, attachment: id, folder, limit: deps.config.maxUploadBytes });
  } catch (error) {
    await endUpload(db, id).catch(() => {});
    throw nameTaken(error) ? new UploadNameTaken() : error;
  }
  const stored: ObjectId[] = [received.file.id];
  let doc: AttachmentDoc;
  try {
    await req.acceptFields(received.fields);
    // A title taken from the file name is a title like one sent: it goes through the same filters.
    if (!rawText(req.params.title)) await req.acceptFields([['title', received.title]]);
    const changes = await attachmentChanges(req, deps, null);
    const details = await describeUpload(db, id, received, stored, multipart);
    const title = changes.title ?? '';
    const commentStatus = String((await readSetting(db, 'default_comment_status')) ?? 'open');
    const slug = await uniqueSlug(deps, 'attachment', sanitizeSlug(title) || String(id), id);
    const file = `${received.stem}.${received.extension}`;
    const fields = newAttachmentFields({ title, slug, author: req.user.id, now, commentStatus, guid: uploadUrl(deps.siteUrl, file) });
    doc = attachmentDoc(id, { ...fields, ...changes }, received, file, details);
    await postsCollection(db).insertOne(doc);
  } catch (error) {
    await removeFiles(db, stored)
      .then(() => releaseName(db, received.stem))
      .then(() => endUpload(db, id))
      .catch((cleanup: unknown) => req.log.error({ err: cleanup, attachment: id }, 'files of a refused upload not removed; the next start removes them'));
    throw nameTaken(error) ? new UploadNameTaken() : error;
  }
  // Written: the upload is whole whatever happens here (an entry left is only forgotten at the next start).
  await endUpload(db, id).catch(() => {});
  return doc;
}

/** The file's sizes or details; a file that is no image where one is required is the client's mistake. */
async function describeUpload(db: Db, id: number, received: ReceivedUpload, stored: ObjectId[], multipart: boolean): Promise<Record<string, unknown>> {
  try {
    return await describeFile(db, { id: received.file.id, attachment: id, stem: received.stem, extension: received.extension, mime: received.mime, size: received.file.size }, stored);
  } catch (error) {
    if (!(error instanceof NotAnImage)) throw error;
    throw multipart ? new UploadUnknownError(NOT_AN_IMAGE) : new SideloadError(NOT_AN_IMAGE);
  }
}

/** A new media item's post fields before the request's changes. */
function newAttachmentFields(given: {
  title: string;
  slug: string;
  author: number;
  now: { local: string; gmt: string };
  commentStatus: string;
  guid: string;
}): PostFields {
  const { title, slug, author, now, commentStatus, guid } = given;
  return {
    type: 'attachment',
    status: 'inherit',
    trashedFrom: null,
    title,
    content: '',
    excerpt: '',
    slug,
    author,
    date: now.local,
    dateGmt: now.gmt,
    modified: now.local,
    modifiedGmt: now.gmt,
    password: '',
    featured_media: 0,
    comment_status: commentStatus,
    ping_status: 'closed',
    format: '',
    sticky: false,
    template: '',
    meta: {},
    terms: {},
    parent: 0,
    menu_order: 0,
    guid,
  };
}

/** The media item as first stored: its fields, with the stored file and its details. */
function attachmentDoc(id: number, fields: PostFields & { alt_text?: string }, received: ReceivedUpload, file: string, details: Record<string, unknown>): AttachmentDoc {
  const { meta, alt_text: altText, ...rest } = fields;
  return {
    ...rest,
    _id: id,
    meta: JSON.stringify(meta ?? {}),
    version: 0,
    changeSeq: 0,
    revisionCount: 0,
    headRevision: null,
    headFingerprint: null,
    latestRevision: null,
    mime_type: received.mime,
    file,
    alt_text: altText ?? '',
    media_details: details,
    missing_sizes: [],
  };
}

/** A stored name already used by a size of another item (names are claimed per upload, sizes follow them). */
const nameTaken = (error: unknown) => !(error instanceof RestError) && isDuplicateKey(error);

/** Changes a media item's fields; its file stays. */
export async function updateAttachment(req: RestRequest, deps: Deps, current: AttachmentDoc): Promise<AttachmentDoc> {
  const changes = await attachmentChanges(req, deps, current);
  const now = await siteNow(deps);
  const { meta, ...rest } = changes;
  const set: Partial<AttachmentDoc> = { ...rest, modified: now.local, modifiedGmt: now.gmt };
  if (meta !== undefined) set.meta = JSON.stringify(meta);
  const updated = await postsCollection(deps.store.db).findOneAndUpdate({ _id: current._id, type: 'attachment' }, { $set: set }, { returnDocument: 'after' });
  return (updated ?? { ...current, ...set }) as AttachmentDoc;
}

/**
 * Deletes a media item and every file stored for it. The item goes first (the commit point): a
 * failure after it leaves files no item names, never an item without its file.
 */
export async function deleteAttachment(req: RestRequest, deps: Deps, current: AttachmentDoc): Promise<void> {
  const db = deps.store.db;
  const files = await filesOf(db, current._id);
  await postsCollection(db).deleteOne({ _id: current._id, type: 'attachment' });
  await removeFiles(db, files)
    .then(() => releaseName(db, current.file.replace(/\.[^.]*$/, '')))
    .catch((error: unknown) => req.log.error({ err: error, attachment: current._id }, 'files of a deleted media item not removed'));
  // Posts showing it as their featured image no longer do (`wp_delete_attachment` drops their `_thumbnail_id`).
  const featuring = await postsCollection(db).find({ featured_media: current._id }, { projection: { _id: 1 } }).toArray();
  for (const post of featuring) {
    await updatePost(deps, post._id, siteChanges({ featured_media: 0 }), req.user.id, { revisions: false, keepModified: true }).catch((error: unknown) => {
      if (!(error instanceof postHistory.NotFound)) req.log.error({ err: error, post: post._id }, 'featured media of a post not cleared');
    });
  }
}
