import { type Deps } from '../../deps.js';
import { defineAuthError } from '../../rest/errors.js';
import { type Permission } from '../../rest/route.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { canEditPost } from '../posts/post.permissions.js';
import { findHistoryItem } from './history.queries.js';

export const CannotReadHistory = defineAuthError('rest_cannot_read', 'Sorry, you are not allowed to view the history of this post.');

/**
 * As WordPress's revisions controller: the item must exist (404 first, even for anonymous
 * callers), and its history is for those who may edit it.
 */
export const canViewHistory =
  (postType: PostTypeDef): Permission<Deps> =>
  async (req, deps) => {
    const doc = await findHistoryItem(deps, postType, Number(req.params.id));
    if (!canEditPost(req.user, doc)) throw new CannotReadHistory(req);
    return true;
  };
