import { type Ajv } from 'ajv';
import { applyArgs, compileArgs, withClientBounds } from './args.js';
import { clientInput, parseQueryString } from './client-input.js';
import { embedLinks, linkEmbedder } from './embed.js';
import { asRestError, Forbidden, InvalidJson, isAnswerable, NoRoute } from './errors.js';
import { filterFields, parseFieldList } from './fields.js';
import { filterByContext } from './item-schema.js';
import { compactLinks, parseEmbed, type EmbedRequest, type Links } from './links.js';
import { RestRequest, type IncomingRequest } from './rest-request.js';
import { RestEventStream, RestResponse, RestStream, type HeaderValue, type Pagination, type ServerSentEvent } from './rest-response.js';
import { type CompiledEndpoint, type CompiledRoute, type RouteSpec } from './route.js';
import { createAjv, CONTEXTS, type Context } from './schema.js';
import { StreamedList } from './streamed-list.js';
import { describeRoute } from './discovery.js';
import { isDatabaseUnavailable } from '../store/database/mongo.js';

/** The outcome of a request, before the adapter writes it. */
export interface RestResult {
  status: number;
  headers: Record<string, HeaderValue>;
  body: unknown;
  stream?: AsyncIterable<unknown>;
  /** Server-sent events, opened once the headers are sent (`RestEventStream`). */
  events?: (closed: AbortSignal) => AsyncIterable<ServerSentEvent>;
  /** What the endpoint's writes may change (its `changes`); absent: anything. */
  changes?: 'content';
}

/** A route whose pattern a path matches, with the parameters the path gives it. */
export interface RouteMatch<D> {
  route: CompiledRoute<D>;
  urlParams: Record<string, string>;
}

/**
 * Where a request's method and path lead, found once and carried with the request (Fastify's
 * route context): every route the path matches (OPTIONS describes the first), and the first
 * endpoint among them that answers the method, if any.
 */
export interface RouteLookup<D> {
  readonly method: string;
  /** The path, normalized. */
  readonly path: string;
  readonly matches: readonly RouteMatch<D>[];
  readonly found?: RouteMatch<D> & { endpoint: CompiledEndpoint<D> };
}

/** A request matched to its endpoint, before its arguments are checked. */
export interface MatchedEndpoint<D> {
  route: CompiledRoute<D>;
  endpoint: CompiledEndpoint<D>;
  request: RestRequest;
}

export interface Dispatched<D> {
  status: number;
  headers: Record<string, HeaderValue>;
  data: unknown;
  stream?: AsyncIterable<unknown>;
  events?: (closed: AbortSignal) => AsyncIterable<ServerSentEvent>;
  pagination?: Pagination;
  keyed?: boolean;
  request?: RestRequest;
  route?: CompiledRoute<D>;
  error?: boolean;
  /** The endpoint's `changes`. */
  changes?: 'content';
}

/**
 * The route registry and dispatch pipeline, after WordPress's `WP_REST_Server`:
 * match, args, permission, handler, prepare. Knows no resource.
 */
export class RestServer<D> {
  readonly routes: CompiledRoute<D>[] = [];
  readonly namespaces: string[] = [];
  private readonly ajv: Ajv = createAjv();

  constructor(readonly deps: D) {}

  register(routes: readonly RouteSpec<D>[]): void {
    for (const spec of routes) {
      const pattern = `${spec.namespace ? `/${spec.namespace}` : ''}${spec.path}` || '/';
      if (spec.namespace && !this.namespaces.includes(spec.namespace)) this.namespaces.push(spec.namespace);
      this.routes.push({
        pattern,
        namespace: spec.namespace,
        regex: new RegExp(`^${pattern.replace(/\(\?P</g, '(?<')}$`, 'i'),
        endpoints: spec.endpoints.map((declared) => {
          const endpoint = { ...declared, args: withClientBounds(declared.args ?? {}) };
          return { spec: endpoint, args: compileArgs(endpoint.args, this.ajv) };
        }),
        spec,
      });
    }
  }

  /** Where `method` on `path` leads: one pass over the routes. */
  lookup(method: string, path: string): RouteLookup<D> {
    const normalized = normalizePath(path);
    const wanted = method === 'HEAD' ? 'GET' : method;
    const matches: RouteMatch<D>[] = [];
    let found: RouteLookup<D>['found'];
    for (const route of this.routes) {
      const matched = route.regex.exec(normalized);
      if (!matched) continue;
      const urlParams = { ...matched.groups };
      matches.push({ route, urlParams });
      const endpoint = found ? undefined : route.endpoints.find((e) => e.spec.methods.includes(wanted as never));
      if (endpoint) found = { route, endpoint, urlParams };
    }
    return { method, path: normalized, matches, found };
  }

