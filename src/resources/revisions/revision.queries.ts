import { type Filter, type FindCursor } from 'mongodb';
import { findByIds } from '../../store/queries/filters.js';
import { type Deps } from '../../deps.js';
import { escapeRegex } from '../../lib/regex.js';
import { defineRestError, type RestErrorClass } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { NoSearchTerm, OrderbyIncludeMissing } from '../post-errors.js';
import { REVISION_BLOCK, REVISION_TEXT_FIELDS, revisionBlock, revisionsCollection, type RevisionDoc } from './revision.model.js';
import { type RevisionedItem, type RevisionedType } from './revisioned-type.js';

export const InvalidParent = defineRestError('rest_post_invalid_parent', 'Invalid post parent ID.', 404);
export const InvalidRevision = defineRestError('rest_post_invalid_id', 'Invalid revision ID.', 404);
export const InvalidOffset = defineRestError(
  'rest_revision_invalid_offset_number',
  'The offset number requested is larger than or equal to the number of available revisions.',
  400,
);
export const InvalidPage = defineRestError('rest_revision_invalid_page_number', 'The page number requested is larger than the number of pages available.', 400);

/**
 * The item the URL parameter `param` names, read once per request whichever error a caller
 * answers its absence with (`NotFound`): the permission check, the handler, and the checks of
 * every endpoint of the route that `Allow` runs after it (an autosave's POST and the list's GET
 * both name the item `id`) share one read.
 */
export async function routeItemOf<Item extends RevisionedItem>(req: RestRequest, deps: Deps, type: RevisionedType<Item>, param: string, NotFound: RestErrorClass): Promise<Item> {
  const id = req.params[param];
  const item = await req.memo(`revisioned-item:${type.route.base}:${String(id)}`, () => type.findItem(deps, id));
  if (!item) throw new NotFound();
  return item;
}

/** The parent the URL parameter `param` names: an item of the route's type, or 404 `rest_post_invalid_parent` (`get_parent`). */
export function parentOf<Item extends RevisionedItem>(req: RestRequest, deps: Deps, type: RevisionedType<Item>, param = 'parent'): Promise<Item> {
  return routeItemOf(req, deps, type, param, InvalidParent);
}

/** A revision or autosave by id, whatever its parent, or 404 `rest_post_invalid_id` (`get_revision`). */
export async function findRevision(deps: Deps, id: unknown): Promise<RevisionDoc> {
  const doc = Number(id) > 0 ? await revisionsCollection(deps.store.db).findOne({ _id: Number(id) }) : null;
  if (!doc) throw new InvalidRevision();
  return doc;
}

/** The revision the URL's `id` names, read once per request: the delete's permission check and its handler both ask. */
export function routeRevision(req: RestRequest, deps: Deps): Promise<RevisionDoc> {
  return req.memo('revision', () => findRevision(deps, req.params.id));
}

/** The revision saved just before `revision` (date, then id), autosaves included: what it is compared with. */
export function predecessorOf(deps: Deps, revision: RevisionDoc): Promise<RevisionDoc | null> {
  return revisionsCollection(deps.store.db).findOne(
    { parent: revision.parent, $or: [{ date: { $lt: revision.date } }, { date: revision.date, _id: { $lt: revision._id } }] },
    { sort: { date: -1, _id: -1 } },
  );
}

/** The newest autosave of an item, whoever saved it (`wp_get_post_autosave` without a user). */
export function newestAutosave(deps: Deps, parent: number): Promise<RevisionDoc | null> {
  return revisionsCollection(deps.store.db).findOne({ parent, kind: 'autosave' }, { sort: { date: -1, _id: -1 } });
}

/** Every autosave of an item, newest first, read from a cursor. */
export function autosavesOf(deps: Deps, parent: number): FindCursor<RevisionDoc> {
  return revisionsCollection(deps.store.db).find({ parent, kind: 'autosave' }).sort({ date: -1, _id: -1 });
}

