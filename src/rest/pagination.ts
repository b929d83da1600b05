import { type RestErrorClass } from './errors.js';
import { collection, type RestResponse } from './rest-response.js';

/** Which slice of a collection a request asks for, from its `page`, `per_page` and `offset`. */
export interface PageWindow {
  page: number;
  perPage: number;
  skip: number;
}

export function pageWindow(params: Record<string, unknown>): PageWindow {
  const page = Number(params.page ?? 1);
  const perPage = Number(params.per_page ?? 10);
  // As in WP_Query, an explicit offset replaces the page's own starting point.
  const skip = params.offset !== undefined ? Number(params.offset) : (page - 1) * perPage;
  return { page, perPage, skip };
}

/**
 * A page of results with `X-WP-Total` and `X-WP-TotalPages`; asking past the last page of a
 * non-empty collection throws `pastLastPage` (WordPress: `rest_post_invalid_page_number` and kin).
 */
export function pageOf(items: unknown[], total: number, window: PageWindow, pastLastPage?: RestErrorClass): RestResponse {
  const totalPages = total === 0 ? 0 : Math.ceil(total / window.perPage);
  if (pastLastPage && total > 0 && window.page > totalPages) throw new pastLastPage();
  const response = collection(items, { total, totalPages, page: window.page });
  response.headers['X-WP-Total'] = String(total);
  response.headers['X-WP-TotalPages'] = String(totalPages);
  return response;
}
