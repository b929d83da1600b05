import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type Permission } from '../../rest/route.js';
import { findPostStatus, type PostStatusDef } from '../../registry/post-statuses.js';
import { POST_TYPES } from '../../registry/post-types.js';

export const StatusInvalid = defineRestError('rest_status_invalid', 'Invalid status.', 404);
export const CannotReadStatus = defineAuthError('rest_cannot_read_status', 'Cannot view status.');
export const CannotViewStatuses = defineAuthError('rest_cannot_view', 'Sorry, you are not allowed to manage post statuses.');

const editsSomePostType = (req: RestRequest) => POST_TYPES.some((type) => type.show_in_rest && can(req.user, type.caps.edit_posts));

/** Public statuses are for everyone; the others (trash included, internal ones never) for whoever edits some post type. */
export function canReadStatus(req: RestRequest, status: PostStatusDef): boolean {
  if (status.public) return true;
  return (!status.internal || status.slug === 'trash') && editsSomePostType(req);
}

export const canListStatuses: Permission<Deps> = (req) => {
  if (req.context === 'edit' && !editsSomePostType(req)) throw new CannotViewStatuses(req);
  return true;
};

export const canGetStatus: Permission<Deps> = (req) => {
  const status = findPostStatus(String(req.params.status));
  if (!status) throw new StatusInvalid();
  if (!canReadStatus(req, status)) throw new CannotReadStatus(req);
  return true;
};
