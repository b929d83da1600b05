import { NoSearchTerm, OrderbyIncludeMissing } from '../post-errors.js';

export { NoSearchTerm, OrderbyIncludeMissing, PostInvalidPage } from '../post-errors.js';
import { type Filter, type Sort } from 'mongodb';
import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { escapeRegex } from '../../lib/regex.js';
import { formatSiteDate, parseRestDate } from '../../lib/site-dates.js';
import { POST_STATUSES } from '../../registry/post-statuses.js';
import { plainFilter } from '../../store/queries/filters.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { TAXONOMIES } from '../../registry/taxonomies.js';
import { InvalidDate } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { siteTimezone } from '../settings/index.js';
import { type PostDoc } from './post.model.js';


const DATE_BOUNDS = [
  ['after', 'date', '$gt'],
  ['modified_after', 'modified', '$gt'],
  ['before', 'date', '$lt'],
  ['modified_before', 'modified', '$lt'],
] as const;

/** One of a list's `after`, `before`, `modified_after` and `modified_before`: the instant it names, and the site's timezone. */
export interface DateBound {
  field: 'date' | 'modified';
  operator: '$gt' | '$lt';
  instant: Date;
  timezone: string;
}

/**
 * The date bounds a list asks for, as WP_Date_Query reads them: each value's offset honoured,
 * else site time. Each collection compares them with its own columns (site time for posts).
 */
export async function dateBounds(params: RestRequest['params'], deps: Pick<Deps, 'store'>): Promise<DateBound[]> {
  const bounds: DateBound[] = [];
  let timezone: string | undefined;
  for (const [param, field, operator] of DATE_BOUNDS) {
    if (params[param] === undefined) continue;
    timezone ??= await siteTimezone(deps);
    const instant = parseRestDate(String(params[param]), timezone);
    if (!instant) throw new InvalidDate();
    bounds.push({ field, operator, instant, timezone });
  }
  return bounds;
}

/** The post controller's `search_columns` (all three when none is named) to the fields of a collection that has them. */
export function searchColumnsFilter<T>(search: string, columns: readonly string[] | undefined, fields: Readonly<Record<'post_title' | 'post_content' | 'post_excerpt', string>>): Filter<T> {
  const regex = { $regex: escapeRegex(search), $options: 'i' };
  const named = columns?.length ? columns : (['post_title', 'post_content', 'post_excerpt'] as const);
  return { $or: named.map((column) => ({ [fields[column as keyof typeof fields]]: regex })) } as Filter<T>;
}

const SORT_FIELDS: Record<string, string> = {
  date: 'date',
  modified: 'modified',
  id: '_id',
  title: 'title',
  slug: 'slug',
  author: 'author',
  parent: 'parent',
  menu_order: 'menu_order',
  include: '_id',
  include_slugs: 'slug',
  relevance: 'date',
};

/** Which statuses the caller may list: the public ones, plus the others only for editors of the type. */
function statusFilter(req: RestRequest, type: PostTypeDef): Filter<PostDoc> {
  const asked = (req.params.status as string[] | undefined) ?? ['publish'];
  const statuses = asked.includes('any')
    ? POST_STATUSES.filter((status) => status.show_in_list && status.slug !== 'trash' && !status.internal).map((status) => status.slug)
    : asked;
  if (can(req.user, type.caps.edit_others_posts)) return { status: { $in: statuses } };
  // Others' drafts, pending and private items stay hidden from authors and contributors.
  const own = statuses.filter((status) => status !== 'publish' && !(status === 'private' && can(req.user, type.caps.read_private_posts)));
  const everyone = statuses.filter((status) => !own.includes(status));
  const or: Filter<PostDoc>[] = [];
  if (everyone.length) or.push({ status: { $in: everyone } });
  if (own.length && req.user.id > 0) or.push({ status: { $in: own }, author: req.user.id });
  return or.length ? { $or: or } : { _id: -1 };
}

/**
 * Which password-protected items a search may match: only those whose words the caller may read
 * (WordPress adds `post_password = ''` to a search by whoever cannot), so that a search is no
 * oracle on protected content. Undefined when the caller may read every one of them.
 */
