import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { type Duplex } from 'node:stream';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pinoHttp } from 'pino-http';
import { holdsLongString } from '../../lib/json-text.js';
import { Slices } from '../../lib/time-slices.js';
import { type Logger } from '../../logger.js';
import { asServiceWork } from '../../store/queries/service-work.js';
import { clientInput, parseQueryString, type ClientParams } from '../client-input.js';
import { refuseOversizedGlobals } from '../global-params.js';
import {
  asRestError,
  HeadersTooLarge,
  InternalError,
  InvalidCallback,
  LiveRequestsFull,
  MalformedRequest,
  RestError,
  RETRY_AFTER_LIVE,
  TooManyLiveRequests,
} from '../errors.js';
import { ifNoneMatchHits } from '../conditional.js';
import { openApiDocument } from '../openapi.js';
import { ANONYMOUS, type IncomingRequest, type RestUser, type UploadedFile } from '../rest-request.js';
import { type ServerSentEvent } from '../rest-response.js';
import { answerPieces, holdsStreamedList } from '../streamed-list.js';
import { normalizePath, type RestResult, type RestServer, type RouteLookup } from '../rest-server.js';
import { bodyError, bodyParsers } from './body-parsers.js';
import { IDEMPOTENT_METHODS, idempotencyKeyOf, type IdempotentWrites } from './idempotency.js';
import { type LiveRequests } from './live-requests.js';
import { type ResponseCache, type ChangeSignal } from './response-cache.js';

export const API_PREFIX = '/cms-json';

export interface HttpOptions<D> {
  server: RestServer<D>;
  /** `http://HOST:PORT`, without a trailing slash. */
  siteUrl: string;
  siteName: string;
  /** Largest body of a logged-in caller's request. */
  bodyLimitBytes: number;
  /** Express's `trust proxy`: the proxies whose `X-Forwarded-For` names the client (`req.ip`). */
  trustedProxies: readonly string[] | number;
  /**
   * Largest body of an anonymous caller's request (at most `bodyLimitBytes`): decided before the
   * body is read, from the request's credentials (absent: `bodyLimitBytes`).
   */
  anonymousBodyLimitBytes?: number;
  logger: Logger;
  /** Resolves the caller from the request headers (and its nonce); throws a RestError for bad credentials. */
  authenticate: (credentials: { headers: Record<string, string | undefined>; ip: string; nonce?: string }) => Promise<RestUser>;
  /** Whether the database answers: what `/readyz` asks before saying the process may be sent requests. */
  isDatabaseUp: () => Promise<boolean>;
  /** Whether the process is stopping (draining what it holds): `/readyz` then says to send it nothing new. */
  isStopping?: () => boolean;
  /** Items the service cannot serve (streams of the change log that cannot be projected). */
  faults?: () => Promise<readonly object[]>;
  /** Keeps anonymous GET answers; absent, nothing is kept. */
  cache?: ResponseCache;
  /** Keeps every process's caches no older than the last acknowledged write. */
  changes: ChangeSignal;
  /** Pages of the site outside the API (media files), served before the site's 404. */
  siteRoutes?: readonly express.Router[];
  /** Bounds the requests to live endpoints held open at once; absent, none are bounded. */
  liveRequests?: LiveRequests;
  /** Keeps the answers of writes sent with an `Idempotency-Key`; absent, the header is ignored. */
  idempotency?: IdempotentWrites;
}

/**
 * What the API knows of a request before its body is read, found once as it enters and carried
 * with it (Fastify's route context): the body parsers, the cache, the bounds of live requests and
 * the dispatch all read it from here.
 */
interface ApiRoute<D> {
  /** The method it runs as: a POST's `_method` or `X-HTTP-Method-Override` when it sends one. */
  readonly method: string;
  /** Whether `method` comes from an override. */
  readonly overridden: boolean;
  readonly lookup: RouteLookup<D>;
  /** Whether its endpoint reads the body itself, as it arrives (an upload): no parser may read it first. */
  readonly streamed: boolean;
  /**
   * The caller by the request's headers and query, when a body larger than an anonymous caller
   * may send had it authenticated before the body was read; the handler then asks no more.
   */
  caller?: Promise<RestUser>;
}

