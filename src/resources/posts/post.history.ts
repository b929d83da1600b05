import { type Db } from 'mongodb';
import { type Deps } from '../../deps.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { etagHeader } from '../../rest/conditional.js';
import { type RestErrorClass } from '../../rest/errors.js';
import { findItem, leavingOut, type CommittedChange, type HistoryType } from '../../store/history/kernel.js';
import { PostInvalidId } from '../post-errors.js';
import { isPostEvent, type PostEvent } from './post.events.js';
import { postsCollection, REVISIONED_FIELDS, type PostDoc } from './post.model.js';
import { foldPost, POSTS_CONTROLLER_TYPES, postsProjection } from './post.projection.js';

/** What a force delete erases: the item's own words and secrets. */
const CONTENT_FIELDS: readonly string[] = [...REVISIONED_FIELDS, 'password', 'meta'];

/** The items of the posts controller (posts, pages) as the change-log kernel sees them. */
export const postHistory: HistoryType<PostDoc, PostEvent, Deps> = Object.freeze({
  projection: postsProjection,
  isEvent: isPostEvent,
  streamTypeOf: (doc: PostDoc) => doc.type,
  load: (db: Db, id: number, leftOut?: readonly string[]) => postsCollection(db).findOne({ _id: id, type: { $in: [...POSTS_CONTROLLER_TYPES] } }, leavingOut(leftOut)),
  fold: foldPost,
  // The seq of the last change to the item itself: others' autosaves leave it.
  etag: (doc: PostDoc) => String(doc.changeSeq),
  contentFields: CONTENT_FIELDS,
  blank: (field: string) => (field === 'meta' ? {} : ''),
  NotFound: PostInvalidId,
  // What other resources do after each committed write of an item (`save_post`): term counts, menus
  // that add pages. Run by the kernel, so that no write path has to remember it.
  afterCommit: (deps: Deps, change: CommittedChange<PostDoc>) => deps.hooks.afterPostWrite(deps, change),
});

/** The item of the route's type named by `id`, or null: the one lookup every route uses. */
export async function findPost(deps: Deps, type: Pick<PostTypeDef, 'slug'>, id: unknown): Promise<PostDoc | null> {
  const doc = await findItem(deps, postHistory, Number(id));
  return doc?.type === type.slug ? doc : null;
}

/** `findPost`, or a 404: `rest_post_invalid_id`, or the route's own (`rest_post_invalid_parent` for a revision's parent). */
export async function findPostOfType(deps: Deps, type: Pick<PostTypeDef, 'slug'>, id: unknown, NotFound: RestErrorClass = PostInvalidId): Promise<PostDoc> {
  const doc = await findPost(deps, type, id);
  if (!doc) throw new NotFound();
  return doc;
}

/** The `ETag` header of an item. */
export const postEtag = (doc: PostDoc) => etagHeader(postHistory.etag(doc));
