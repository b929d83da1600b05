import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type Permission } from '../../rest/route.js';
import {
  CannotActivatePlugin,
  CannotActivatePlugins,
  CannotDeactivatePlugin,
  CannotDeletePlugins,
  CannotInstallPlugin,
  CannotManagePlugins,
  CannotViewPlugin,
  CannotViewPlugins,
} from './plugin.errors.js';
import { findPlugin } from './plugin.queries.js';

export const canListPlugins: Permission<Deps> = (req) => {
  if (!can(req.user, 'activate_plugins')) throw new CannotViewPlugins(req);
  return true;
};

export const canGetPlugin: Permission<Deps> = (req) => {
  if (!can(req.user, 'activate_plugins')) throw new CannotViewPlugin(req);
  return true;
};

/** Installing needs `install_plugins`, and activating at once `activate_plugins` as well. */
export const canInstallPlugin: Permission<Deps> = (req) => {
  if (!can(req.user, 'install_plugins')) throw new CannotInstallPlugin(req);
  if (req.params.status !== 'inactive' && !can(req.user, 'activate_plugins')) throw new CannotActivatePlugins(req);
  return true;
};

/** WordPress checks the plugin exists here (404), then the capability for the change asked for. */
export const canUpdatePlugin: Permission<Deps> = async (req, deps) => {
  if (!can(req.user, 'activate_plugins')) throw new CannotManagePlugins(req);
  const plugin = await findPlugin(req, deps);
  const status = req.params.status;
  if (status === undefined || status === plugin.status) return true;
  // `activate_plugin` and `deactivate_plugin` on one plugin map to `activate_plugins` (map_meta_cap).
  if (status === 'active' && !can(req.user, 'activate_plugins')) throw new CannotActivatePlugin(req);
  if (status === 'inactive' && !can(req.user, 'activate_plugins')) throw new CannotDeactivatePlugin(req);
  return true;
};

export const canDeletePlugin: Permission<Deps> = async (req, deps) => {
  if (!can(req.user, 'activate_plugins')) throw new CannotManagePlugins(req);
  if (!can(req.user, 'delete_plugins')) throw new CannotDeletePlugins(req);
  await findPlugin(req, deps);
  return true;
};
