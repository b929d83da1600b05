import { type Deps } from '../../deps.js';
import { defineRoutes, EDITABLE, READABLE } from '../../rest/route.js';
import { updateSettings } from './settings.commands.js';
import { canReadSettings, canUpdateSettings } from './settings.permissions.js';
import { readSettings } from './settings.queries.js';
import { settingsArgs, settingsSchema } from './settings.schema.js';
import { savesOf } from '../../registry/saved-fields.js';

export const settingsRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/settings',
    schema: settingsSchema,
    endpoints: [
      {
        methods: READABLE,
        args: {},
        permission: canReadSettings,
        handler: (_req, deps) => readSettings(deps.store.db, deps.siteUrl),
      },
      {
        methods: EDITABLE,
        args: settingsArgs,
        saves: savesOf('settings'),
        permission: canUpdateSettings,
        handler: async (req, deps) => {
          await updateSettings(deps, req.params);
          return readSettings(deps.store.db, deps.siteUrl);
        },
      },
    ],
  },
]);
