import { can, type Principal } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { type Permission } from '../../rest/route.js';
import { POST_TYPES } from '../../registry/post-types.js';

export const CannotManageTemplates = defineAuthError('rest_cannot_manage_templates', 'Sorry, you are not allowed to access the templates on this site.');
export const TemplateNotFound = defineRestError('rest_template_not_found', 'No templates exist with that id.', 404);
export const InvalidTemplate = defineRestError('rest_invalid_template', "Templates based on theme files can't be removed.", 400);
export const TemplateAlreadyTrashed = defineRestError('rest_template_already_trashed', 'The template has already been deleted.', 410);

/** Writes to templates ask for `edit_theme_options`. */
export const canManageTemplates: Permission<Deps> = (req) => {
  if (!can(req.user, 'edit_theme_options')) throw new CannotManageTemplates(req);
  return true;
};

/**
 * Reads ask only that the caller may edit posts of some type (WordPress 6.6's
 * `get_items_permissions_check`), so the post editor can show the templates a post uses.
 */
export const canReadTemplates: Permission<Deps> = (req) => {
  if (!canReadTemplateDoc(req.user)) throw new CannotManageTemplates(req);
  return true;
};

/** Whether `user` may read templates: whoever may edit posts of some type. */
export function canReadTemplateDoc(user: Principal): boolean {
  return can(user, 'edit_posts') || POST_TYPES.some((type) => type.show_in_rest && can(user, type.caps.edit_posts));
}
