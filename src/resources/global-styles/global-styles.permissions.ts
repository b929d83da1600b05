import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type Permission } from '../../rest/route.js';
import { findGlobalStyles, type GlobalStylesDoc } from './global-styles.model.js';

export const GlobalStylesNotFound = defineRestError('rest_global_styles_not_found', 'No global styles config exist with that id.', 404);
export const CannotViewGlobalStyles = defineAuthError('rest_cannot_view', 'Sorry, you are not allowed to view this global style.');
export const CannotEditGlobalStyles = defineAuthError('rest_cannot_edit', 'Sorry, you are not allowed to edit this global style.');
export const GlobalStylesForbiddenContext = defineAuthError('rest_forbidden_context', 'Sorry, you are not allowed to edit this global style.');
export const CannotManageGlobalStyles = defineAuthError('rest_cannot_manage_global_styles', 'Sorry, you are not allowed to access the global styles on this site.');

/** The record the route's id names; anything but a positive integer of a record is not found. */
export function requestedGlobalStyles(req: RestRequest, deps: Deps): Promise<GlobalStylesDoc> {
  return req.memo('global-styles', async () => {
    const raw = String(req.params.id);
    const id = /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
    const doc = id > 0 ? await findGlobalStyles(deps, id) : null;
    if (!doc) throw new GlobalStylesNotFound();
    return doc;
  });
}

// The post type's `read` maps to `edit_posts` (WordPress 6.3 and later), its other capabilities to `edit_theme_options`.
const canRead = (req: RestRequest) => can(req.user, 'edit_posts');
const canEdit = (req: RestRequest) => can(req.user, 'edit_theme_options');

export const canGetGlobalStyles: Permission<Deps> = async (req, deps) => {
  await requestedGlobalStyles(req, deps);
  if (req.context === 'edit' && !canEdit(req)) throw new GlobalStylesForbiddenContext(req);
  if (!canRead(req)) throw new CannotViewGlobalStyles(req);
  return true;
};

export const canUpdateGlobalStyles: Permission<Deps> = async (req, deps) => {
  await requestedGlobalStyles(req, deps);
  if (!canEdit(req)) throw new CannotEditGlobalStyles(req);
  return true;
};

export const canReadThemeStyles: Permission<Deps> = (req) => {
  if (!canEdit(req)) throw new CannotManageGlobalStyles(req);
  return true;
};
