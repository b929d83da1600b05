export type HeaderValue = string | string[];

export interface Pagination {
  total: number;
  totalPages: number;
  page: number;
}

/** What a handler returns when it needs a status, headers or pagination beyond plain data. */
export class RestResponse {
  constructor(
    public data: unknown,
    public status = 200,
    public headers: Record<string, HeaderValue> = {},
    public pagination?: Pagination,
  ) {}
}

/** An endpoint that answers with a stream of JSON objects, one a line (`application/x-ndjson`). */
export class RestStream {
  constructor(readonly items: AsyncIterable<unknown>) {}
}

export function created(data: unknown, location: string): RestResponse {
  return new RestResponse(data, 201, { Location: location });
}

/** A page of a collection: `X-WP-Total`, `X-WP-TotalPages` and the `Link` prev/next come from this. */
export function collection(items: unknown[], pagination: Pagination): RestResponse {
  return new RestResponse(items, 200, {}, pagination);
}