function protectedItemsSearchable(req: RestRequest, type: PostTypeDef): Filter<PostDoc> | undefined {
  if (can(req.user, type.caps.edit_others_posts)) return undefined;
  if (req.user.id > 0 && can(req.user, type.caps.edit_posts)) return { $or: [{ password: '' }, { author: req.user.id }] };
  return { password: '' };
}

/** `GET /<type>` parameters to a Mongo filter and sort, as `WP_REST_Posts_Controller::get_items` builds its query. */
export async function postListQuery(
  req: RestRequest,
  deps: Pick<Deps, 'store'>,
  type: PostTypeDef,
  /** For types listed by another controller (media): its own status rule, and its own filters. */
  hooks: { status?: Filter<PostDoc>; filters?: Filter<PostDoc>[] } = {},
): Promise<{ filter: Filter<PostDoc>; sort: Sort; include?: number[]; slugs?: string[] }> {
  const p = req.params;
  const and: Filter<PostDoc>[] = [{ type: type.slug }, hooks.status ?? statusFilter(req, type), ...(hooks.filters ?? [])];
  const ids = (name: string) => (p[name] as number[] | undefined) ?? [];
  if (ids('include').length) and.push({ _id: { $in: ids('include') } });
  if (ids('exclude').length) and.push({ _id: { $nin: ids('exclude') } });
  if (ids('author').length) and.push({ author: { $in: ids('author') } });
  if (ids('author_exclude').length) and.push({ author: { $nin: ids('author_exclude') } });
  if (type.hierarchical && ids('parent').length) and.push({ parent: { $in: ids('parent') } });
  if (type.hierarchical && ids('parent_exclude').length) and.push({ parent: { $nin: ids('parent_exclude') } });
  if (p.menu_order !== undefined) and.push({ menu_order: Number(p.menu_order) });
  const slugs = (p.slug as string[] | undefined) ?? [];
  if (slugs.length) and.push({ slug: { $in: slugs } });
  if (p.sticky !== undefined && type.slug === 'post') and.push({ sticky: Boolean(p.sticky) });
  // As WP_Date_Query does: the instant in site time, against the site-time column.
  for (const bound of await dateBounds(p, deps)) and.push({ [bound.field]: { [bound.operator]: formatSiteDate(bound.instant, bound.timezone)! } });
  if (typeof p.search === 'string' && p.search !== '') {
    and.push(searchColumnsFilter<PostDoc>(p.search, p.search_columns as string[] | undefined, { post_title: 'title', post_content: 'content', post_excerpt: 'excerpt' }));
    const unlocked = protectedItemsSearchable(req, type);
    if (unlocked) and.push(unlocked);
  }
  const taxQueries: Filter<PostDoc>[] = [];
  for (const taxonomy of TAXONOMIES.filter((candidate) => candidate.types.includes(type.slug))) {
    const included = (p[taxonomy.rest_base] as number[] | undefined) ?? [];
    const excluded = (p[`${taxonomy.rest_base}_exclude`] as number[] | undefined) ?? [];
    if (included.length) taxQueries.push({ [`terms.${taxonomy.slug}`]: { $in: included } });
    if (excluded.length) and.push({ [`terms.${taxonomy.slug}`]: { $nin: excluded } });
  }
  if (taxQueries.length) and.push(p.tax_relation === 'OR' ? { $or: taxQueries } : { $and: taxQueries });

  const orderby = String(p.orderby ?? 'date');
  if (orderby === 'relevance' && !p.search) throw new NoSearchTerm();
  if (orderby === 'include' && !ids('include').length) throw new OrderbyIncludeMissing();
  const direction = p.order === 'asc' ? 1 : -1;
  const field = SORT_FIELDS[orderby] ?? 'date';
  const sort: Sort = field === '_id' ? { _id: direction } : { [field]: direction, _id: direction };
  return {
    filter: plainFilter({ $and: and }),
    sort,
    ...(orderby === 'include' ? { include: ids('include') } : {}),
    ...(orderby === 'include_slugs' ? { slugs } : {}),
  };
}
