import { type Deps } from '../../deps.js';
import { type PageWindow } from '../../rest/pagination.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { changeLog, type StoredEvent } from '../../store/change-log.js';
import { findPostOfType } from '../posts/index.js';
import { revisionsCollection, type PostDoc } from '../posts/post.model.js';

/** The item whose history is asked for; unknown ids and items of another type are both invalid. */
export function findHistoryItem(deps: Deps, postType: PostTypeDef, id: number): Promise<PostDoc> {
  return findPostOfType(deps, postType, Number.isSafeInteger(id) ? id : 0);
}

/**
 * One page of an item's events, oldest first. A stream's seqs run 1..n without gaps (each append
 * is at the item's version plus one), so a page is the indexed range after `skip`.
 */
export async function historyPage(deps: Pick<Deps, 'store'>, id: number, window: PageWindow): Promise<{ events: StoredEvent[]; total: number }> {
  const log = changeLog(deps.store.db);
  const [events, total] = await Promise.all([log.readStream(id, { afterSeq: window.skip, limit: window.perPage }), log.countStream(id)]);
  return { events, total };
}

/** Which of `ids` are still revisions or autosaves of `parent` (deleted ones get no link). */
export async function liveRevisions(deps: Pick<Deps, 'store'>, parent: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await revisionsCollection(deps.store.db).find({ _id: { $in: ids }, parent }, { projection: { _id: 1 } }).toArray();
  return new Set(rows.map((row) => row._id));
}

/** Groups an iterable into arrays of at most `size`, so a stream can look things up per batch. */
export async function* inBatches<T>(items: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}
