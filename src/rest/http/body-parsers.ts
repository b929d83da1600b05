import express, { type NextFunction, type Request, type Response } from 'express';
import multer from 'multer';
import { asServiceWork } from '../../store/queries/service-work.js';
import { JsonValueCounter, MAX_JSON_VALUES, MAX_PARAM_DEPTH, MAX_PARAMS } from '../client-input.js';
import {
  asRestError,
  InputTooDeep,
  InternalError,
  InvalidMultipart,
  RequestTooLarge,
  RestError,
  UnreadableBody,
  UnsupportedBodyEncoding,
} from '../errors.js';
import { type RestUser } from '../rest-request.js';

export interface BodyLimits {
  /** Largest body of a logged-in caller's request. */
  bodyLimitBytes: number;
  /** Largest body of an anonymous caller's request (at most `bodyLimitBytes`; absent: `bodyLimitBytes`). */
  anonymousBodyLimitBytes?: number;
  /** Who sends the request, from its headers alone; throws a RestError for bad credentials. */
  callerOf: (req: Request) => Promise<RestUser>;
}

/** Files a multipart body may carry to an endpoint that does not stream it (PHP's `max_file_uploads`); none reads them. */
const MAX_FORM_FILES = 20;

const isJson = (req: { headers: Record<string, string | string[] | undefined> }) =>
  /^application\/([\w.+-]+\+)?json\b/i.test(String(req.headers['content-type'] ?? ''));
const tooLarge = (what: string) => Object.assign(new Error(what), { status: 413, type: 'entity.too.large' });

/**
 * The body parsers, each bounded by the caller's limit, decided before a byte of the body is
 * read. A body no larger than an anonymous caller may send is read as it is; a larger one (or
 * one of unknown length) only once the request's credentials are found good, up to a logged-in
 * caller's limit: without credentials it is refused with 413, with bad ones with their 401 (or
 * 429), unread. `callerOf` keeps what it finds: the handler runs the request as that caller
 * (unless the body alone brings a nonce).
 * Past the limits: 413 `rest_request_too_large`, from the declared length before anything is
 * read, or as the bytes arrive (a chunked body), whatever parses them; a JSON body of more than
 * MAX_JSON_VALUES values, and form or multipart bodies of more than MAX_PARAMS fields, too.
 */
export function bodyParsers(options: BodyLimits): express.RequestHandler[] {
  const full = options.bodyLimitBytes;
  const anonymous = Math.min(options.anonymousBodyLimitBytes ?? full, full);
  const limitOf = new WeakMap<Request, number>();
  const limit = (req: Request) => limitOf.get(req) ?? anonymous;

  const chooseLimit = async (req: Request, _res: Response, next: NextFunction) => {
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    const hasBody = req.headers['transfer-encoding'] !== undefined || (declared !== undefined && declared > 0);
    if (!hasBody || (declared !== undefined && declared <= anonymous)) return next();
    let user: RestUser;
    try {
      user = await asServiceWork('request', () => options.callerOf(req));
    } catch (error) {
      if (!(error instanceof RestError)) req.log.error({ err: error }, 'authentication before the body failed');
      return next(asRestError(error));
    }
    limitOf.set(req, user.id > 0 ? full : anonymous);
    next();
  };

  const small = boundedParsers(anonymous);
  const large = boundedParsers(full);
  const parsersOf = (req: Request) => (limitOf.get(req) === full ? large : small);
  const json = countedJson(parsersOf);
  const upload = multipartUpload(limit);

  return [
    chooseLimit,
    // A declared length over the limit is refused before anything is read, whatever would parse the body.
    (req, _res, next) => (Number(req.headers['content-length'] ?? 0) > limit(req) ? next(new RequestTooLarge()) : next()),
    json,
    (req, res, next) => parsersOf(req).form(req, res, next),
    // Whatever busboy says of a broken multipart body is the client's mistake.
    (req, res, next) => (req.is('multipart/form-data') ? upload(req, res, (error?: unknown) => next(error && multipartError(error))) : next()),
  ];
}

