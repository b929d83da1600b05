import { type Db } from 'mongodb';
import { type Deps } from '../../deps.js';
import { POST_TYPES } from '../../registry/post-types.js';
import { postsCollection } from './post.model.js';
import { FULL_SCAN_COMMENT } from '../../store/queries/query-shapes.js';

// What other resources read of `posts`, which only this slice names: users whose posts are
// public, whether an id names an item, an item's terms. Each keeps the one query it always was.

const restPostTypes = () => POST_TYPES.filter((type) => type.show_in_rest).map((type) => type.slug);

/** Of `ids` (or everyone), the users with at least one published post of a REST-visible type. */
export async function publishedAuthorIds(db: Db, ids?: number[]): Promise<number[]> {
  const filter: Record<string, unknown> = { type: { $in: restPostTypes() }, status: 'publish' };
  if (ids) filter.author = { $in: ids };
  return (await postsCollection(db).distinct('author', filter)) as number[];
}

/** Whether an item of `type` (of any type, without one) has this id. */
export async function postExists(db: Db, id: number, type?: string): Promise<boolean> {
  return (await postsCollection(db).findOne({ _id: id, ...(type !== undefined ? { type } : {}) }, { projection: { _id: 1 } })) !== null;
}

/** What term counts read of an item: its type, status and terms. */
export interface TermedPost {
  _id: number;
  type: string;
  status: string;
  terms?: Record<string, number[]>;
}

const TERMED = { projection: { type: 1, status: 1, terms: 1 } } as const;

/** An item's type, status and terms, by key (null: no such item). */
export function findTermedPost(db: Db, id: number): Promise<TermedPost | null> {
  return postsCollection(db).findOne<TermedPost>({ _id: id }, TERMED);
}

/**
 * Every item of `type` with its status and terms: what term counts start from on a database
 * whose counts were counted, not kept (read once per database).
 */
export function scanTermedPosts(db: Db, type: string): AsyncIterable<TermedPost> {
  return postsCollection(db).find<TermedPost>({ type }, { ...TERMED, comment: `${FULL_SCAN_COMMENT} once per database, when term counts begin to be kept` });
}

/** What a term's `post` filter and permission read of an item: who may see it, and its terms of one taxonomy. */
export async function findTaggedPost(deps: Pick<Deps, 'store'>, id: number, taxonomy: string) {
  return postsCollection(deps.store.db).findOne<{ _id: number; type: string; status: string; author: number; trashedFrom?: string; terms?: Record<string, number[]> }>(
    { _id: id },
    { projection: { type: 1, status: 1, author: 1, trashedFrom: 1, [`terms.${taxonomy}`]: 1 } },
  );
}
