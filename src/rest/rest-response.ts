export type HeaderValue = string | string[];

export interface Pagination {
  total: number;
  totalPages: number;
  page: number;
  /** Parameters the page links set (undefined: leave out) over the request's own: an as-of list's position. */
  linkParams?: Record<string, string | undefined>;
}

/** What a handler returns when it needs a status, headers or pagination beyond plain data. */
export class RestResponse {
  constructor(
    public data: unknown,
    public status = 200,
    public headers: Record<string, HeaderValue> = {},
    public pagination?: Pagination,
    /** A collection sent as an object keyed by slug (statuses, types, taxonomies). */
    public keyed = false,
  ) {}
}

/** An endpoint that answers with a stream of JSON objects, one a line (`application/x-ndjson`). */
export class RestStream {
  constructor(readonly items: AsyncIterable<unknown>) {}
}

/** One message of a `text/event-stream` answer: an event, or a comment (a heartbeat). */
export type ServerSentEvent = { id?: string; event?: string; data: unknown } | { comment: string };

/**
 * An endpoint that answers with server-sent events (`text/event-stream`), open until the client
 * goes: `open` is given a signal that is aborted when the connection closes, so a stream waiting
 * for its next event stops at once instead of at its next write.
 */
export class RestEventStream {
  constructor(readonly open: (closed: AbortSignal) => AsyncIterable<ServerSentEvent>) {}
}

export function created(data: unknown, location: string): RestResponse {
  return new RestResponse(data, 201, { Location: location });
}

/** A page of a collection: `X-WP-Total`, `X-WP-TotalPages` and the `Link` prev/next come from this. */
export function collection(items: unknown[], pagination: Pagination): RestResponse {
  return new RestResponse(items, 200, {}, pagination);
}

/**
 * A collection WordPress sends as an object keyed by slug rather than a list: each value is an
 * item, filtered by context and given compact links like the items of a list.
 */
export function keyedCollection(items: Record<string, unknown>): RestResponse {
  return new RestResponse(items, 200, {}, undefined, true);
}
