import { type Deps } from '../../deps.js';
import { defineAuthError, type AuthErrorClass } from '../../rest/errors.js';
import { CannotReadPostRevisions } from '../post-errors.js';
import { type Permission } from '../../rest/route.js';
import { CannotEditPost } from '../post-errors.js';
import { parentOf, routeRevision } from './revision.queries.js';
import { type RevisionedType } from './revisioned-type.js';

export const CannotReadRevisions = CannotReadPostRevisions;
export const CannotDeleteRevisions = defineAuthError('rest_cannot_delete', 'Sorry, you are not allowed to delete revisions of this post.');

/**
 * `get_items_permissions_check`: the parent must exist and be of the route's type (404 before
 * anything else, even for anonymous callers), and its revisions are for those who may edit it.
 * `param` names the URL parameter holding the parent: `parent`, or `id` on an autosave list.
 */
export const canReadRevisions =
  (type: RevisionedType, param = 'parent', denied: AuthErrorClass = CannotReadRevisions): Permission<Deps> =>
  async (req, deps) => {
    const parent = await parentOf(req, deps, type, param);
    if (!type.canEdit(req.user, parent)) throw new denied(req);
    return true;
  };

/**
 * `delete_item_permissions_check`, in WordPress's order: parent, `delete_post` on the parent,
 * the revision, then the read check. WordPress then asks `delete_post` on the revision itself,
 * which its capability map refuses to everyone; the service lets whoever may delete the parent
 * delete its revisions instead (CONTRACT.md).
 */
export const canDeleteRevision =
  (type: RevisionedType): Permission<Deps> =>
  async (req, deps) => {
    const parent = await parentOf(req, deps, type);
    if (!type.canDelete(req.user, parent)) throw new CannotDeleteRevisions(req);
    await routeRevision(req, deps);
    if (!type.canEdit(req.user, parent)) throw new CannotReadRevisions(req);
    return true;
  };

/** Restoring a revision changes the parent, so it takes `edit_post` on it, as an update does. */
export const canRestoreRevision =
  (type: RevisionedType): Permission<Deps> =>
  async (req, deps) => {
    const parent = await parentOf(req, deps, type);
    if (!type.canEdit(req.user, parent)) throw new CannotEditPost(req);
    return true;
  };
