import { type Collection, type Db } from 'mongodb';
import { type IndexSpec } from '../../store/database/mongo.js';

/**
 * A term as stored in `terms`. `meta` is kept as a JSON string: its keys belong to clients.
 * `count` (published objects carrying the term) is kept by term counts (term.count-log.ts).
 */
export interface TermDoc {
  _id: number;
  taxonomy: string;
  name: string;
  slug: string;
  description: string;
  parent: number;
  count: number;
  /** The step of the term's kept count that `count` shows (term.count-log.ts); absent before its first. */
  countSeq?: number;
  meta: string;
}

export const termsCollection = (db: Db): Collection<TermDoc> => db.collection<TermDoc>('terms');

/** How many of `ids` are terms of `taxonomy` (an item's terms, checked before it is saved). */
export function countTermsOf(db: Db, taxonomy: string, ids: readonly number[]): Promise<number> {
  return termsCollection(db).countDocuments({ _id: { $in: [...ids] }, taxonomy });
}

// WordPress's `default_category` option on a fresh install: term 1, "Uncategorized".
export const DEFAULT_CATEGORY_ID = 1;

export function isDefaultTerm(doc: TermDoc): boolean {
  return doc.taxonomy === 'category' && doc._id === DEFAULT_CATEGORY_ID;
}

export const termIndexes: IndexSpec[] = [
  { collection: 'terms', key: { taxonomy: 1, slug: 1 }, name: 'taxonomy_slug_unique', unique: true },
  { collection: 'terms', key: { taxonomy: 1, name: 1, _id: 1 }, name: 'taxonomy_name' },
  { collection: 'terms', key: { taxonomy: 1, _id: 1 }, name: 'taxonomy_id' },
  { collection: 'terms', key: { taxonomy: 1, count: 1, _id: 1 }, name: 'taxonomy_count' },
  { collection: 'terms', key: { taxonomy: 1, parent: 1, name: 1, _id: 1 }, name: 'taxonomy_parent_name' },
];
