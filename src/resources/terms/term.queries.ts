import { escapeRegex } from '../../lib/regex.js';
import { type Filter, type Sort } from 'mongodb';
import { plainFilter } from '../../store/queries/filters.js';
import { FULL_SCAN_COMMENT } from '../../store/queries/query-shapes.js';
import { type Deps } from '../../deps.js';
import { sanitizeSlug } from '../../lib/slugs.js';
import { type PageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type TaxonomyDef } from '../../registry/taxonomies.js';
import { findTaggedPost } from '../posts/index.js';
import { termsCollection, type TermDoc } from './term.model.js';
import { type TermOrderby } from './term.schema.js';

export async function findTerm(deps: Deps, taxonomy: string, id: number): Promise<TermDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return termsCollection(deps.store.db).findOne({ _id: id, taxonomy });
}

// The permission checks, the handler and the `Allow` header all ask for the term in the URL;
// one lookup per request serves them all, and writes record the new state here.
const requested = new WeakMap<RestRequest, Promise<TermDoc | null>>();

/** The term named by the URL's `id`, in `taxonomy`, or null. */
export function requestedTerm(req: RestRequest, deps: Deps, taxonomy: TaxonomyDef): Promise<TermDoc | null> {
  let found = requested.get(req);
  if (!found) {
    found = findTerm(deps, taxonomy.slug, Number(req.params.id));
    requested.set(req, found);
  }
  return found;
}

export function rememberTerm(req: RestRequest, doc: TermDoc | null): void {
  requested.set(req, Promise.resolve(doc));
}

/** The fields of a `posts` document the `post` filter reads. */
export interface TaggedPost {
  _id: number;
  type: string;
  status: string;
  author: number;
  trashedFrom?: string;
  terms?: Record<string, number[]>;
}


/** The list parameters after validation, as `get_items` reads them. */
export interface TermListParams {
  include: number[];
  exclude: number[];
  search?: string;
  slug?: string[];
  parent?: number;
  post?: number;
  hide_empty: boolean;
  orderby: TermOrderby;
  order: 'asc' | 'desc';
  page: number;
  per_page: number;
  offset?: number;
}

/**
 * Which slice a request asks for: as in `get_items`, a non-zero `offset` replaces the page's
 * own start, and the page reported in the headers is the one that offset falls in.
 */
export function termWindow(params: TermListParams): PageWindow {
  const perPage = params.per_page;
  if (params.offset) return { perPage, skip: params.offset, page: Math.ceil(params.offset / perPage + 1) };
  return { perPage, skip: (params.page - 1) * perPage, page: params.page };
}

const SORT_FIELDS: Record<Exclude<TermOrderby, 'include' | 'include_slugs'>, keyof TermDoc> = {
  id: '_id',
  name: 'name',
  slug: 'slug',
  description: 'description',
  count: 'count',
  // Term groups (aliases) are not kept: every term is in group 0, so ties fall back to the id.
  term_group: '_id',
};

/** One page of a taxonomy's terms and the total, as `get_terms` and `wp_count_terms` give them. */
export async function listTerms(
  deps: Deps,
  taxonomy: TaxonomyDef,
  params: TermListParams,
  window: PageWindow,
  /** Finds what the `post` filter names, where that is not a post. */
  findTagged?: (deps: Deps, id: number) => Promise<TaggedPost | null>,
  /** The ids of the terms `hide_empty` keeps, where a stored count does not tell them (menus: those with items). */
  nonEmpty?: (deps: Deps) => Promise<number[]>,
): Promise<{ docs: TermDoc[]; total: number }> {
  const terms = termsCollection(deps.store.db);
  const clauses: Filter<TermDoc>[] = [];

  if (params.post) {
    const post = await (findTagged ? findTagged(deps, params.post) : findTaggedPost(deps, params.post, taxonomy.slug));
    clauses.push({ _id: { $in: post?.terms?.[taxonomy.slug] ?? [] } });
  }
  // As in WP_Term_Query, `include` wins over `exclude`.
  if (params.include.length) clauses.push({ _id: { $in: params.include } });
  else if (params.exclude.length) clauses.push({ _id: { $nin: params.exclude } });
  if (params.search) {
    const pattern = { $regex: escapeRegex(params.search), $options: 'i' };
    clauses.push({ $or: [{ name: pattern }, { slug: pattern }] });
  }
  const slugs = (params.slug ?? []).map(sanitizeSlug).filter(Boolean);
  if (slugs.length) clauses.push({ slug: { $in: slugs } });
  if (taxonomy.hierarchical && params.parent !== undefined) clauses.push({ parent: params.parent });
  // Terms of a given post are listed whatever their count.
  if (params.hide_empty && !params.post) {
    clauses.push(nonEmpty ? { _id: { $in: await nonEmpty(deps) } }
      : taxonomy.hierarchical ? { _id: { $in: await nonEmptyWithAncestors(deps, taxonomy.slug) } }
      : { count: { $gt: 0 } });
  }
  const filter: Filter<TermDoc> = plainFilter(clauses.length ? { taxonomy: taxonomy.slug, $and: clauses } : { taxonomy: taxonomy.slug });

  const listed = params.orderby === 'include' && params.include.length ? params.include
    : params.orderby === 'include_slugs' && slugs.length ? slugs
      : null;
  if (listed) {
    // `FIELD(...)` ordering: the matches are at most as many as the ids or slugs asked for.
    const key = params.orderby === 'include' ? '_id' : 'slug';
    const position = (doc: TermDoc) => (listed as readonly unknown[]).indexOf(doc[key]);
    const all = (await terms.find(filter).toArray()).sort((a, b) => position(a) - position(b));
    if (params.order === 'desc') all.reverse();
    return { docs: all.slice(window.skip, window.skip + window.perPage), total: all.length };
  }

  const orderby = params.orderby === 'include' || params.orderby === 'include_slugs' ? 'name' : params.orderby;
  const field = SORT_FIELDS[orderby];
  const direction = orderby === 'term_group' ? 1 : params.order === 'desc' ? -1 : 1;
  // Ties are broken by id in the sort's own direction, so one index serves the sort either way;
  // a slug is unique in its taxonomy and needs no tie-break.
  const sort: Sort = field === '_id' || field === 'slug' ? { [field]: direction } : { [field]: direction, _id: direction };
  // No index holds descriptions (they may be long): that order is a scan, and says so.
  const comment = field === 'description' ? `${FULL_SCAN_COMMENT} terms in order of their descriptions` : undefined;
  const [docs, total] = await Promise.all([
    terms.find(filter, { comment }).sort(sort).skip(window.skip).limit(window.perPage).toArray(),
    terms.countDocuments(filter),
  ]);
  return { docs, total };
}

/**
 * WordPress lists an empty term of a hierarchical taxonomy under `hide_empty` when one of its
 * descendants is not empty: the non-empty terms and all their ancestors.
 */
async function nonEmptyWithAncestors(deps: Deps, taxonomy: string): Promise<number[]> {
  const terms = termsCollection(deps.store.db);
  const projection = { _id: 1, parent: 1 };
  let level = await terms.find({ taxonomy, count: { $gt: 0 } }, { projection }).toArray();
  const kept = new Set<number>();
  while (level.length) {
    level.forEach((doc) => kept.add(doc._id));
    const parents = [...new Set(level.map((doc) => doc.parent))].filter((id) => id > 0 && !kept.has(id));
    level = parents.length ? await terms.find({ taxonomy, _id: { $in: parents } }, { projection }).toArray() : [];
  }
  return [...kept];
}
