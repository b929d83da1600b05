import { type Readable } from 'node:stream';
import { type Logger } from '../logger.js';
import { isFieldIncluded } from './fields.js';
import { type Context } from './schema.js';

/** The caller. The framework only tells anonymous (id 0) from logged in; identity adds the rest. */
export interface RestUser {
  readonly id: number;
  /** Headers every answer to this caller carries, as its authentication asks (a session's fresh nonce). */
  readonly responseHeaders?: Readonly<Record<string, string>>;
}

export const ANONYMOUS: RestUser = Object.freeze({ id: 0 });

export interface UploadedFile {
  fieldname: string;
  originalname: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

/** A request as the dispatcher sees it, whether it came over HTTP or from `_embed`. */
export interface IncomingRequest {
  method: string;
  /** The route string, e.g. `/cms/v2/posts/5`. */
  path: string;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  files: UploadedFile[];
  headers: Record<string, string | undefined>;
  user: RestUser;
  log: Logger;
  /** Set when the body claimed to be JSON and did not parse. */
  jsonError?: string;
  /** The unread body, for an endpoint that takes it as a stream. */
  stream?: Readable;
  /** Set on a read made to answer a write (a retried write whose answer was never recorded). */
  answersWrite?: boolean;
}

export class RestRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, unknown>;
  readonly body: Record<string, unknown>;
  readonly files: UploadedFile[];
  readonly headers: Record<string, string | undefined>;
  readonly user: RestUser;
  readonly log: Logger;
  /** The unread body, for an endpoint that takes it as a stream (`body: 'stream'`); null otherwise. */
  readonly stream: Readable | null;
  /** Whether this request's answer is a write's: a write, or a read standing in for a write's lost answer. */
  readonly answersWrite: boolean;
  /**
   * Adds form fields read from a streamed body to the parameters, checked by the endpoint's args
   * as a parsed body would have been (set by the server for streamed endpoints).
   */
  acceptFields: (fields: readonly (readonly [string, string])[]) => Promise<void> = async () => {
    throw new Error('This endpoint does not take its body as a stream');
  };
  /** Merged parameters: body over query over URL, then argument defaults (`WP_REST_Request::get_param`). */
  readonly params: Record<string, unknown>;
  /** The matched route's pattern, e.g. `/cms/v2/posts/(?P<id>[\d]+)`. */
  route = '';
  #context: Context = 'view';
  /** The context the answer is prepared and filtered in: the server's choice, made before the handler runs. */
  get context(): Context {
    return this.#context;
  }
  /** Sets `context`, from the request and its endpoint's `answerContext`: the server's, not a handler's, to call. */
  answerIn(context: Context): void {
    this.#context = context;
  }
  /** `_fields`, or null when every field is wanted. */
  fields: string[] | null = null;
  /** Whether `_embed` asks for embedding (so `_links` must be built). */
  embedding = false;

  constructor(
    incoming: IncomingRequest,
    urlParams: Record<string, string>,
    /** The API root, `{site_url}/cms-json`. */
    readonly apiRoot: string,
  ) {
    this.method = incoming.method;
    this.path = incoming.path;
    this.query = incoming.query;
    this.body = incoming.body;
    this.files = incoming.files;
    this.headers = incoming.headers;
    this.user = incoming.user;
    this.log = incoming.log;
    this.stream = incoming.stream ?? null;
    this.answersWrite = incoming.answersWrite ?? !(incoming.method === 'GET' || incoming.method === 'HEAD');
    // Without a prototype: a parameter named `__proto__` or `constructor` is only a parameter.
    this.params = Object.assign(Object.create(null) as Record<string, unknown>, urlParams, incoming.query, incoming.body);
  }

  private readonly memos = new Map<string, Promise<unknown>>();

  /**
   * Computes `key` once per request: the permission check, the handler and the `Allow` header
   * all ask for the same item, and it is read once.
   */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (!this.memos.has(key)) this.memos.set(key, compute());
    return this.memos.get(key) as Promise<T>;
  }

  /** Whether the response needs `field`; a serializer skips the work for fields nobody asked for. */
  wants(field: string): boolean {
    if (field === '_links') return this.fields === null || this.embedding || isFieldIncluded('_links', this.fields);
    return isFieldIncluded(field, this.fields);
  }

  /** An absolute URL for a route, e.g. `url('/cms/v2/posts/5')`. */
  url(route: string): string {
    return `${this.apiRoot}${route}`;
  }
}
