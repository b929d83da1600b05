import { type Deps } from '../../deps.js';
import { defineRestError } from '../../rest/errors.js';
import { registryRoutes } from '../../rest/registry-routes.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { defineRoutes, EDITABLE } from '../../rest/route.js';
import { type SidebarDef } from '../../themes/themes.js';
import { canManageWidgets } from '../widget-types/index.js';
import { assignSidebar, knownSidebars, listWidgets, type WidgetDoc } from '../widgets/index.js';
import { sidebarSchema } from './sidebar.schema.js';
import { prepareSidebar } from './sidebar.serializer.js';

const SidebarNotFound = defineRestError('rest_sidebar_not_found', 'No sidebar exists with that id.', 404);

function requestedSidebar(req: RestRequest, deps: Deps): SidebarDef {
  const sidebar = knownSidebars(deps).find((known) => known.id === req.params.id);
  if (!sidebar) throw new SidebarNotFound();
  return sidebar;
}

/** A sidebar with the widgets it holds, as it is prepared. */
interface SidebarWidgets {
  sidebar: SidebarDef;
  widgets: readonly WidgetDoc[];
}

async function withWidgets(sidebar: SidebarDef, deps: Deps): Promise<SidebarWidgets> {
  return { sidebar, widgets: await listWidgets(deps, sidebar.id) };
}

const ID = 'The id of a registered sidebar';

/** WordPress's sidebars controller: the inactive sidebar and the active theme's; only `widgets` is writable. */
export const sidebarRoutes = defineRoutes<Deps>(
  'cms/v2',
  registryRoutes<Deps, SidebarWidgets>({
    path: '/sidebars',
    schema: sidebarSchema,
    key: { name: 'id', description: ID },
    listPermission: canManageWidgets,
    itemPermission: canManageWidgets,
    // Every sidebar's widgets in one query.
    entries: async (_req, deps) => {
      const widgets = await listWidgets(deps);
      return knownSidebars(deps).map((sidebar) => ({ sidebar, widgets: widgets.filter((doc) => doc.sidebar === sidebar.id) }));
    },
    find: (req, deps) => withWidgets(requestedSidebar(req, deps), deps),
    prepare: ({ sidebar, widgets }, req, deps) => prepareSidebar(sidebar, widgets, req, deps),
    itemEndpoints: [
      {
        methods: EDITABLE,
        args: { id: { description: ID, type: 'string' }, widgets: { description: 'Nested widgets.', type: 'array', items: { type: 'string' } } },
        permission: canManageWidgets,
        answerContext: 'edit',
        handler: async (req, deps) => {
          const sidebar = requestedSidebar(req, deps);
          if (Array.isArray(req.params.widgets)) await assignSidebar(deps, sidebar.id, req.params.widgets as string[]);
          const { widgets } = await withWidgets(sidebar, deps);
          return prepareSidebar(sidebar, widgets, req, deps);
        },
      },
    ],
  }),
);
