import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type Permission } from '../../rest/route.js';
import { POST_TYPES } from '../../registry/post-types.js';

export const CannotViewThemes = defineAuthError('rest_cannot_view_themes', 'Sorry, you are not allowed to view themes.');
export const CannotViewActiveTheme = defineAuthError('rest_cannot_view_active_theme', 'Sorry, you are not allowed to view the active theme.');

const managesThemes = (req: RestRequest) => can(req.user, 'switch_themes') || can(req.user, 'manage_network_themes');

/** `check_read_active_theme_permission`: anyone who edits posts of some REST post type may see the active theme. */
function canReadActiveTheme(req: RestRequest): true {
  if (can(req.user, 'edit_posts')) return true;
  if (POST_TYPES.some((type) => type.show_in_rest && can(req.user, type.caps.edit_posts))) return true;
  throw new CannotViewActiveTheme(req);
}

/** The list is for theme managers; others may ask for exactly `status=active`. */
export const canListThemes: Permission<Deps> = (req) => {
  if (managesThemes(req)) return true;
  const status = req.params.status;
  if (Array.isArray(status) && status.length === 1 && status[0] === 'active') return canReadActiveTheme(req);
  throw new CannotViewThemes(req);
};

export const canGetTheme: Permission<Deps> = (req, deps) => {
  if (managesThemes(req)) return true;
  if (req.params.stylesheet === deps.themes.active.stylesheet) return canReadActiveTheme(req);
  throw new CannotViewThemes(req);
};