  /** Serves a request from the outside: dispatch, then links, `_embed`, `_fields`, pagination headers and `_envelope`. */
  async serve(incoming: IncomingRequest, apiRoot: string, lookup?: RouteLookup<D>): Promise<RestResult> {
    let embed: EmbedRequest;
    try {
      embed = parseEmbed(incoming.query._embed);
    } catch (error) {
      const refused = errorResult(error);
      return { status: refused.status, headers: refused.headers, body: refused.data };
    }
    const result = await this.dispatch(incoming, apiRoot, { embedding: embed !== null }, lookup);
    const changes = result.changes ? { changes: result.changes } : {};
    if (result.stream) return { status: result.status, headers: result.headers, body: null, stream: result.stream, ...changes };
    if (result.events) return { status: result.status, headers: result.headers, body: null, events: result.events };
    const { status, headers, body } = await this.present(result, apiRoot, embed);
    if (incoming.query._envelope !== undefined) {
      return { status: 200, headers: {}, body: { body, status, headers }, ...changes };
    }
    return { status, headers, body, ...changes };
  }

  /** A dispatched answer as it is sent: links compacted, `_embed` (unless null), `_fields`, and the pagination `Link`. */
  async present(result: Dispatched<D>, apiRoot: string, embed: EmbedRequest | null): Promise<RestResult> {
    let body = result.data;
    if (!result.error && result.request && body instanceof StreamedList) {
      // Each item as the items of a list are presented, as it comes.
      const embedItem = embed !== null ? linkEmbedder(embed, (href) => this.embedded(href, apiRoot, result.request!)) : undefined;
      const fields = result.request.fields;
      body = body.map(async (item) => {
        let presented = compactAll(item);
        if (embedItem) presented = await embedItem(presented);
        return fields !== null ? filterFields(presented, fields) : presented;
      });
    } else if (!result.error && result.request) {
      body = result.keyed ? mapValues(body, compactAll) : compactAll(body);
      if (embed !== null) {
        body = await embedLinks(body, embed, (href) => this.embedded(href, apiRoot, result.request!));
      }
      const fields = result.request.fields;
      if (fields !== null) body = filterFields(body, fields);
    }
    const headers = { ...result.headers };
    if (result.pagination && result.request) {
      headers.Link = paginationLinks(result.request, result.pagination);
    }
    return { status: result.status, headers, body };
  }

  /** One request through the pipeline, as WordPress's `WP_REST_Server::dispatch`. */
  async dispatch(
    incoming: IncomingRequest,
    apiRoot: string,
    options: { embedding?: boolean; embedded?: boolean } = {},
    lookup = this.lookup(incoming.method, incoming.path),
  ): Promise<Dispatched<D>> {
    if (incoming.method === 'OPTIONS') return this.options(lookup.matches, incoming, apiRoot);
    const matched = this.matchEndpoint(incoming, apiRoot, options, lookup);
    if (!matched) return errorResult(new NoRoute());
    const invalid = await this.validate(matched, incoming, options);
    return this.respond(matched, invalid, options);
  }

  /** The endpoint a request reaches, with its request (`WP_REST_Server::match_request_to_handler`); undefined for none. */
  matchEndpoint(
    incoming: IncomingRequest,
    apiRoot: string,
    options: { embedding?: boolean } = {},
    lookup = this.lookup(incoming.method, incoming.path),
  ): MatchedEndpoint<D> | undefined {
    if (!lookup.found) return undefined;
    const { route, endpoint, urlParams } = lookup.found;
    const request = new RestRequest({ ...incoming, path: lookup.path }, urlParams, apiRoot);
    request.route = route.pattern;
    request.embedding = options.embedding ?? false;
    return { route, endpoint, request };
  }

