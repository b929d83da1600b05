import { type Deps } from '../../deps.js';
import { defineRestError } from '../../rest/errors.js';
import { contextArg } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { defineRoutes, EDITABLE, READABLE } from '../../rest/route.js';
import { type SidebarDef } from '../../themes/themes.js';
import { canManageWidgets } from '../widget-types/index.js';
import { assignSidebar, knownSidebars, listWidgets } from '../widgets/index.js';
import { sidebarSchema } from './sidebar.schema.js';
import { prepareSidebar } from './sidebar.serializer.js';

const SidebarNotFound = defineRestError('rest_sidebar_not_found', 'No sidebar exists with that id.', 404);

function requestedSidebar(req: RestRequest, deps: Deps): SidebarDef {
  const sidebar = knownSidebars(deps).find((known) => known.id === req.params.id);
  if (!sidebar) throw new SidebarNotFound();
  return sidebar;
}

async function prepareOne(sidebar: SidebarDef, req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  return prepareSidebar(sidebar, await listWidgets(deps, sidebar.id), req, deps);
}

const idArg = { id: { description: 'The id of a registered sidebar', type: 'string' as const } };

/** WordPress's sidebars controller: the inactive sidebar and the active theme's; only `widgets` is writable. */
export const sidebarRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/sidebars',
    schema: sidebarSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { context: contextArg(sidebarSchema) },
        permission: canManageWidgets,
        response: { body: 'items' },
        handler: async (req, deps) => {
          const widgets = await listWidgets(deps);
          return knownSidebars(deps).map((sidebar) => prepareSidebar(sidebar, widgets.filter((doc) => doc.sidebar === sidebar.id), req, deps));
        },
      },
    ],
  },
  {
    path: '/sidebars/(?P<id>[\\w-]+)',
    schema: sidebarSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { ...idArg, context: contextArg(sidebarSchema) },
        permission: canManageWidgets,
        handler: (req, deps) => prepareOne(requestedSidebar(req, deps), req, deps),
      },
      {
        methods: EDITABLE,
        args: { ...idArg, widgets: { description: 'Nested widgets.', type: 'array', items: { type: 'string' } } },
        permission: canManageWidgets,
        handler: async (req, deps) => {
          const sidebar = requestedSidebar(req, deps);
          if (Array.isArray(req.params.widgets)) await assignSidebar(deps, sidebar.id, req.params.widgets as string[]);
          req.context = 'edit';
          return prepareOne(sidebar, req, deps);
        },
      },
    ],
  },
]);