// WordPress's `get_search_stopwords`: terms a search ignores unless nothing else is left.
const STOPWORDS = new Set('about an are as at be by com for from how in is it of on or that the this to was what when where who will with www'.split(' '));
const SEARCH_COLUMNS = ['title', 'excerpt', 'content'] as const;

/**
 * `WP_Query`'s search: quoted phrases and words, short words and stopwords dropped (the whole
 * string when nothing is left, or more than nine terms), each term found in the title, excerpt
 * or content, case-insensitively; a term starting with `-` must be absent from all three.
 */
export function searchFilter(search: string): Filter<RevisionDoc> {
  const found = search.match(/".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/g) ?? [];
  let terms = found
    .map((term) => (/^".+"$/.test(term) ? term.replace(/^["']+|["']+$/g, '') : term.replace(/^["' ]+|["' ]+$/g, '')))
    .filter((term) => term !== '' && !(term.length === 1 && /^[a-z-]$/i.test(term)) && !STOPWORDS.has(term.toLowerCase()));
  if (terms.length === 0 || terms.length > 9) terms = [search];
  return {
    $and: terms.map((term) => {
      const excluded = term.startsWith('-') && term.length > 1;
      const regex = { $regex: escapeRegex(excluded ? term.slice(1) : term), $options: 'i' };
      return excluded
        ? { $nor: SEARCH_COLUMNS.map((column) => ({ [column]: regex })) }
        : { $or: SEARCH_COLUMNS.map((column) => ({ [column]: regex })) };
    }),
  } as Filter<RevisionDoc>;
}

export interface RevisionListParams {
  page: number;
  perPage?: number;
  offset?: number;
  order: 'asc' | 'desc';
  orderby: string;
  include: number[];
  exclude: number[];
  search?: string;
}

export interface RevisionPage {
  /** The page's rows, read one at a time as they are taken (`rowsInOrder`). */
  docs: AsyncIterable<RevisionDoc>;
  total: number;
  totalPages: number;
}

/**
 * One page of an item's revisions and autosaves, as `WP_REST_Revisions_Controller::get_items`
 * reads them. Without `per_page` every revision comes in one page (and `offset` is ignored, as
 * `WP_Query` ignores it without a limit); an `offset` at or past the total, or a page past the
 * last, is an error. Unfiltered, the count is the item's own (kept by its projection, shown as
 * `version-history`) and the default order (date, then id) walks the `(parent, date, _id)`
 * index from a cursor. Filtered or otherwise ordered, one pass reads the sort keys of the
 * matching rows, which gives both the count and the page's ids. Either way the page's order is
 * found from sort keys alone, and its rows are read one at a time as the answer takes them: a page
 * of every revision of a long post held them all.
 */
export async function revisionPage(deps: Deps, parent: RevisionedItem, params: RevisionListParams, projection: Record<string, 0>): Promise<RevisionPage> {
  const filter = listFilter(parent._id, params);
  if (params.orderby === 'relevance' && !params.search) throw new NoSearchTerm();
  if (params.orderby === 'include' && params.include.length === 0) throw new OrderbyIncludeMissing();

  const unfiltered = !params.include.length && !params.exclude.length && !params.search;
  const byDate = !['id', 'title', 'slug', 'include', 'relevance'].includes(params.orderby);
  const dir = params.order === 'asc' ? 1 : -1;
  const window = (total: number) => {
    const totalPages = params.perPage ? Math.ceil(total / params.perPage) : total > 0 ? 1 : 0;
    const offset = params.offset ?? 0;
    if (total > 0) {
      if (offset >= total) throw new InvalidOffset();
      if (!offset && params.page > totalPages) throw new InvalidPage();
    }
    // WP_Query takes the absolute value of an offset.
    const skip = !params.perPage ? 0 : params.offset !== undefined ? Math.abs(params.offset) : (params.page - 1) * params.perPage;
    return { totalPages, skip, limit: params.perPage ?? 0 };
  };

  if (unfiltered) {
    const total = parent.revisionCount;
    const { totalPages, skip, limit } = window(total);
    if (!byDate) return { docs: rowsInOrder(deps, await orderedIds(deps, filter, params, dir, { skip, limit }), projection), total, totalPages };
    // `date` (WordPress's "date ID") and `include_slugs`, which without `slug` falls back to the date.
    // Rows without their texts are small: read whole as their order is found.
    if (textless(projection)) return { docs: toAsync((await pageByBlocks(deps, parent, dir, skip, limit, projection)).page), total, totalPages };
    const keys = await pageByBlocks(deps, parent, dir, skip, limit, { _id: 1, date: 1, block: 1, textSize: 1 });
    return { docs: rowsInOrder(deps, keys.page.map((row) => row._id), projection, smallBlocks(keys.read)), total, totalPages };
  }
  const ordered = await orderedIds(deps, filter, params, dir);
  const total = ordered.length;
  const { totalPages, skip, limit } = window(total);
  return { docs: rowsInOrder(deps, limit ? ordered.slice(skip, skip + limit) : ordered, projection), total, totalPages };
}

/** Blocks read at once while walking an item's log for a page of its revisions. */
const BLOCKS_AT_ONCE = 2;

/**
 * One page of an item's revisions and autosaves by date, then id (with `projection`: a row's sort
 * keys alone, or the row without its texts): read block by block from the newest end of its log
 * (or the oldest, ascending), each block by key, until the page is filled, and one block further,
 * since rows of neighbouring blocks may share or swap dates (clocks of different processes); then
 * sorted. A page costs the blocks it spans, not the item's history.
 */
async function pageByBlocks(deps: Deps, parent: RevisionedItem, dir: 1 | -1, skip: number, limit: number, projection: Record<string, 0 | 1>): Promise<{ page: RevisionDoc[]; read: RevisionDoc[] }> {
  const revisions = revisionsCollection(deps.store.db);
  const lastBlock = Math.floor(parent.version / REVISION_BLOCK);
  const wanted = limit ? skip + limit : Number.POSITIVE_INFINITY;
  const rows: RevisionDoc[] = [];
  let next = dir === -1 ? lastBlock : 0;
  let filledAt: number | undefined;
  while (next >= 0 && next <= lastBlock && (filledAt === undefined || Math.abs(next - filledAt) <= 1)) {
    const blocks: number[] = [];
    for (; blocks.length < (filledAt === undefined ? BLOCKS_AT_ONCE : 1) && next >= 0 && next <= lastBlock; next += dir) blocks.push(next);
    const found = await Promise.all(blocks.map((block) => revisions.find({ block: revisionBlock(parent._id, block * REVISION_BLOCK) }, { projection }).toArray()));
    rows.push(...found.flat());
    if (filledAt === undefined && rows.length >= wanted) filledAt = next - dir;
  }
  rows.sort((a, b) => (a.date < b.date ? -dir : a.date > b.date ? dir : (a._id - b._id) * dir));
  return { page: rows.slice(skip, limit ? skip + limit : undefined), read: rows };
}

/** The most text a block of rows may hold for a page to read it whole, in one query, at once. */
const SMALL_BLOCK_CHARS = 512 * 1024;

/**
 * Which rows are in a block small enough to read whole, from a read of every row of each block:
 * a block whose rows all say how much text they hold (`textSize`), together at most
 * `SMALL_BLOCK_CHARS`.
 */
function smallBlocks(rows: readonly RevisionDoc[]): Map<number, string> {
  const sizes = new Map<string, number>();
  for (const row of rows) {
    if (row.block === undefined) continue;
    const size = row.textSize === undefined ? Number.POSITIVE_INFINITY : row.textSize;
    sizes.set(row.block, (sizes.get(row.block) ?? 0) + size);
  }
  const blockOf = new Map<number, string>();
  for (const row of rows) if (row.block !== undefined && sizes.get(row.block)! <= SMALL_BLOCK_CHARS) blockOf.set(row._id, row.block);
  return blockOf;
}

/** The ids of the matching rows (or of the `page` of them) in the asked order, read with their sort keys only. */
async function orderedIds(
  deps: Deps,
  filter: Filter<RevisionDoc>,
  params: RevisionListParams,
  dir: 1 | -1,
  page?: { skip: number; limit: number },
): Promise<number[]> {
  const revisions = revisionsCollection(deps.store.db);
  if (params.orderby === 'include') {
    // `post__in` order: the order of the list, which a query string keeps short.
    const present = new Set((await revisions.find(filter, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id));
    return params.include.filter((id, index) => present.has(id) && params.include.indexOf(id) === index);
  }
  const sortField = ({ id: '_id', title: 'title', slug: 'slug' } as Record<string, string>)[params.orderby] ?? 'date';
  const sort: Record<string, 1 | -1> = sortField === '_id' ? { _id: dir } : { [sortField]: dir, _id: dir };
  const keys: Record<string, 1> = { _id: 1, [sortField]: 1 };
  if (params.orderby === 'relevance') keys.title = 1;
  const pipeline: Record<string, unknown>[] = [{ $match: filter }, { $project: keys }, { $sort: sort }];
  if (page?.skip) pipeline.push({ $skip: page.skip });
  if (page?.limit) pipeline.push({ $limit: page.limit });
  const rows = await revisions.aggregate<{ _id: number; title?: string }>(pipeline).toArray();
  if (params.orderby !== 'relevance') return rows.map((row) => row._id);
  // WP_Query puts the rows whose title holds the search first, each group in date order.
  const inTitle = new RegExp(escapeRegex(params.search!), 'i');
  const first = rows.filter((row) => inTitle.test(row.title ?? ''));
  const rest = rows.filter((row) => !inTitle.test(row.title ?? ''));
  return [...first, ...rest].map((row) => row._id);
}

function listFilter(parent: number, params: RevisionListParams): Filter<RevisionDoc> {
  const and: Filter<RevisionDoc>[] = [{ parent }];
  if (params.include.length) and.push({ _id: { $in: params.include } });
  if (params.exclude.length) and.push({ _id: { $nin: params.exclude } });
  if (params.search) and.push(searchFilter(params.search));
  return and.length === 1 ? and[0] : { $and: and };
}

/**
 * The rows with these ids, in this order (missing ones left out), each read when the previous one
 * was taken: a revision may hold megabytes of text, so a page holds one at a time. Rows without
 * their texts are small, and read all at once, as before; so is a run of rows from one block
 * known to be small (`smallBlock`: a row's block, when that block is), in one query where each
 * row cost one. A row not in its block any more (an autosave written again since) is read by key.
 */
async function* rowsInOrder(deps: Deps, ids: readonly number[], projection: Record<string, 0>, smallBlock = new Map<number, string>()): AsyncGenerator<RevisionDoc> {
  const revisions = revisionsCollection(deps.store.db);
  if (textless(projection)) return yield* await findByIds(revisions, ids, { projection });
  for (let start = 0; start < ids.length; ) {
    const block = smallBlock.get(ids[start]);
    let end = start + 1;
    while (block !== undefined && end < ids.length && smallBlock.get(ids[end]) === block) end++;
    const inBlock = block === undefined ? new Map<number, RevisionDoc>() : new Map((await revisions.find({ block }, { projection }).toArray()).map((row) => [row._id, row]));
    for (const id of ids.slice(start, end)) {
      const row = inBlock.get(id) ?? (await revisions.findOne({ _id: id }, { projection }));
      if (row) yield row;
    }
    start = end;
  }
}

/** Whether rows read with `projection` leave out every text field (a list asked for ids and dates). */
const textless = (projection: Record<string, 0>) => REVISION_TEXT_FIELDS.every((field) => projection[field] === 0);

async function* toAsync<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}
