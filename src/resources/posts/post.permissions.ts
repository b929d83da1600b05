import { can, type PostLike, type Principal } from '../../auth/capabilities.js';
import { findPostStatus } from '../../registry/post-statuses.js';
import { findPostType, type PostTypeDef } from '../../registry/post-types.js';
import { type PostDoc } from './post.model.js';

/** An item as `map_meta_cap` needs it: author, status, and its type's capability names. */
export function postLike(doc: Pick<PostDoc, 'type' | 'author' | 'status' | 'trashedFrom'>): PostLike {
  const type = findPostType(doc.type)!;
  return {
    author: doc.author,
    status: doc.status,
    trashedFrom: doc.trashedFrom ?? undefined,
    caps: type.caps,
    isPublicStatus: findPostStatus(doc.status)?.public ?? false,
  };
}

export const canEditPost = (user: Principal, doc: PostDoc) => can(user, 'edit_post', { post: postLike(doc) });
export const canDeletePost = (user: Principal, doc: PostDoc) => can(user, 'delete_post', { post: postLike(doc) });
export const canReadPost = (user: Principal, doc: PostDoc) => can(user, 'read_post', { post: postLike(doc) }) || findPostStatus(doc.status)?.public === true;

/** Whether the caller may edit some item of the type (create, list drafts, `context=edit` on lists). */
export const canEditPostsOf = (user: Principal, type: PostTypeDef) => can(user, type.caps.edit_posts);
