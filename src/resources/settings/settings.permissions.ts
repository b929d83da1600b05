import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type Caller, defineRestErrorWith } from '../../rest/errors.js';
import { type Permission } from '../../rest/route.js';
import { SETTINGS } from '../../registry/settings.js';

/** `rest_cannot_update` names the setting refused, so its message is made per setting. */
export const CannotUpdateSetting = defineRestErrorWith('rest_cannot_update', 403, (caller: Caller, name: string) => ({
  message: `Sorry, you are not allowed to edit the ${name} option.`,
  status: caller.user.id > 0 ? 403 : 401,
  data: { key: name },
}));

// Every core setting is read and edited with `manage_options` (WordPress's default setting permissions).
export const canReadSettings: Permission<Deps> = (req) => can(req.user, 'manage_options');

/** Each setting sent (a null does not count, as in WordPress's `isset`) must be editable; then `manage_options`. */
export const canUpdateSettings: Permission<Deps> = (req) => {
  const allowed = can(req.user, 'manage_options');
  for (const def of SETTINGS) {
    const value = req.params[def.name];
    if (value !== undefined && value !== null && !allowed) throw new CannotUpdateSetting(req, def.name);
  }
  return allowed;
};
