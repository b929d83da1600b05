import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, ForbiddenContext } from '../../rest/errors.js';
import { type Permission } from '../../rest/route.js';

const CannotView = defineAuthError('rest_cannot_view', 'Sorry, you are not allowed to view menu items.');
const CannotCreate = defineAuthError('rest_cannot_create', 'Sorry, you are not allowed to create menu items as this user.');
const CannotEdit = defineAuthError('rest_cannot_edit', 'Sorry, you are not allowed to edit this menu item.');
const CannotDelete = defineAuthError('rest_cannot_delete', 'Sorry, you are not allowed to delete this menu item.');

// Every capability of the nav_menu_item type maps to edit_theme_options.
const CAPABILITY = 'edit_theme_options';

export const canReadMenuItems: Permission<Deps> = (req) => {
  if (!can(req.user, CAPABILITY)) throw new CannotView(req);
  if (req.context === 'edit' && !can(req.user, CAPABILITY)) throw new ForbiddenContext(req);
  return true;
};

const requiring =
  (Refusal: typeof CannotCreate): Permission<Deps> =>
  (req) => {
    if (!can(req.user, CAPABILITY)) throw new Refusal(req);
    return true;
  };

export const canCreateMenuItems = requiring(CannotCreate);
export const canEditMenuItems = requiring(CannotEdit);
export const canDeleteMenuItems = requiring(CannotDelete);