type BoundedParsers = ReturnType<typeof boundedParsers>;

/** The JSON and form parsers for bodies of at most `bytes`. */
function boundedParsers(bytes: number) {
  // body-parser's own `depth` (its types omit it): deeper form keys are refused, as for the query.
  const formOptions = { limit: bytes, extended: true, parameterLimit: MAX_PARAMS, depth: MAX_PARAM_DEPTH };
  const jsonOptions = { limit: bytes, strict: false, type: isJson };
  return {
    json: express.json(jsonOptions),
    // A compressed body is counted once inflated, whole, before it is parsed.
    inflatedJson: express.json({
      ...jsonOptions,
      verify: (_req, _res, body) => {
        if (!new JsonValueCounter(MAX_JSON_VALUES).write(body)) throw tooLarge('too many JSON values');
      },
    }),
    form: express.urlencoded(formOptions),
  };
}

/** A JSON body's values are counted as its bytes arrive, and it is refused unparsed past MAX_JSON_VALUES. */
function countedJson(parsersOf: (req: Request) => BoundedParsers) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!isJson(req)) return next();
    // Counted on its bytes, JSON must be UTF-8 (as `json_decode` reads it); others are refused with 415.
    const charset = /;\s*charset\s*=\s*"?([\w-]+)/i.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return next(new UnsupportedBodyEncoding());
    if ((req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity') return parsersOf(req).inflatedJson(req, res, next);
    const counter = new JsonValueCounter(MAX_JSON_VALUES);
    const count = (chunk: Buffer) => {
      if (counter.write(chunk)) return;
      req.off('data', count);
      // The parser reading the body ends with this error: it reads the rest off unparsed and answers 413.
      if (req.listenerCount('error') > 0) req.emit('error', tooLarge('too many JSON values'));
    };
    // Attached as the parser starts reading, in the same turn: no chunk can pass unseen.
    req.on('data', count);
    parsersOf(req).json(req, res, (error?: unknown) => {
      req.off('data', count);
      next(error);
    });
  };
}

/** multer for multipart bodies, bounded by the request's limit. */
function multipartUpload(limit: (req: Request) => number) {
  return multer({
    storage: multer.memoryStorage(),
    // multer takes limits per request; its types know only the object form.
    limits: ((req: Request) => ({ fileSize: limit(req), fieldSize: limit(req), fields: MAX_PARAMS, files: MAX_FORM_FILES, parts: MAX_PARAMS + MAX_FORM_FILES })) as unknown as multer.Options['limits'],
    // busboy bounds each part, not the whole: the body is counted as it streams in (its length may not be declared).
    streamHandler: (req: Request, busboy: NodeJS.WritableStream & { destroy(error: Error): void }) => {
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= limit(req)) return;
        req.off('data', count);
        busboy.destroy(tooLarge('request entity too large'));
      };
      req.on('data', count);
      req.pipe(busboy);
    },
  } as multer.Options).any();
}

/** A body the parsers refused, as the client is told: the parsers' 4xx keep their meaning, anything else is ours. */
export function bodyError(error: unknown): RestError {
  if (error instanceof RestError) return error;
  const { status, type } = error as { status?: number; type?: string };
  if (status === 413) return new RequestTooLarge();
  if (status === 415) return new UnsupportedBodyEncoding();
  if (type === 'querystring.parse.rangeError') return new InputTooDeep();
  if (status !== undefined && status >= 400 && status < 500) return new UnreadableBody();
  return new InternalError();
}

function multipartError(error: unknown): RestError {
  const { code, status } = error as { code?: string; status?: number };
  const tooMuch = ['LIMIT_FILE_SIZE', 'LIMIT_FIELD_VALUE', 'LIMIT_FIELD_COUNT', 'LIMIT_FILE_COUNT', 'LIMIT_PART_COUNT'];
  return status === 413 || (code !== undefined && tooMuch.includes(code)) ? new RequestTooLarge() : new InvalidMultipart();
}
