import { type Collection, type Db } from 'mongodb';
import { duplicateKeyRefusal, isDuplicateKey, type IndexSpec } from '../../store/database/mongo.js';
import { termsCollection } from './term.model.js';

/**
 * Term counts kept, never counted: the embedded database counts by decoding every matching row,
 * so a count of published posts grows with the site. The only atomic step it offers is an insert
 * under a unique index (its `$inc` is not atomic), so a count moves by rows inserted, each once:
 *
 * - a *toggle* says that an item begins or stops counting for a term: the `k`-th toggle of item
 *   `post` for `term` (odd: it counts, even: it does not), under the unique `member` key
 *   `term:post:k`. Two writers wanting the same toggle insert one row between them;
 * - a *step* of the term's count, `term:n` (unique by `_id`), is the toggle itself when it changes
 *   the count: it carries the count after it. A term's steps form a chain, appended like the
 *   change log, at the last step + 1; a writer that loses the race reads the new last step and
 *   tries the next.
 *
 * So a toggle and its step are one row, inserted once, and a count is exactly its toggles' sum.
 * The term's `count` (what lists, `orderby=count` and `hide_empty` read) is then set to its last
 * step's (`countSeq` says which), by whoever appended one, until no later step is found: values
 * are a function of the step, so a late writer's older value is overwritten by the writer of the
 * later step, which checks after writing. Toggles recorded when counts began to be kept (from the
 * items as they were) have no step: their counts were set from them.
 */
export interface TermCountRow {
  /** `term:n` for a step; `term:post:k` (its `member`) for a toggle recorded without one. */
  _id: string;
  term: number;
  post: number;
  k: number;
  member: string;
  /** The step's place in the term's chain and the count after it (toggles without a step have none). */
  n?: number;
  count?: number;
}

const termCounts = (db: Db): Collection<TermCountRow> => db.collection<TermCountRow>('term_counts');

export const termCountIndexes: IndexSpec[] = [
  { collection: 'term_counts', key: { member: 1 }, name: 'member_unique', unique: true },
  { collection: 'term_counts', key: { post: 1 }, name: 'post' },
];

export const memberKey = (term: number, post: number, k: number) => `${term}:${post}:${k}`;
const stepKey = (term: number, n: number) => `${term}:${n}`;

/** The number of toggles of each term an item has, from its rows (read by the item, an equality the index serves). */
export async function togglesOf(db: Db, post: number): Promise<Map<number, number>> {
  const toggles = new Map<number, number>();
  for (const row of await termCounts(db).find({ post }, { projection: { term: 1, k: 1 } }).toArray()) {
    toggles.set(row.term, Math.max(toggles.get(row.term) ?? 0, row.k));
  }
  return toggles;
}

/** Whether the toggle `k` of the item for the term is on record. */
async function toggled(db: Db, term: number, post: number, k: number): Promise<boolean> {
  return (await termCounts(db).findOne({ member: memberKey(term, post, k) }, { projection: { _id: 1 } })) !== null;
}

/** The term's last step, from the term's `countSeq` forward (the term's `count` before any step). */
async function lastStep(db: Db, term: number): Promise<{ n: number; count: number }> {
  const doc = await termsCollection(db).findOne<{ count?: number; countSeq?: number }>({ _id: term }, { projection: { count: 1, countSeq: 1 } });
  let last = { n: doc?.countSeq ?? 0, count: doc?.count ?? 0 };
  for (;;) {
    const next = await termCounts(db).findOne({ _id: stepKey(term, last.n + 1) }, { projection: { count: 1 } });
    if (!next) return last;
    last = { n: last.n + 1, count: next.count ?? 0 };
  }
}

/**
 * Inserts the toggle `k` of `post` for `term`, as the next step of the term's count. False when
 * that toggle is already on record (another writer made it): the caller reads the item's toggles
 * again. Then sets the term's `count` to its last step's.
 */
export async function appendToggle(db: Db, term: number, post: number, k: number): Promise<boolean> {
  const delta = k % 2 === 1 ? 1 : -1;
  let appended: { n: number; count: number };
  for (;;) {
    const last = await lastStep(db, term);
    appended = { n: last.n + 1, count: last.count + delta };
    try {
      await termCounts(db).insertOne({ _id: stepKey(term, appended.n), term, post, k, member: memberKey(term, post, k), ...appended });
      break;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // Either the toggle was made by another writer, or another toggle took this step: then the next one.
      if (await toggled(db, term, post, k)) return false;
    }
  }
  await publishCount(db, term, appended);
  return true;
}

/** Sets the term's `count` to its last step's (from `known`, a step on record), again while a later step turns up after the write. */
export async function publishCount(db: Db, term: number, known?: { n: number; count: number }): Promise<void> {
  let last = known ?? (await lastStep(db, term));
  for (;;) {
    await termsCollection(db).updateOne({ _id: term }, { $set: { count: last.count, countSeq: last.n } });
    const next = await termCounts(db).findOne({ _id: stepKey(term, last.n + 1) }, { projection: { count: 1 } });
    if (!next) return;
    last = await lastStep(db, term);
  }
}

/** Every toggle and step gone (a rebuild starting counts again; no service writes meanwhile). */
export async function forgetTermCountRows(db: Db): Promise<void> {
  await termCounts(db).deleteMany({}, { comment: 'full-scan: a rebuild, run while no service writes' });
}

/** Toggles recorded, without steps, when counts begin to be kept: the items already counting (duplicates are skipped). */
export async function recordToggles(db: Db, rows: readonly { term: number; post: number }[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 1000) {
    const batch = rows.slice(start, start + 1000).map(({ term, post }) => ({ _id: memberKey(term, post, 1), term, post, k: 1, member: memberKey(term, post, 1) }));
    try {
      await termCounts(db).insertMany(batch, { ordered: false });
    } catch (error) {
      if (!duplicateKeyRefusal(error)) throw error;
    }
  }
}
