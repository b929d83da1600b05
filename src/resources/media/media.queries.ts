import { findByIds } from '../../store/queries/filters.js';
import { type Filter } from 'mongodb';
import { can, type Principal } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { escapeRegex } from '../../lib/regex.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { postsCollection, type PostDoc, canReadPost, postListQuery } from '../posts/index.js';
import { AttachmentInvalidId } from './media.errors.js';
import { type AttachmentDoc } from './media.model.js';
import { attachmentType } from './media.schema.js';

export const attachments = (deps: Pick<Deps, 'store'>) => postsCollection(deps.store.db) as unknown as import('mongodb').Collection<AttachmentDoc>;

/** The media item `id`, or 404 `rest_post_invalid_id`. */
export async function findAttachment(deps: Pick<Deps, 'store'>, id: unknown): Promise<AttachmentDoc> {
  const doc = await attachments(deps).findOne({ _id: Number(id), type: 'attachment' });
  if (!doc) throw new AttachmentInvalidId();
  return doc;
}

/**
 * Who may see a media item (`WP_REST_Attachments_Controller::check_read_permission`): a private
 * one as a private post; an attached one as its post; an unattached one, everyone.
 */
export function canReadAttachment(user: Principal, doc: AttachmentDoc, parent: PostDoc | null): boolean {
  if (doc.status !== 'inherit') return canReadPost(user, doc);
  if (!doc.parent || !parent) return true;
  return canReadPost(user, parent);
}

/** The posts the items are attached to, by id, read at once. */
export async function parentsOf(deps: Pick<Deps, 'store'>, docs: readonly AttachmentDoc[]): Promise<Map<number, PostDoc>> {
  const ids = [...new Set(docs.map((doc) => doc.parent).filter((id) => id > 0))];
  if (!ids.length) return new Map();
  const parents = await findByIds(postsCollection(deps.store.db), ids);
  return new Map(parents.map((parent) => [parent._id, parent]));
}

/** `status` on the media list: `inherit` for everyone; private items to those who may read them, or their own. */
function mediaStatusFilter(req: RestRequest): Filter<PostDoc> {
  const asked = (req.params.status as string[] | undefined) ?? ['inherit'];
  const open = asked.filter((status) => status !== 'private' || can(req.user, attachmentType.caps.read_private_posts));
  const or: Filter<PostDoc>[] = [{ status: { $in: open } }];
  if (asked.includes('private') && !open.includes('private') && req.user.id > 0) or.push({ status: 'private', author: req.user.id });
  return or.length === 1 ? or[0] : { $or: or };
}

/** `GET /media` parameters: the posts list's, plus `media_type`, `mime_type`, `parent` and `parent_exclude`. */
export function mediaListQuery(req: RestRequest, deps: Pick<Deps, 'store'>) {
  const p = req.params;
  const filters: Filter<PostDoc>[] = [];
  if (typeof p.media_type === 'string') filters.push({ mime_type: { $regex: `^${escapeRegex(p.media_type)}/` } } as Filter<PostDoc>);
  if (typeof p.mime_type === 'string' && p.mime_type !== '') filters.push({ mime_type: p.mime_type } as Filter<PostDoc>);
  const ids = (name: string) => (p[name] as number[] | undefined) ?? [];
  if (ids('parent').length) filters.push({ parent: { $in: ids('parent') } });
  if (ids('parent_exclude').length) filters.push({ parent: { $nin: ids('parent_exclude') } });
  return postListQuery(req, deps, attachmentType, { status: mediaStatusFilter(req), filters });
}