  /**
   * The request's arguments: defaults, coercion and validation (`has_valid_params` and
   * `sanitize_params`). Returns what refuses them, or undefined when they hold.
   */
  async validate(matched: MatchedEndpoint<D>, incoming: IncomingRequest, options: { embedded?: boolean } = {}): Promise<unknown> {
    const { endpoint, request, route } = matched;
    try {
      if (incoming.jsonError !== undefined) {
        throw new InvalidJson({ json_error_code: 4, json_error_message: incoming.jsonError });
      }
      // Read before the arguments, whose checks may read the database: an oversized list is refused first.
      request.fields = options.embedded ? null : parseFieldList(request.params._fields);
      if (options.embedded) {
        const perPage = endpoint.spec.args?.per_page;
        if (perPage && request.params.per_page === undefined) request.params.per_page = perPage.maximum ?? 100;
      }
      await applyArgs(endpoint.args, request.params, request);
      endpoint.spec.saves?.(request.params, request.user);
      if (endpoint.spec.body === 'stream') {
        request.acceptFields = async (fields) => {
          // Read as a form body is: `meta[key]=...` nests, and the same checks and filters apply.
          const form = clientInput(parseQueryString(new URLSearchParams(fields.map(([k, v]) => [k, v])).toString()), 'form');
          Object.assign(request.params, form);
          await applyArgs(endpoint.args, request.params, request);
          // Only what the body brought: the other parameters were filtered already.
          const brought: Record<string, unknown> = Object.create(null);
          for (const key of Object.keys(form)) brought[key] = request.params[key];
          endpoint.spec.saves?.(brought, request.user);
          Object.assign(request.params, brought);
        };
      }
      request.answerIn(answerContextOf(endpoint.spec.answerContext, request.params.context, request.method));
      return undefined;
    } catch (error) {
      if (!isAnswerable(error)) request.log.error({ err: error, route: route.pattern }, 'request failed');
      return error;
    }
  }

  /**
   * Answers a matched request (`WP_REST_Server::respond_to_request`): with `error` when its
   * arguments were refused, else through its permission check and handler; then `Allow`.
   */
  async respond(matched: MatchedEndpoint<D>, error?: unknown, options: { embedded?: boolean } = {}): Promise<Dispatched<D>> {
    const { route, endpoint, request } = matched;
    const outcome = error === undefined ? await this.run(route, endpoint, request) : errorResult<D>(error);
    outcome.headers = { ...outcome.headers };
    // Without a database the permission checks cannot answer either: each would wait out the timeout.
    // An embedded answer's headers are dropped: its `Allow` would be one permission check per endpoint for nothing.
    const allow = outcome.status === 503 || options.embedded ? [] : await this.allowedMethods(route, request);
    if (allow.length) outcome.headers.Allow = allow.join(', ');
    return { ...outcome, request, route, ...(endpoint.spec.changes ? { changes: endpoint.spec.changes } : {}) };
  }

  private async run(route: CompiledRoute<D>, endpoint: CompiledEndpoint<D>, request: RestRequest): Promise<Dispatched<D>> {
    try {
      const allowed = await endpoint.spec.permission(request, this.deps);
      if (allowed !== true) throw new Forbidden(request);

      const result = await endpoint.spec.handler(request, this.deps);
      if (result instanceof RestStream) return { status: 200, headers: {}, data: null, stream: result.items };
      if (result instanceof RestEventStream) return { status: 200, headers: {}, data: null, events: result.open };
      const response = result instanceof RestResponse ? result : new RestResponse(result);
      const schema = route.spec.schema;
      const forContext = (data: unknown) => (schema ? filterByContext(schema, data, request.context) : data);
      const data = response.status >= 300 ? response.data
        : response.data instanceof StreamedList ? response.data.map(forContext)
        : response.keyed ? mapValues(response.data, forContext)
        : forContext(response.data);
      return { status: response.status, headers: response.headers, data, pagination: response.pagination, keyed: response.keyed };
    } catch (error) {
      if (!isAnswerable(error)) request.log.error({ err: error, route: route.pattern }, 'request failed');
      return errorResult(error);
    }
  }

  /** `Allow`: the route's methods whose permission check passes for this caller. */
  private async allowedMethods(route: CompiledRoute<D>, request: RestRequest): Promise<string[]> {
    const allowed: string[] = [];
    for (const endpoint of route.endpoints) {
      let passes = false;
      try {
        passes = (await endpoint.spec.permission(request, this.deps)) === true;
      } catch (error) {
        // The database stopped answering: no `Allow` rather than one timeout per endpoint.
        if (isDatabaseUnavailable(error)) return [];
        passes = false;
      }
      if (passes) allowed.push(...endpoint.spec.methods.filter((m) => !allowed.includes(m)));
    }
    return allowed;
  }

