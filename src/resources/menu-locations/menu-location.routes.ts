import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { registryRoutes } from '../../rest/registry-routes.js';
import { defineRoutes, type Permission } from '../../rest/route.js';
import { type ItemSchema } from '../../rest/schema.js';
import { activeLocations } from '../menus/index.js';

const LocationInvalid = defineRestError('rest_menu_location_invalid', 'Invalid menu location.', 404);
const CannotViewLocations = defineAuthError('rest_cannot_view', 'Sorry, you are not allowed to view menu locations.');

const menuLocationSchema: ItemSchema = {
  title: 'menu-location',
  type: 'object',
  properties: {
    name: { description: 'The name of the menu location.', type: 'string', context: ['embed', 'view', 'edit'], readonly: true },
    description: { description: 'The description of the menu location.', type: 'string', context: ['embed', 'view', 'edit'], readonly: true },
    menu: { description: 'The ID of the assigned menu.', type: 'integer', context: ['embed', 'view', 'edit'], readonly: true },
  },
};

type Location = Awaited<ReturnType<typeof activeLocations>>[number];

const canViewLocations: Permission<Deps> = (req) => {
  if (!can(req.user, 'edit_theme_options')) throw new CannotViewLocations(req);
  return true;
};

function prepareLocation(location: Location, req: RestRequest): Record<string, unknown> {
  const data: Record<string, unknown> = { name: location.name, description: location.description, menu: location.menu };
  if (req.wants('_links')) {
    const links: Links = {
      self: [{ href: req.url(`/cms/v2/menu-locations/${location.name}`) }],
      collection: [{ href: req.url('/cms/v2/menu-locations') }],
    };
    if (location.menu) links['https://api.w.org/menu'] = [{ href: req.url(`/cms/v2/menus/${location.menu}`), embeddable: true }];
    data._links = links;
  }
  return data;
}

/** The active theme's menu locations, each with the menu it shows (read-only: menus assign them). */
export const menuLocationRoutes = defineRoutes<Deps>(
  'cms/v2',
  registryRoutes<Deps, Location>({
    path: '/menu-locations',
    schema: menuLocationSchema,
    key: { name: 'location', description: 'An alphanumeric identifier for the menu location.' },
    listPermission: canViewLocations,
    itemPermission: canViewLocations,
    entries: (_req, deps) => activeLocations(deps),
    keyOf: (location) => location.name,
    find: async (req, deps) => {
      const location = (await activeLocations(deps)).find((candidate) => candidate.name === req.params.location);
      if (!location) throw new LocationInvalid();
      return location;
    },
    prepare: prepareLocation,
  }),
);
