import { defineAuthError, defineRestError, defineRestErrorWith } from '../../rest/errors.js';

export const NotLocked = defineRestError('rest_not_locked', 'The item is not locked.', 404);

/** WordPress's `wp_check_post_lock` notice: "%s is currently editing this post." */
export const PostLocked = defineRestErrorWith('rest_post_locked', 409, (name: string, data: Record<string, unknown>) => ({
  message: `${name} is currently editing this item.`,
  data,
}));

export const CannotReleaseLock = defineAuthError('rest_cannot_unlock', 'Sorry, you are not allowed to release the lock someone else holds on this item.');
