import { createHash } from 'node:crypto';
import { type Db } from 'mongodb';
import { checkPosition, PointOutOfRange, positionAt } from '../store/history/as-of.js';
import { type ArgSpecs } from './args.js';
import { defineRestErrorWith, invalidParams, missingParams } from './errors.js';
import { type Link } from './links.js';
import { type RestRequest } from './rest-request.js';
import { type HeaderValue, type RestResponse } from './rest-response.js';

/**
 * As-of reads over HTTP: `?as_of=<RFC 3339 time>` or `?as_of_position=<N>` names a point of the
 * change log's clock. The answer names the position it was read at (`X-CMS-As-Of-Position`, and
 * page links that carry it), and never changes: a strong entity tag and `Cache-Control: immutable`,
 * private, as it is an editor's answer.
 */
export const AS_OF_POSITION_HEADER = 'X-CMS-As-Of-Position';

export const AS_OF_ARGS = {
  as_of: { description: 'Read as the site stood at this time (RFC 3339, with its offset): an editor\'s view of the past.', type: 'string', format: 'date-time' },
  as_of_position: { description: 'Read as the site stood at this position of the change log.', type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
} as const satisfies ArgSpecs<RestRequest>;

const REASONS: Record<PointOutOfRange['reason'], string> = {
  before: 'is before the change log begins.',
  after: 'is after the change log (a time in the future, or a position not reached yet).',
  empty: 'names no point: the change log is empty.',
};

const PointRefused = defineRestErrorWith('rest_invalid_param', 400, (param: string, why: string) => ({ message: `${param} ${why}`, data: { param } }));

/** Whether the request asks for an as-of read. */
export const asksAsOf = (req: RestRequest) => req.params.as_of !== undefined || req.params.as_of_position !== undefined;

/**
 * The position the request asks to read at, or undefined for a live read. Both parameters at
 * once, a time before the log or in the future, and a position not reached are 400s naming the
 * parameter, in the contract's shape for invalid parameters.
 */
export async function requestedPosition(req: RestRequest, db: Db, now: Date): Promise<number | undefined> {
  if (!asksAsOf(req)) return undefined;
  return req.memo('as-of-position', async () => {
    const { as_of: time, as_of_position: position } = req.params;
    if (time !== undefined && position !== undefined) {
      throw invalidParams({ as_of: new PointRefused('as_of', 'cannot be given with as_of_position: name one point.') });
    }
    const param = time !== undefined ? 'as_of' : 'as_of_position';
    try {
      return time !== undefined ? await positionAt(db, new Date(String(time)), now) : await checkPosition(db, Number(position));
    } catch (error) {
      if (error instanceof PointOutOfRange) throw invalidParams({ [param]: new PointRefused(param, REASONS[error.reason]) });
      throw error;
    }
  });
}

/** The position a restore names (one of the two parameters is required): as `requestedPosition`. */
export async function restorePosition(req: RestRequest, db: Db, now: Date): Promise<number> {
  if (!asksAsOf(req)) throw missingParams(['as_of']);
  return (await requestedPosition(req, db, now))!;
}

/** The headers of an as-of answer read at `position`, whose representation `tag` names. */
export function asOfHeaders(position: number, tag: string): Record<string, HeaderValue> {
  return {
    ETag: `"${tag}"`,
    'Cache-Control': 'private, max-age=31536000, immutable',
    [AS_OF_POSITION_HEADER]: String(position),
  };
}

/** Marks a response as read at `position`: its headers, and page links pinned to the position. */
export function asOfAnswer(response: RestResponse, position: number, tag: string): RestResponse {
  Object.assign(response.headers, asOfHeaders(position, tag));
  if (response.pagination) response.pagination.linkParams = { as_of: undefined, as_of_position: String(position) };
  return response;
}

/**
 * The tag of a list page read at `position`: its kind, the position, and a digest of the query
 * that chose the page (less the point itself, which the position names).
 */
export function asOfListTag(req: RestRequest, kind: string, position: number): string {
  const query = JSON.stringify(Object.entries(req.query).filter(([name]) => name !== 'as_of' && name !== 'as_of_position').sort());
  return `${kind}@${position}:${createHash('sha256').update(query).digest('base64url').slice(0, 16)}`;
}

/** Links to items of history types (posts, pages, menu items), which an as-of answer pins to its position. */
export const HISTORY_ITEM_LINKS = /\/cms\/v2\/(?:posts|pages|menu-items)\/\d+$/;

/**
 * Pins the links of an as-of item to its position: those to items of history types (`routes`
 * tells them by path), so that `_embed` and a client following them read the same point.
 */
export function pinLinks(item: unknown, position: number, routes: RegExp): unknown {
  if (typeof item !== 'object' || item === null || !('_links' in item)) return item;
  const links = (item as { _links: Record<string, Link[]> })._links;
  const pinned: Record<string, Link[]> = {};
  for (const [rel, list] of Object.entries(links)) {
    pinned[rel] = list.map((link) => {
      if (typeof link.href !== 'string' || link.templated) return link;
      const url = new URL(link.href, 'http://localhost');
      if (!routes.test(url.pathname) && !routes.test(url.searchParams.get('rest_route') ?? '')) return link;
      const separator = link.href.includes('?') ? '&' : '?';
      return { ...link, href: `${link.href}${separator}as_of_position=${position}` };
    });
  }
  return { ...item, _links: pinned };
}