type ApiRequest<D = unknown> = Request & { jsonError?: string; api: ApiRoute<D> };

// WordPress's `wp_check_jsonp_callback`, and at most 128 characters (WordPress sets no length).
const JSONP_CALLBACK = /^[\w.]{1,128}$/;
const NO_CACHE = {
  'Cache-Control': 'no-cache, must-revalidate, max-age=0, no-store, private',
  Expires: 'Wed, 11 Jan 1984 05:00:00 GMT',
};

/**
 * The HTTP transport: parses bodies, turns `/cms-json/<route>` and `?rest_route=<route>` into one
 * route string, asks the RestServer, and writes the answer with the headers WordPress sends.
 */
export function createHttpApp<D>(options: HttpOptions<D>): express.Express {
  const apiRoot = `${options.siteUrl}${API_PREFIX}`;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // `req.ip` is the client's address everywhere (logins, application passwords, the log).
  app.set('trust proxy', options.trustedProxies);
  app.use(requestLog(options.logger));
  // Every page of the site points WordPress clients at the API (`rest_output_link_header`).
  app.use((_req, res, next) => {
    res.append('Link', `<${apiRoot}/>; rel="https://api.w.org/"`);
    next();
  });

  // Express 5 parses the query string again on every read of `req.query`: parse it once, here.
  app.set('query parser', false);
  app.use(parseQueryOnce);

  addHealthRoutes(app, options);
  app.get(`${API_PREFIX}/openapi.json`, (_req, res) => {
    res.json(openApiDocument(options.server, apiRoot));
  });

  const api: ApiContext<D> = { options, apiRoot };
  const parseBody = bodyParsing(options);
  app.use(API_PREFIX, apiRouter(api, parseBody, (req) => safeDecode(req.path)));
  const restRouteApi = apiRouter(api, parseBody, (req) => String(req.query.rest_route));
  app.use((req, res, next) => (req.query.rest_route === undefined ? next() : restRouteApi(req, res, next)));

  for (const router of options.siteRoutes ?? []) app.use((req, res, next) => asServiceWork('request', () => router(req, res, next)));

  app.get('/', (_req, res) => {
    res.type('html').send(homePage(options.siteName, apiRoot));
  });
  app.use((_req, res) => {
    res.status(404).type('text/plain').send('Not found');
  });
  return app;
}

/** What the API's request handling needs: the app's options and the API's root URL. */
interface ApiContext<D> {
  readonly options: HttpOptions<D>;
  readonly apiRoot: string;
}

