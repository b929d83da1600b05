import { clientInput, parseQueryString } from './client-input.js';
import { defineRestError, NoRoute } from './errors.js';
import { type IncomingRequest, type RestRequest } from './rest-request.js';
import { RestResponse } from './rest-response.js';
import { allowAnyone, allowBatchOf, CREATABLE, type RouteSpec } from './route.js';
import { errorResult, type MatchedEndpoint, type RestResult, type RestServer } from './rest-server.js';
import { type FieldSchema } from './schema.js';

/** `rest_get_max_batch_size`'s default: more requests than this in one batch are refused. */
export const MAX_BATCH_REQUESTS = 25;

export const BatchNotAllowed = defineRestError('rest_batch_not_allowed', 'The requested route does not support batch requests.', 400);
export const ParsePathFailed = defineRestError('parse_path_failed', 'Could not parse the path.', 400);

/** One entry of `requests`, as the arguments let it through. */
interface BatchEntry {
  method?: string;
  path: string;
  body?: Record<string, unknown>;
  headers?: Record<string, string | string[]>;
}

/** A sub-request after the first pass: the endpoint it reaches (if any) and what refused it (if anything). */
interface Prepared<D> {
  matched?: MatchedEndpoint<D>;
  error?: unknown;
}

/** The arguments of `POST /batch/v1`, as `WP_REST_Server::__construct` declares them. */
const batchArgs: Record<string, FieldSchema> = {
  validation: { type: 'string', enum: ['require-all-validate', 'normal'], default: 'normal' },
  requests: {
    required: true,
    type: 'array',
    maxItems: MAX_BATCH_REQUESTS,
    items: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
        path: { type: 'string', required: true },
        body: { type: 'object', properties: {}, additionalProperties: true },
        headers: { type: 'object', properties: {}, additionalProperties: { type: ['string', 'array'], items: { type: 'string' } } },
      },
    },
  },
};

/** What the batch answers (for the OpenAPI document): one envelope, or null, per request, in order. */
const envelopeSchema: FieldSchema = {
  type: ['object', 'null'],
  properties: {
    body: {},
    status: { type: 'integer' },
    headers: { type: 'object', additionalProperties: true },
  },
};
const batchResponse: FieldSchema = {
  type: 'object',
  properties: {
    failed: { type: 'string', enum: ['validation'] },
    responses: { type: 'array', items: envelopeSchema },
  },
};

/**
 * `POST /batch/v1`, WordPress's batch framework (`WP_REST_Server::serve_batch_request_v1`):
 * up to 25 writes in one request, each answered as if it came alone.
 */
export function batchRoutes<D>(server: RestServer<D>): RouteSpec<D>[] {
  return [
    {
      namespace: '',
      path: '/batch/v1',
      endpoints: [
        {
          methods: CREATABLE,
          args: batchArgs,
          permission: allowAnyone,
          handler: (request) => serveBatch(server, request),
          response: { status: 207, body: batchResponse },
        },
      ],
    },
  ];
}

/**
 * Every request is matched and its arguments checked first; with `require-all-validate`, one
 * refused request means none runs. Then each runs in order through the same pipeline as a request
 * from outside (its own permission check, handler, `_fields` and error), as the same user.
 */
async function serveBatch<D>(server: RestServer<D>, batch: RestRequest): Promise<RestResponse> {
  const entries = batch.params.requests as BatchEntry[];
  const prepared: Prepared<D>[] = [];
  for (const entry of entries) prepared.push(await prepare(server, batch, entry));

  if (batch.params.validation === 'require-all-validate' && prepared.some((item) => item.error !== undefined)) {
    const responses = [];
    for (const { error } of prepared) responses.push(error === undefined ? null : envelope(await server.present(errorResult<D>(error), batch.apiRoot, null)));
    return new RestResponse({ failed: 'validation', responses }, 207);
  }

  const responses = [];
  for (const { matched, error } of prepared) {
    // Not even matched (no route, a path that does not parse): answered without `Allow`, as WordPress does.
    const result = matched ? await server.respond(matched, error) : errorResult<D>(error);
    responses.push(envelope(await server.present(result, batch.apiRoot, null)));
  }
  return new RestResponse({ responses }, 207);
}

/** The first pass over one request: parse it as the transport would, match it, check it may be batched, check its arguments. */
async function prepare<D>(server: RestServer<D>, batch: RestRequest, entry: BatchEntry): Promise<Prepared<D>> {
  let incoming: IncomingRequest;
  try {
    incoming = subRequest(batch, entry);
  } catch (error) {
    return { error };
  }
  const matched = server.matchEndpoint(incoming, batch.apiRoot);
  if (!matched) return { error: new NoRoute() };
  const { route, endpoint } = matched;
  // A batch itself declares no `allow_batch`: a batch of batches is refused here, as in WordPress.
  // An endpoint that reads its body as a stream, or streams its answer, has none to take here.
  const streams = endpoint.spec.body === 'stream' || endpoint.spec.response?.ndjson === true;
  if (allowBatchOf(route.spec, endpoint.spec)?.v1 !== true || streams) return { matched, error: new BatchNotAllowed() };
  return { matched, error: await server.validate(matched, incoming) };
}

/**
 * A request of the batch as the transport builds one: its path's query string parsed by the REST
 * layer's parser, its query, body and headers through the same client-input checks, as the batch's user.
 */
function subRequest(batch: RestRequest, entry: BatchEntry): IncomingRequest {
  const withoutFragment = entry.path.split('#', 1)[0];
  const mark = withoutFragment.indexOf('?');
  let path: string;
  try {
    path = decodeURIComponent(mark < 0 ? withoutFragment : withoutFragment.slice(0, mark));
  } catch {
    throw new ParsePathFailed();
  }
  const query = clientInput(parseQueryString(mark < 0 ? '' : withoutFragment.slice(mark + 1)), 'query');
  const body = clientInput(entry.body ?? {}, 'json');
  // Header names as the transport has them (lower case); a list of values is one header, comma-joined.
  const headers: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(clientInput(entry.headers ?? {}, 'json'))) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return { method: entry.method ?? 'POST', path, query, body, files: [], headers, user: batch.user, log: batch.log };
}

/** A request's answer as the batch carries it (`WP_REST_Server::envelope_response`, without embedding). */
function envelope({ body, status, headers }: RestResult): { body: unknown; status: number; headers: RestResult['headers'] } {
  return { body, status, headers };
}