  private async options(
    candidates: readonly RouteMatch<D>[],
    incoming: IncomingRequest,
    apiRoot: string,
  ): Promise<Dispatched<D>> {
    const first = candidates[0];
    // WordPress answers OPTIONS on an unknown path with 200 and an empty list.
    if (!first) return { status: 200, headers: {}, data: [] };
    const request = new RestRequest(incoming, first.urlParams, apiRoot);
    request.route = first.route.pattern;
    const headers: Record<string, HeaderValue> = {};
    const allow = await this.allowedMethods(first.route, request);
    if (allow.length) headers.Allow = allow.join(', ');
    return { status: 200, headers, data: describeRoute(first.route, apiRoot, 'help') };
  }

  /** An `_embed` fetch: a GET of the link as the same user, in `embed` context unless the link says otherwise. */
  private async embedded(href: string, apiRoot: string, parent: RestRequest): Promise<unknown> {
    const target = routeOfHref(href, apiRoot);
    if (!target) return undefined;
    const query = { context: 'embed', ...target.query };
    const result = await this.dispatch(
      { method: 'GET', path: target.path, query, body: {}, files: [], headers: {}, user: parent.user, log: parent.log },
      apiRoot,
      { embedded: true },
    );
    if (result.data === undefined) return undefined;
    if (result.error) return result.data;
    // An embedded list is a page of at most `per_page` (set above): taken whole.
    return compactAll(result.data instanceof StreamedList ? await result.data.toArray() : result.data);
  }
}

/** A refused request's outcome: the error's status and body. */
export function errorResult<D>(error: unknown): Dispatched<D> {
  const restError = asRestError(error);
  return { status: restError.status, headers: {}, data: restError.toBody(), error: true };
}

/** The context a request is answered in: what its endpoint declares (`answerContext`), else what it asks, else its method's. */
function answerContextOf(declared: Context | 'asked' | undefined, asked: unknown, method: string): Context {
  if (declared === 'asked') return CONTEXTS.includes(asked as Context) ? (asked as Context) : 'view';
  return declared ?? (asked as Context | undefined) ?? (isRead(method) ? 'view' : 'edit');
}

function isRead(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

export function normalizePath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function mapValues(data: unknown, map: (value: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data as Record<string, unknown>).map(([key, value]) => [key, map(value)]));
}

function compactAll(data: unknown): unknown {
  const compactItem = (item: unknown) => {
    if (typeof item !== 'object' || item === null || !('_links' in item)) return item;
    return { ...item, _links: compactLinks((item as { _links: Links })._links) };
  };
  return Array.isArray(data) ? data.map(compactItem) : compactItem(data);
}

/** Resolves an absolute link under the API root (either URL form) to a route and its query. */
export function routeOfHref(href: string, apiRoot: string): { path: string; query: Record<string, string> } | undefined {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  const root = new URL(apiRoot);
  if (url.origin !== root.origin) return undefined;
  const query = Object.fromEntries(url.searchParams);
  if (query.rest_route !== undefined) {
    const { rest_route: route, ...rest } = query;
    return { path: route, query: rest };
  }
  if (url.pathname !== root.pathname && !url.pathname.startsWith(`${root.pathname}/`)) return undefined;
  return { path: url.pathname.slice(root.pathname.length), query };
}

function paginationLinks(request: RestRequest, pagination: Pagination): string[] {
  const { page, totalPages } = pagination;
  const base = request.url(request.path);
  const pageUrl = (target: number) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries({ ...request.query, ...pagination.linkParams, page: String(target) })) {
      appendParam(params, key, value);
    }
    return `${base}?${params.toString()}`;
  };
  const links: string[] = [];
  if (page > 1) links.push(`<${pageUrl(Math.min(page - 1, totalPages))}>; rel="prev"`);
  if (totalPages > page) links.push(`<${pageUrl(page + 1)}>; rel="next"`);
  return links;
}

function appendParam(params: URLSearchParams, key: string, value: unknown): void {
  if (Array.isArray(value)) value.forEach((item, i) => appendParam(params, `${key}[${i}]`, item));
  else if (typeof value === 'object' && value !== null) {
    for (const [sub, item] of Object.entries(value)) appendParam(params, `${key}[${sub}]`, item);
  } else if (value !== undefined) params.append(key, String(value));
}