/** The request log: one line per request, with its id (sent back as `X-Request-Id`) and without credentials. */
function requestLog(logger: Logger) {
  return pinoHttp({
    logger,
    // Credentials are left out here, not by the logger's options: whichever logger the service
    // is given, its request log never holds a password, a session token or a new session's cookie.
    serializers: {
      req: (req) => Object.assign(req, { remoteAddress: (req.raw as Request).ip, headers: withoutCredentials(req.headers, ['authorization', 'proxy-authorization', 'cookie']) }),
      res: (res) => Object.assign(res, { headers: withoutCredentials(res.headers, ['set-cookie']) }),
    },
    genReqId: (req, res) => {
      const id = (req.headers['x-request-id'] as string | undefined) ?? randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}

/** Parses the query string once and keeps it as `req.query`; one the client input refuses is answered with its error. */
function parseQueryOnce(req: Request, res: Response, next: NextFunction): void | Promise<void> {
  const mark = req.url.indexOf('?');
  let query: ClientParams;
  try {
    query = parseQueryString(mark < 0 ? '' : req.url.slice(mark + 1));
  } catch (error) {
    return error instanceof RestError ? refuse(req, res, error) : next(error);
  }
  Object.defineProperty(req, 'query', { value: query, enumerable: true });
  next();
}

/** `/healthz` and `/readyz`, for the load balancer and the process supervisor. */
function addHealthRoutes<D>(app: express.Express, options: HttpOptions<D>): void {
  // Liveness: the process answers. It asks nothing of the database, so a database away (an
  // election) never has every node restarted or dropped by its load balancer at once.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // Readiness: the process may be sent requests: the database answers within the budget, and the
  // process is not draining for a stop. Items it cannot serve are listed (`degraded`), still ready.
  app.get('/readyz', async (_req, res) => {
    if (options.isStopping?.()) {
      res.status(503).json({ status: 'stopping' });
      return;
    }
    // Answered within the budget however the database behaves: a question it leaves unanswered means "down".
    const report = await within(HEALTH_BUDGET_MS, async () => {
      const up = await options.isDatabaseUp();
      return { up, faults: up && options.faults ? await options.faults() : [] };
    });
    const { up, faults } = report ?? { up: false, faults: [] };
    const status = !up ? 'unavailable' : faults.length ? 'degraded' : 'ok';
    res.status(up ? 200 : 503).json({ status, database: up ? 'up' : 'down', ...(faults.length ? { faults } : {}) });
  });
}

/**
 * The body parsers of API requests, bounded by the caller's kind, then the bounds of `_fields` and
 * `_embed`. A streamed request's body is left unread.
 */
function bodyParsing<D>(options: HttpOptions<D>) {
  return [
    ...bodyParsers({
      bodyLimitBytes: options.bodyLimitBytes,
      anonymousBodyLimitBytes: options.anonymousBodyLimitBytes,
      callerOf: (req) => ((req as ApiRequest<D>).api.caller ??= options.authenticate(credentialsOf(req, req.query._wpnonce))),
    }).map(
      (parse) => (req: Request, res: Response, next: NextFunction) => ((req as ApiRequest<D>).api.streamed ? next() : parse(req, res, next)),
    ),
    // `_fields` and `_embed` are bounded before anything is done with them: authentication, the cache, the route.
    (req: Request, _res: Response, next: NextFunction) => {
      try {
        refuseOversizedGlobals(req.query, (req as ApiRequest<D>).api.streamed ? undefined : req.body);
      } catch (error) {
        return next(error);
      }
      next();
    },
  ];
}

/** The router of API requests whose route `routeOf` reads: finds where each leads, parses its body, and answers. */
function apiRouter<D>(api: ApiContext<D>, parseBody: ReturnType<typeof bodyParsing<D>>, routeOf: (req: Request) => string) {
  return express.Router().use(
    (req: Request, _res: Response, next: NextFunction) => {
      (req as ApiRequest<D>).api = routeOfRequest(api.options.server, req, routeOf(req));
      next();
    },
    ...parseBody,
    (error: unknown, req: Request, res: Response, next: NextFunction) => {
      if ((error as { type?: string }).type === 'entity.parse.failed') {
        (req as ApiRequest<D>).jsonError = (error as Error).message || 'Syntax error';
        return next();
      }
      const restError = bodyError(error);
      if (restError instanceof InternalError) req.log.warn({ err: error }, 'request body refused');
      refuse(req, res, restError);
    },
    async (req: Request, res: Response) => {
      try {
        await asServiceWork('request', () => handleApiRequest(api, req as ApiRequest<D>, res));
      } catch (error) {
        req.log.error({ err: error }, 'request failed');
        // A stream that fails half-way can only be cut short: its status is sent already.
        if (res.headersSent) return void res.destroy();
        refuse(req, res, asRestError(error));
      }
    },
  );
}

/** Where a request leads, by its method (or a POST's override) and the route `path` it names. */
function routeOfRequest<D>(server: RestServer<D>, req: Request, path: string): ApiRoute<D> {
  const override = req.method === 'POST' ? String(req.query._method ?? req.get('X-HTTP-Method-Override') ?? '') : '';
  const method = override ? override.toUpperCase() : req.method;
  const lookup = server.lookup(method, path);
  return { method, overridden: override !== '', lookup, streamed: lookup.found?.endpoint.spec.body === 'stream' };
}

/**
 * Answers one API request: reads its input and caller, bounds live requests, answers an anonymous
 * read from the cache when it can, else serves it, then tells every process of a write.
 */
async function handleApiRequest<D>(api: ApiContext<D>, req: ApiRequest<D>, res: Response): Promise<void> {
  const { options } = api;
  const { method, overridden, lookup, streamed } = req.api;
  // Before anything this process keeps is used: no write answered before this request may be missed.
  await options.changes.catchUp();
  const input = clientParams(req, streamed);
  if (input instanceof RestError) return refuse(req, res, input);
  const { query, body } = input;
  delete query.rest_route;
  if (refusedCallback(query._jsonp, res)) return;
  const headers = headerMap(req);
  const user = await callerOf(options, req, query, body);
  if (user instanceof RestError) return refuse(req, res, user);
  const incoming: IncomingRequest = {
    method,
    path: lookup.path,
    query,
    body,
    files: (Array.isArray(req.files) ? req.files : []) as UploadedFile[],
    headers,
    user,
    log: options.logger.child({ reqId: req.id, userId: user.id }),
    jsonError: req.jsonError,
    ...(streamed ? { stream: req } : {}),
  };
  const idempotencyKey = options.idempotency && IDEMPOTENT_METHODS.has(incoming.method) ? idempotencyKeyOf(headers['idempotency-key']) : undefined;
  if (idempotencyKey instanceof RestError) return refuse(req, res, idempotencyKey);
  const { cache } = options;
  const reads = incoming.method === 'GET' || incoming.method === 'HEAD';
  const live = lookup.found?.endpoint.spec.freshness === 'live';
  const liveRefused = live && options.liveRequests ? enterLiveRequest(options.liveRequests, req, res) : undefined;
  if (liveRefused) return refuse(req, res, liveRefused);
  // Anonymous reads are the same for everyone, and those of endpoints kept per caller the same for
  // one caller: answered from the cache while nothing changed.
  const perCaller = lookup.found?.endpoint.spec.cache === 'per-caller';
  const key = cache && !live && (user.id === 0 || perCaller) ? sharedReadKey(req, user.id) : undefined;
  if (cache && key !== undefined) {
    const hit = cache.lookup(key) ?? (await cache.afterComputing(key));
    if (hit) return answerCached(req, res, hit.result, hit.etag, user);
  }
  const result = await serveAndKeep(api, req, incoming, key, idempotencyKey);
  if (overridden && result.status >= 400 && result.status < 500) Object.assign(result.headers, NO_CACHE);
  // A streamed body refused before its end is not read further: the connection ends with the answer.
  if (streamed && !req.complete) result.headers = { ...result.headers, Connection: 'close' };
  // A write may have changed what any process keeps (one refused with a 4xx changed nothing): all
  // of them must know before anyone is told of it.
  const replayed = result.headers['Idempotent-Replayed'] !== undefined;
  if (!reads && !replayed && incoming.method !== 'OPTIONS' && !(result.status >= 400 && result.status < 500)) await options.changes.changed(result.changes ?? 'site');
  await writeResult(req, res, result, user);
}

/** The request's query and body as client input (a streamed body is left unread), or the error that refuses them. */
function clientParams(req: Request, streamed: boolean): { query: ClientParams; body: ClientParams } | RestError {
  try {
    const query = clientInput(req.query, 'query');
    const body = streamed ? Object.create(null) : clientInput(req.body, req.is('json') ? 'json' : 'form');
    return { query, body };
  } catch (error) {
    if (!(error instanceof RestError)) throw error;
    return error;
  }
}

/** Whether `_jsonp` names a callback WordPress refuses; if so, the refusal is answered, as JavaScript. */
function refusedCallback(callback: unknown, res: Response): boolean {
  if (typeof callback !== 'string' || callback === '' || JSONP_CALLBACK.test(callback)) return false;
  const { code, message } = new InvalidCallback();
  res.status(400).setHeader('Content-Type', 'application/javascript; charset=UTF-8');
  res.end(JSON.stringify({ code, message }));
  return true;
}

/**
 * The caller the request's credentials name (anonymous without any), or the error that refuses
 * them: the one found before the body was read, unless the body alone brought a nonce.
 */
async function callerOf<D>(options: HttpOptions<D>, req: ApiRequest<D>, query: ClientParams, body: ClientParams): Promise<RestUser | RestError> {
  const nonceInBodyOnly = query._wpnonce === undefined && body._wpnonce !== undefined;
  try {
    return await ((nonceInBodyOnly ? undefined : req.api.caller) ?? options.authenticate(credentialsOf(req, query._wpnonce ?? body._wpnonce)));
  } catch (error) {
    if (!(error instanceof RestError)) throw error;
    return error;
  }
}

/**
 * Counts a request to a live endpoint among those held open until its response closes; the error
 * that refuses it when its client, or the process, holds as many as it may.
 */
function enterLiveRequest(liveRequests: LiveRequests, req: Request, res: Response): RestError | undefined {
  const entry = liveRequests.enter(req.ip ?? '');
  if ('refused' in entry) {
    const data = { retry_after: RETRY_AFTER_LIVE };
    return entry.refused === 'client' ? new TooManyLiveRequests(data) : new LiveRequestsFull(data);
  }
  // The response closes when it was written whole or when the client went, whichever ends it.
  res.once('close', entry.leave);
  return undefined;
}

/**
 * Serves the request, through the kept answers of idempotent writes when it carries an
 * `Idempotency-Key`, and keeps the answer of an anonymous read under `key` (while it is computed,
 * the same reads wait for it).
 */
async function serveAndKeep<D>(api: ApiContext<D>, req: ApiRequest<D>, incoming: IncomingRequest, key: string | undefined, idempotencyKey: string | undefined): Promise<RestResult> {
  const { options, apiRoot } = api;
  const { cache, server } = options;
  const startedAt = cache?.current ?? 0;
  const computed = cache && key !== undefined ? cache.startComputing(key) : undefined;
  try {
    const serve = () => server.serve(incoming, apiRoot, req.api.lookup);
    const result = idempotencyKey === undefined || !options.idempotency
      ? await serve()
      : await options.idempotency.serve(
        {
          key: idempotencyKey,
          user: incoming.user.id,
          method: incoming.method,
          path: normalizePath(incoming.path),
          query: incoming.query,
          body: incoming.body,
          files: incoming.files,
          ...(req.api.streamed ? { streamedBody: streamedBodyOf(incoming.headers) } : {}),
        },
        serve,
        (event) => answerFromItem(api, incoming, event),
      );
    // A streamed list is written as it is made: there is no whole answer to keep.
    if (cache && key !== undefined && result.status === 200 && !result.stream && !result.events && !holdsStreamedList(result.body)) {
      result.headers = { ...result.headers, ETag: cache.store(key, startedAt, result, JSON.stringify(result.body) ?? 'null') };
    }
    return result;
  } finally {
    computed?.();
  }
}

/**
 * The answer to a write whose own answer was never recorded, from what it stored: its first
 * event's item as it is now, read as the caller (in `edit` context, as writes answer), 201 with
 * its `Location` when the event created it. Undefined when no item route answers for it.
 */
async function answerFromItem<D>(api: ApiContext<D>, incoming: IncomingRequest, event: { stream: number; type: string; seq: number }): Promise<RestResult | undefined> {
  const { apiRoot } = api;
  const route = normalizePath(incoming.path);
  const created = event.type === 'created' && event.seq === 1;
  const itemRoute = created && !route.endsWith(`/${event.stream}`) ? `${route}/${event.stream}` : route;
  const query: ClientParams = Object.create(null);
  for (const name of ['_fields', '_embed', '_envelope', 'context'] as const) if (incoming.query[name] !== undefined) query[name] = incoming.query[name];
  query.context ??= 'edit';
  const answer = await api.options.server.serve({ ...incoming, method: 'GET', path: itemRoute, query, body: Object.create(null), files: [], stream: undefined, answersWrite: true }, apiRoot);
  if (answer.status !== 200 || answer.stream || answer.events || holdsStreamedList(answer.body) || Array.isArray(answer.body)) return undefined;
  if (!created) return answer;
  return { ...answer, status: 201, headers: { ...answer.headers, Location: `${apiRoot}${itemRoute}` } };
}

async function answerCached(req: Request, res: Response, result: RestResult, etag: string, user: RestUser): Promise<void> {
  if (ifNoneMatchHits(req.get('If-None-Match'), etag)) {
    res.status(304).setHeader('ETag', etag);
    res.end();
    return;
  }
  await writeResult(req, res, { ...result, headers: { ...result.headers, ETag: etag } }, user);
}

/** The site's home page: its name, and a link to the API that WordPress clients discover it by. */
function homePage(siteName: string, apiRoot: string): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(siteName)}</title>` +
    `<link rel="https://api.w.org/" href="${apiRoot}/"></head>` +
    `<body><h1>${escapeHtml(siteName)}</h1><p>API: <a href="${apiRoot}/">${apiRoot}/</a></p></body></html>`
  );
}

/**
 * The key a read's answer is kept under: everything that shapes it, which is the caller (`0`:
 * anonymous, the same for everyone), the method (GET, or HEAD, answered alike), the URL (route,
 * query and global parameters) and `Accept`. Undefined when anything else could shape it (a body,
 * whatever it holds; a method override; for an anonymous read, credentials of any kind): such an
 * answer is neither kept nor answered from the cache.
 */
function sharedReadKey(req: Request, caller: number): string | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  const { authorization, 'content-length': length, 'transfer-encoding': encoding, accept = '' } = req.headers;
  if ((caller === 0 && authorization !== undefined) || encoding !== undefined || (length !== undefined && length !== '0')) return undefined;
  return `${caller}\n${accept}\n${req.originalUrl}`;
}

function refuse(req: Request, res: Response, error: RestError): Promise<void> {
  return writeResult(req, res, { status: error.status, headers: {}, body: error.toBody() }, ANONYMOUS);
}

/**
 * Answers what Node's HTTP parser refuses before any route sees it (a URL or headers over 16 KB,
 * a request that is not HTTP) in the error shape, instead of Node's bare status line.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const refused = error.code === 'HPE_HEADER_OVERFLOW' ? new HeadersTooLarge() : new MalformedRequest();
  const body = JSON.stringify(refused.toBody());
  socket.end(
    `HTTP/1.1 ${refused.status} ${STATUS_CODES[refused.status]}\r\n` +
      `Content-Type: application/json; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

async function writeResult(req: Request, res: Response, result: RestResult, user: RestUser): Promise<void> {
  res.status(result.status);
  res.setHeader('X-Robots-Tag', 'noindex');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Access-Control-Expose-Headers', 'X-WP-Total, X-WP-TotalPages, Link, Idempotent-Replayed');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, Idempotency-Key');
  res.setHeader('Vary', 'Origin');
  const origin = req.get('Origin');
  if (origin !== undefined) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', 'OPTIONS, GET, POST, PUT, PATCH, DELETE');
    res.setHeader('Access-Control-Allow-Credentials', 'true');
  }
  if (user.id > 0) for (const [name, value] of Object.entries(NO_CACHE)) res.setHeader(name, value);
  for (const [name, value] of Object.entries(user.responseHeaders ?? {})) res.setHeader(name, value);
  const retryAfter = (result.body as { data?: { retry_after?: number } } | null)?.data?.retry_after;
  if ((result.status === 429 || result.status === 503) && retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  for (const [name, value] of Object.entries(result.headers)) {
    if (name === 'Link') res.append('Link', value);
    else res.setHeader(name, value);
  }

  if (result.stream) {
    res.setHeader('Content-Type', 'application/x-ndjson; charset=UTF-8');
    for await (const item of result.stream) {
      if (!res.write(`${JSON.stringify(item)}\n`)) await drained(res);
      if (res.destroyed) return;
    }
    res.end();
    return;
  }

  if (result.events) return writeEventStream(req, res, result.events);

  const callback = req.query._jsonp;
  const jsonp = typeof callback === 'string' && callback !== '';
  // A list streamed as it is made, or an answer with long strings (a long post's content, raw and
  // rendered), is written a piece at a time: whole, it would be one long serialization. A streamed
  // list is made as fast as the client reads it; an answer already whole is handed to the socket
  // at once, so that a client slow to read holds its text, not the text and the answer besides.
  // Each piece is handed over as its UTF-8 bytes, outside the JavaScript heap: a string written
  // while the socket is busy waits in the stream's queue as it is, and the ~50 MB answer to an
  // update of the longest post, queued as strings, ran a 96 MiB worker out of heap.
  const streamedList = holdsStreamedList(result.body);
  if (streamedList || holdsLongString(result.body)) {
    res.setHeader('Content-Type', jsonp ? 'application/javascript; charset=UTF-8' : 'application/json; charset=UTF-8');
    if (req.method === 'HEAD') return void res.end();
    if (jsonp) res.write(`/**/${callback}(`);
    const slices = new Slices();
    for await (const piece of answerPieces(result.body)) {
      if (!res.write(Buffer.from(piece, 'utf8')) && streamedList) await drained(res);
      if (res.destroyed) return;
      await slices.pause();
    }
    res.end(jsonp ? ')' : undefined);
    return;
  }
  const json = JSON.stringify(result.body) ?? 'null';
  if (jsonp) {
    res.setHeader('Content-Type', 'application/javascript; charset=UTF-8');
    res.end(req.method === 'HEAD' ? undefined : `/**/${callback}(${json})`);
    return;
  }
  res.setHeader('Content-Type', 'application/json; charset=UTF-8');
  res.end(req.method === 'HEAD' ? undefined : json);
}

/**
 * Writes server-sent events until the stream ends or the client goes (the stream is told at once,
 * through its signal). Proxies are asked not to buffer them.
 */
async function writeEventStream(req: Request, res: Response, open: (closed: AbortSignal) => AsyncIterable<ServerSentEvent>): Promise<void> {
  res.setHeader('Content-Type', 'text/event-stream; charset=UTF-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  if (req.method === 'HEAD') return void res.end();
  res.flushHeaders();
  const closing = new AbortController();
  res.once('close', () => closing.abort());
  try {
    for await (const message of open(closing.signal)) {
      if (res.destroyed) return;
      if (!res.write(serverSentEvent(message))) await drained(res);
    }
  } finally {
    closing.abort();
  }
  res.end();
}

/** One message in the `text/event-stream` format: every line of the data on its own `data:` line. */
function serverSentEvent(message: ServerSentEvent): string {
  if ('comment' in message) return `: ${message.comment.replace(/[\r\n]+/g, ' ')}\n\n`;
  const lines = [];
  if (message.id !== undefined) lines.push(`id: ${message.id}`);
  if (message.event !== undefined) lines.push(`event: ${message.event}`);
  for (const line of JSON.stringify(message.data).split('\n')) lines.push(`data: ${line}`);
  return `${lines.join('\n')}\n\n`;
}

/** Resolves once `res` can take more, or is closed (a client gone never drains it). */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** How long `/readyz` may take to answer. */
const HEALTH_BUDGET_MS = 1800;

/** The outcome of `task`, or undefined when it fails or takes longer than `ms`. */
async function within<T>(ms: number, task: () => Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([task().catch(() => undefined), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * The REST nonce a request sent, as WordPress reads it: `_wpnonce` from the request's parameters,
 * else `X-WP-Nonce`. One that is not a string (a list, an object) matches nothing.
 */
function nonceOf(header: string | string[] | undefined, param: unknown): string | undefined {
  const nonce = param ?? header;
  if (nonce === undefined) return undefined;
  return typeof nonce === 'string' ? nonce : '';
}

/** A copy of logged headers with the credentials among `names` replaced by a mark. */
function withoutCredentials(headers: Record<string, unknown> | undefined, names: readonly string[]): Record<string, unknown> | undefined {
  if (!headers) return headers;
  const copy = { ...headers };
  for (const name of names) if (copy[name] !== undefined) copy[name] = '[Redacted]';
  return copy;
}

/** What authenticates a request: its headers, its address and its REST nonce (`_wpnonce` given as `nonceParam`, else `X-WP-Nonce`). */
function credentialsOf(req: Request, nonceParam: unknown): { headers: Record<string, string | undefined>; ip: string; nonce?: string } {
  const headers = headerMap(req);
  return { headers, ip: req.ip ?? '', nonce: nonceOf(headers['x-wp-nonce'], nonceParam) };
}

function headerMap(req: Request): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null);
  for (const [name, value] of Object.entries(req.headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** What describes a body an endpoint reads as a stream (an upload), for an `Idempotency-Key`'s fingerprint. */
function streamedBodyOf(headers: Record<string, string | undefined>): Record<string, string | undefined> {
  const described: Record<string, string | undefined> = Object.create(null);
  for (const name of ['content-type', 'content-length', 'content-disposition', 'content-md5']) described[name] = headers[name];
  return described;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
