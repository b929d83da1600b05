import { defineAuthError, defineRestError, defineRestErrorWith } from '../../rest/errors.js';

export const PluginNotFound = defineRestError('rest_plugin_not_found', 'Plugin not found.', 404);
/** `plugins_api()` knows no such slug in the directory. */
export const PluginsApiFailed = defineRestError('plugins_api_failed', 'Plugin not found.', 404);
// WordPress answers an install over an installed plugin with 500 (`folder_exists`, from the
// upgrader); a client's mistake is a 400 here (CONTRACT.md), with WordPress's code.
export const FolderExists = defineRestError('folder_exists', 'Destination folder already exists.', 400);
/** The upgrader's `incompatible_archive` wording, with the file and the problem the package was refused for. */
export const IncompatibleArchive = defineRestErrorWith('incompatible_archive', 400, (file: string, problem: string) => ({
  message: `The package could not be installed. ${file} ${problem}.`,
  data: { file, problem },
}));
export const CannotDeleteActivePlugin = defineRestError('rest_cannot_delete_active_plugin', 'Cannot delete an active plugin. Please deactivate it first.', 400);

export const CannotViewPlugins = defineAuthError('rest_cannot_view_plugins', 'Sorry, you are not allowed to manage plugins for this site.');
export const CannotViewPlugin = defineAuthError('rest_cannot_view_plugin', 'Sorry, you are not allowed to manage plugins for this site.');
export const CannotManagePlugins = defineAuthError('rest_cannot_manage_plugins', 'Sorry, you are not allowed to manage plugins for this site.');
export const CannotDeletePlugins = defineAuthError('rest_cannot_manage_plugins', 'Sorry, you are not allowed to delete plugins for this site.');
export const CannotInstallPlugin = defineAuthError('rest_cannot_install_plugin', 'Sorry, you are not allowed to install plugins on this site.');
export const CannotActivatePlugins = defineAuthError('rest_cannot_activate_plugin', 'Sorry, you are not allowed to activate plugins.');
export const CannotActivatePlugin = defineAuthError('rest_cannot_activate_plugin', 'Sorry, you are not allowed to activate this plugin.');
export const CannotDeactivatePlugin = defineAuthError('rest_cannot_deactivate_plugin', 'Sorry, you are not allowed to deactivate this plugin.');
