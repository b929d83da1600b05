import { type ArgSpecs } from './args.js';
import { type RestRequest } from './rest-request.js';
import { type RestResponse, type RestStream } from './rest-response.js';
import { type ItemSchema } from './schema.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

// WordPress's method groups (`WP_REST_Server::READABLE` ...): an update answers POST, PUT and PATCH alike.
export const READABLE: readonly HttpMethod[] = ['GET'];
export const CREATABLE: readonly HttpMethod[] = ['POST'];
export const EDITABLE: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];
export const DELETABLE: readonly HttpMethod[] = ['DELETE'];

export type HandlerResult = unknown | RestResponse | RestStream;

/** Returns true to let the request through; false becomes 401/403 `rest_forbidden`. May throw a RestError. */
export type Permission<D> = (request: RestRequest, deps: D) => boolean | Promise<boolean>;
export type Handler<D> = (request: RestRequest, deps: D) => HandlerResult | Promise<HandlerResult>;

export interface EndpointSpec<D> {
  methods: readonly HttpMethod[];
  args?: ArgSpecs<RestRequest>;
  permission: Permission<D>;
  handler: Handler<D>;
}

export interface RouteSpec<D> {
  namespace: string;
  /** WordPress's route notation, relative to the namespace: `/posts/(?P<id>[\d]+)`. */
  path: string;
  endpoints: EndpointSpec<D>[];
  /** The item schema, filtered by `context` on every response and shown by OPTIONS. */
  schema?: ItemSchema;
}

export const allowAnyone: Permission<unknown> = () => true;

/** Declares a resource's routes; an endpoint that does not state its permission fails here, at boot. */
export function defineRoutes<D>(namespace: string, routes: Omit<RouteSpec<D>, 'namespace'>[]): RouteSpec<D>[] {
  for (const route of routes) {
    for (const endpoint of route.endpoints) {
      if (typeof endpoint.permission !== 'function') {
        throw new Error(`Endpoint ${endpoint.methods.join(',')} /${namespace}${route.path} has no permission`);
      }
    }
  }
  return routes.map((route) => ({ ...route, namespace }));
}
