import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type Permission } from '../../rest/route.js';
import { CannotManageWidgets } from './widget-type.errors.js';

/** Widgets, sidebars and widget types are for whoever may change the theme's options (`edit_theme_options`). */
export const canManageWidgets: Permission<Deps> = (req) => {
  if (!can(req.user, 'edit_theme_options')) throw new CannotManageWidgets(req);
  return true;
};
