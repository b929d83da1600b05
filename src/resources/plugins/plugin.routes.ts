import { type Deps } from '../../deps.js';
import { argsFromSchema, contextArg } from '../../rest/item-schema.js';
import { created } from '../../rest/rest-response.js';
import { CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE } from '../../rest/route.js';
import { deletePlugin, installPlugin, setPluginStatus } from './plugin.commands.js';
import { PLUGIN_STATUSES, type PluginStatus } from './plugin.model.js';
import { PLUGIN_SLUG_PATTERN } from './plugin.package.js';
import { canDeletePlugin, canGetPlugin, canInstallPlugin, canListPlugins, canUpdatePlugin } from './plugin.permissions.js';
import { findPlugin, listPlugins } from './plugin.queries.js';
import { pluginSchema } from './plugin.schema.js';
import { preparePlugin } from './plugin.serializer.js';

// WordPress's plugins controller never filters its answers by context: every field, whatever was
// asked (each endpoint answers in `edit`).
const pluginArg = {
  // `<folder>/<file>`, as the packages of the project's plugin directory are named.
  plugin: { description: 'The plugin file.', type: 'string', pattern: '^[^.\\/]+(?:\\/[^.\\/]+)?$', examples: ['reading-time/reading-time', 'hello-blocks/hello-blocks'] },
} as const;

export const pluginRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/plugins',
    schema: pluginSchema,
    endpoints: [
      {
        methods: READABLE,
        args: {
          context: contextArg(pluginSchema),
          search: { description: 'Limit results to those matching a string.', type: 'string' },
          status: { description: 'Limits results to plugins with the given status.', type: 'array', items: { type: 'string', enum: [...PLUGIN_STATUSES] } },
        },
        permission: canListPlugins,
        response: { body: 'items' },
        answerContext: 'edit',
        handler: async (req, deps) => {
          const docs = await listPlugins(req, deps);
          return docs.map((doc) => preparePlugin(doc, req));
        },
      },
      {
        methods: CREATABLE,
        args: {
          slug: { description: 'WordPress.org plugin directory slug.', type: 'string', pattern: PLUGIN_SLUG_PATTERN, required: true },
          status: { description: 'The plugin activation status.', type: 'string', enum: [...PLUGIN_STATUSES], default: 'inactive' },
        },
        permission: canInstallPlugin,
        response: { status: 201 },
        answerContext: 'edit',
        handler: async (req, deps) => {
          const doc = await installPlugin(deps, String(req.params.slug), req.params.status as PluginStatus);
          return created(preparePlugin(doc, req), req.url(`/cms/v2/plugins/${doc._id}`));
        },
      },
    ],
  },
  {
    path: '/plugins/(?P<plugin>[^.\\/]+(?:\\/[^.\\/]+)?)',
    schema: pluginSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { context: contextArg(pluginSchema), ...pluginArg },
        permission: canGetPlugin,
        answerContext: 'edit',
        handler: async (req, deps) => {
          const doc = await findPlugin(req, deps);
          return preparePlugin(doc, req);
        },
      },
      {
        methods: EDITABLE,
        args: { context: contextArg(pluginSchema), ...pluginArg, ...argsFromSchema(pluginSchema, 'update') },
        permission: canUpdatePlugin,
        answerContext: 'edit',
        handler: async (req, deps) => {
          const doc = await findPlugin(req, deps);
          const updated = req.params.status === undefined ? doc : await setPluginStatus(deps, doc, req.params.status as PluginStatus);
          return preparePlugin(updated, req);
        },
      },
      {
        methods: DELETABLE,
        args: { context: contextArg(pluginSchema), ...pluginArg },
        permission: canDeletePlugin,
        answerContext: 'edit',
        handler: async (req, deps) => {
          const doc = await findPlugin(req, deps);
          await deletePlugin(deps, doc);
          const previous = preparePlugin(doc, req);
          delete previous._links;
          return { deleted: true, previous };
        },
      },
    ],
  },
]);
