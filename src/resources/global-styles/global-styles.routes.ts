import { type Deps } from '../../deps.js';
import { defineRoutes, EDITABLE, READABLE } from '../../rest/route.js';
import { STYLESHEET_PATTERN, ThemeNotFound } from '../theme-stylesheets.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type Theme } from '../../themes/themes.js';
import { updateGlobalStyles, type GlobalStylesInput } from './global-styles.commands.js';
import { canGetGlobalStyles, canReadThemeStyles, canUpdateGlobalStyles, requestedGlobalStyles } from './global-styles.permissions.js';
import { globalStylesReadArgs, globalStylesSchema, globalStylesUpdateArgs, stylesheetArg } from './global-styles.schema.js';
import { prepareGlobalStyles } from './global-styles.serializer.js';
import { savesOf } from '../../registry/saved-fields.js';

/** Only the active theme's styles are served here, as in WordPress. */
function activeTheme(req: RestRequest, deps: Deps): Theme {
  if (req.params.stylesheet !== deps.themes.active.stylesheet) throw new ThemeNotFound();
  return deps.themes.active;
}

/**
 * WordPress's `WP_REST_Global_Styles_Controller`: the theme's own styles and its variations
 * (registered first: the item route's id pattern would take them), then the user record.
 */
export const globalStylesRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/global-styles/themes/(?P<stylesheet>[\\/\\s%\\w\\.\\(\\)\\[\\]\\@_\\-]+)/variations',
    endpoints: [
      {
        methods: READABLE,
        args: stylesheetArg,
        permission: canReadThemeStyles,
        response: { body: { type: 'array', items: { type: 'object' } } },
        handler: (req, deps) =>
          activeTheme(req, deps).variations.map((variation) => ({
            version: variation.version,
            title: variation.title,
            settings: variation.settings,
            styles: variation.styles,
          })),
      },
    ],
  },
  {
    path: `/global-styles/themes/(?P<stylesheet>${STYLESHEET_PATTERN})`,
    schema: globalStylesSchema,
    endpoints: [
      {
        methods: READABLE,
        args: stylesheetArg,
        permission: canReadThemeStyles,
        response: { body: { type: 'object', properties: { settings: { type: 'object' }, styles: { type: 'object' } } } },
        handler: (req, deps) => {
          const theme = activeTheme(req, deps);
          const data: Record<string, unknown> = { settings: theme.settings, styles: theme.styles };
          if (req.wants('_links')) data._links = { self: [{ href: req.url(`/cms/v2/global-styles/themes/${theme.stylesheet}`) }] };
          return data;
        },
      },
    ],
  },
  {
    path: '/global-styles/(?P<id>[\\/\\w-]+)',
    schema: globalStylesSchema,
    endpoints: [
      {
        methods: READABLE,
        args: globalStylesReadArgs,
        permission: canGetGlobalStyles,
        handler: async (req, deps) => prepareGlobalStyles(await requestedGlobalStyles(req, deps), req),
      },
      {
        methods: EDITABLE,
        args: globalStylesUpdateArgs,
        saves: savesOf('global-styles'),
        permission: canUpdateGlobalStyles,
        answerContext: 'edit',
        handler: async (req, deps) => {
          const { styles, settings, title } = req.params as GlobalStylesInput;
          const doc = await updateGlobalStyles(deps, await requestedGlobalStyles(req, deps), { styles, settings, title });
          return prepareGlobalStyles(doc, req);
        },
      },
    ],
  },
]);
