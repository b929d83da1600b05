import { describeRoutes } from './discovery.js';
import { type RestRequest } from './rest-request.js';
import { type RestServer } from './rest-server.js';
import { allowAnyone, READABLE, type RouteSpec } from './route.js';

/** What the index says of the site (`name`, `description`, `url`, `timezone_string`, ...). */
export type DescribeSite<D> = (request: RestRequest, deps: D) => Promise<Record<string, unknown>>;

const contextArgs = {
  context: { type: 'string', enum: ['view'], default: 'view', description: 'Scope under which the request is made.' },
} as const;

/** `GET /` (the discovery index) and `GET /<namespace>` for each registered namespace. */
export function discoveryRoutes<D>(server: RestServer<D>, describeSite: DescribeSite<D>): RouteSpec<D>[] {
  const root: RouteSpec<D> = {
    namespace: '',
    path: '/',
    endpoints: [
      {
        methods: READABLE,
        args: { ...contextArgs },
        permission: allowAnyone,
        handler: async (request, deps) => ({
          ...(await describeSite(request, deps)),
          namespaces: [...server.namespaces],
          authentication: {},
          routes: describeRoutes(server.routes, request.apiRoot),
          _links: { help: [{ href: 'https://developer.wordpress.org/rest-api/' }] },
        }),
      },
    ],
  };
  const namespaces = server.namespaces.map((namespace): RouteSpec<D> => ({
    namespace,
    path: '',
    endpoints: [
      {
        methods: READABLE,
        args: { ...contextArgs },
        permission: allowAnyone,
        handler: (request) => ({
          namespace,
          routes: describeRoutes(server.routes, request.apiRoot, namespace),
          _links: { up: [{ href: `${request.apiRoot}/` }] },
        }),
      },
    ],
  }));
  return [root, ...namespaces];
}
