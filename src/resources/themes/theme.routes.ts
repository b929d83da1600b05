import { type Deps } from '../../deps.js';
import { defineRoutes, READABLE } from '../../rest/route.js';
import { RestResponse } from '../../rest/rest-response.js';
import { STYLESHEET_PATTERN, ThemeNotFound } from '../theme-stylesheets.js';
import { canGetTheme, canListThemes } from './theme.permissions.js';
import { themeCollectionArgs, themeItemArgs, themeSchema } from './theme.schema.js';
import { prepareTheme } from './theme.serializer.js';

/** WordPress's `WP_REST_Themes_Controller`: read-only; the list is one page with its totals. */
export const themeRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/themes',
    schema: themeSchema,
    endpoints: [
      {
        methods: READABLE,
        args: themeCollectionArgs,
        permission: canListThemes,
        response: { body: 'items' },
        handler: async (req, deps) => {
          const statuses = req.params.status as string[] | undefined;
          const items = [];
          for (const theme of deps.themes.all) {
            const status = theme.stylesheet === deps.themes.active.stylesheet ? 'active' : 'inactive';
            if (statuses && !statuses.includes(status)) continue;
            items.push(await prepareTheme(theme, req, deps));
          }
          return new RestResponse(items, 200, { 'X-WP-Total': String(items.length), 'X-WP-TotalPages': '1' });
        },
      },
    ],
  },
  {
    path: `/themes/(?P<stylesheet>${STYLESHEET_PATTERN})`,
    schema: themeSchema,
    endpoints: [
      {
        methods: READABLE,
        args: themeItemArgs,
        permission: canGetTheme,
        handler: async (req, deps) => {
          const theme = deps.themes.find(String(req.params.stylesheet));
          if (!theme) throw new ThemeNotFound();
          return prepareTheme(theme, req, deps);
        },
      },
    ],
  },
]);
