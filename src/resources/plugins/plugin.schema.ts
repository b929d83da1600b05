import { type ItemSchema, URI_OR_EMPTY } from '../../rest/schema.js';
import { PLUGIN_STATUSES } from './plugin.model.js';

const ALL = ['view', 'edit', 'embed'] as const;
const VIEW_EDIT = ['view', 'edit'] as const;

/**
 * WordPress's plugin schema (`WP_REST_Plugins_Controller::get_item_schema`), `requires_wp` and
 * `requires_php` read as `requires_cms` and `requires_runtime`; `network-active` is a multisite
 * status, not this single site's.
 */
export const pluginSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'plugin',
  type: 'object',
  properties: {
    plugin: { description: 'The plugin file.', type: 'string', pattern: '[^.\\/]+(?:\\/[^.\\/]+)?', readonly: true, context: [...ALL] },
    status: { description: 'The plugin activation status.', type: 'string', enum: [...PLUGIN_STATUSES], context: [...ALL] },
    name: { description: 'The plugin name.', type: 'string', readonly: true, context: [...ALL] },
    // A header that names no address is sent as an empty string, as WordPress sends it.
    plugin_uri: { description: 'The plugin\'s website address.', type: 'string', format: 'uri', readonly: true, context: [...VIEW_EDIT], response: URI_OR_EMPTY },
    author: { description: 'The plugin author.', type: 'object', readonly: true, context: [...VIEW_EDIT], response: { type: 'string' } },
    author_uri: { description: 'Plugin author\'s website address.', type: 'string', format: 'uri', readonly: true, context: [...VIEW_EDIT], response: URI_OR_EMPTY },
    description: {
      description: 'The plugin description.',
      type: 'object',
      readonly: true,
      context: [...VIEW_EDIT],
      properties: {
        raw: { description: 'The raw plugin description.', type: 'string' },
        rendered: { description: 'The plugin description formatted for display.', type: 'string' },
      },
    },
    version: { description: 'The plugin version number.', type: 'string', readonly: true, context: [...VIEW_EDIT] },
    network_only: { description: 'Whether the plugin can only be activated network-wide.', type: 'boolean', readonly: true, context: [...ALL] },
    requires_cms: { description: 'Minimum required version of the service.', type: 'string', readonly: true, context: [...ALL] },
    requires_runtime: { description: 'Minimum required version of the runtime.', type: 'string', readonly: true, context: [...ALL] },
    textdomain: { description: 'The plugin\'s text domain.', type: 'string', readonly: true, context: [...VIEW_EDIT] },
  },
};
