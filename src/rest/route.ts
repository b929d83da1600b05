import { type ArgSpecs, type CompiledArgs } from './args.js';
import { type RestRequest, type RestUser } from './rest-request.js';
import { type RestEventStream, type RestResponse, type RestStream } from './rest-response.js';
import { type Context, type FieldSchema, type ItemSchema } from './schema.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

// WordPress's method groups (`WP_REST_Server::READABLE` ...): an update answers POST, PUT and PATCH alike.
export const READABLE: readonly HttpMethod[] = ['GET'];
export const CREATABLE: readonly HttpMethod[] = ['POST'];
export const EDITABLE: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH'];
export const DELETABLE: readonly HttpMethod[] = ['DELETE'];

export type HandlerResult = unknown | RestResponse | RestStream | RestEventStream;

/** Returns true to let the request through; false becomes 401/403 `rest_forbidden`. May throw a RestError. */
export type Permission<D> = (request: RestRequest, deps: D) => boolean | Promise<boolean>;
export type Handler<D> = (request: RestRequest, deps: D) => HandlerResult | Promise<HandlerResult>;

/**
 * What a successful answer carries, for the OpenAPI document (WordPress leaves it to its handbook):
 * - `item`: one item of the route's schema (the default, except for DELETE);
 * - `items`: an array of them; `keyed-items`: an object of them keyed by slug;
 * - `deleted`: `{ deleted: true, previous: <item> }` (the default for DELETE);
 * - `trashed-or-deleted`: the item with `status: "trash"`, or `deleted` with `force=true`;
 * - or a schema of its own.
 */
export type ResponseBody = 'item' | 'items' | 'keyed-items' | 'deleted' | 'trashed-or-deleted' | FieldSchema;

export interface ResponseSpec {
  /** 201 for a creation; 207 for a batch (one status per request inside); 200 otherwise. */
  status?: 200 | 201 | 207;
  body?: ResponseBody;
  /** With `Accept: application/x-ndjson`, the items are streamed one a line instead. */
  ndjson?: boolean;
  /** With `Accept: text/event-stream`, the answer is a stream of server-sent events instead. */
  eventStream?: boolean;
}

export interface EndpointSpec<D> {
  methods: readonly HttpMethod[];
  args?: ArgSpecs<RestRequest>;
  permission: Permission<D>;
  handler: Handler<D>;
  /** Describes the answer; read only by the OpenAPI document. */
  response?: ResponseSpec;
  /**
   * `stream`: the endpoint reads the request body itself, as it arrives (an upload that must not
   * be held in memory): no body parser runs first, the handler reads `request.stream`, and the
   * form fields it finds in the body go through the endpoint's args by `request.acceptFields`.
   */
  body?: 'stream';
  /**
   * `content`: a write through this endpoint changes only content (items, their history, terms,
   * media), never users or settings, so what processes keep of those stays (`SiteChanges`).
   */
  changes?: 'content';
  /**
   * `live`: an answer that only the moment it is asked for decides (a page of the change feed,
   * which may wait for the next change): never answered from, nor kept in, the response cache.
   */
  freshness?: 'live';
  /**
   * `per-caller`: the answer depends only on who asks, the address and what the site holds (a
   * revision, written once): kept in the response cache for each signed-in caller, as anonymous
   * answers are for everyone, emptied by any write, with an entity tag for 304s.
   */
  cache?: 'per-caller';
  /**
   * The context the answer is prepared and filtered in, whatever the request's `context` asks, as
   * WordPress's writes `set_param( 'context', 'edit' )` before they answer. `asked`: the one the
   * request names, `view` when it names none (WordPress's deletes, which declare no `context`
   * argument and prepare `previous` in the asked one). Absent: the request's, else `view` for a
   * read and `edit` for a write.
   */
  answerContext?: Context | 'asked';
  /** Overrides the route's `allowBatch` for this endpoint (WordPress's handler-level `allow_batch`). */
  allowBatch?: AllowBatch;
  /**
   * The save filters of the fields this endpoint stores (`savesOf` in `src/registry/saved-fields.ts`),
   * run on the parameters once the args have checked them, before the permission check and the
   * handler, and again on the fields a streamed body brings: whatever the handler stores is filtered.
   */
  saves?: (params: Record<string, unknown>, user: RestUser) => void;
}

/**
 * Which versions of the batch framework (`POST /batch/v1`) may carry requests to an endpoint:
 * WordPress's `allow_batch`, shown as is on the endpoint in the index and OPTIONS.
 */
export interface AllowBatch {
  readonly v1?: boolean;
}

/** What a controller that takes batched requests declares (`protected $allow_batch = array( 'v1' => true )`). */
export const BATCH_V1: AllowBatch = Object.freeze({ v1: true });

export interface RouteSpec<D> {
  namespace: string;
  /** WordPress's route notation, relative to the namespace: `/posts/(?P<id>[\d]+)`. */
  path: string;
  endpoints: EndpointSpec<D>[];
  /** The item schema, filtered by `context` on every response and shown by OPTIONS. */
  schema?: ItemSchema;
  /** The route option `allow_batch`: every endpoint of the route takes batched requests unless it says otherwise. */
  allowBatch?: AllowBatch;
}

/** The `allow_batch` in force for an endpoint of a route: its own, else the route's. */
export function allowBatchOf<D>(route: RouteSpec<D>, endpoint: EndpointSpec<D>): AllowBatch | undefined {
  return endpoint.allowBatch ?? route.allowBatch;
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

/** A route pattern's parts: literal text, and named groups `(?P<name>regex)` with their regex. */
export function splitRoutePattern(pattern: string): (string | { name: string; regex: string })[] {
  const parts: (string | { name: string; regex: string })[] = [];
  let literal = '';
  for (let i = 0; i < pattern.length; ) {
    if (!pattern.startsWith('(?P<', i)) {
      literal += pattern[i++];
      continue;
    }
    const nameEnd = pattern.indexOf('>', i);
    // The group's closing parenthesis, counting nested groups and skipping escapes.
    let depth = 1;
    let j = nameEnd + 1;
    for (; j < pattern.length && depth > 0; j++) {
      if (pattern[j] === '\\') j++;
      else if (pattern[j] === '(') depth++;
      else if (pattern[j] === ')') depth--;
    }
    if (literal) parts.push(literal);
    literal = '';
    parts.push({ name: pattern.slice(i + 4, nameEnd), regex: pattern.slice(nameEnd + 1, j - 1) });
    i = j;
  }
  if (literal) parts.push(literal);
  return parts;
}

/** An endpoint as the server keeps it once registered, its arguments compiled (`RestServer`). */
export interface CompiledEndpoint<D> {
  spec: EndpointSpec<D>;
  args: CompiledArgs<RestRequest>;
}

export interface CompiledRoute<D> {
  /** The full pattern, as the index shows it: `/cms/v2/posts/(?P<id>[\d]+)`. */
  pattern: string;
  namespace: string;
  regex: RegExp;
  endpoints: CompiledEndpoint<D>[];
  spec: RouteSpec<D>;
}
