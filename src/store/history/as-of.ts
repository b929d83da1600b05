import { type Collection, type Db, type Document, type Sort } from 'mongodb';
import { Slices } from '../../lib/time-slices.js';
import { changeLog, type StoredEvent } from '../log/change-log.js';
import { findByIds } from '../queries/filters.js';
import { matcher, sortDocuments, type KeptIndex } from '../projections/kept-index.js';
import { type HistoryType, type Versioned } from './kernel.js';

/**
 * As-of reads: an item of a history type as it stood at a position of the log's one clock. The
 * state is the type's own pure fold over the item's events up to that position, so it is what
 * the read model held then, less whatever was erased since (erasure blanks the log itself, and
 * a fold of the log cannot bring back what it no longer holds).
 */

/** Where a read model's document stands on the clock: the positions of its first and last events. */
export interface Positioned {
  /** The position of the item's `created` event; absent on documents projected before positions. */
  firstPosition?: number;
  /** The position of the last event applied; absent on documents projected before positions. */
  position?: number;
}

/** Why a requested point cannot be read: before the log began, or after where it has got to. */
export class PointOutOfRange extends Error {
  constructor(readonly reason: 'before' | 'after' | 'empty') {
    super(reason === 'before' ? 'the point is before the change log begins' : reason === 'after' ? 'the point is after the change log' : 'the change log is empty');
  }
}

/** The highest position any row holds now (0: an empty log): a binary search by key (`firstFreePosition`). */
export async function lastPosition(db: Db): Promise<number> {
  return (await changeLog(db).firstFreePosition()) - 1;
}

/** Positions below a point read that are settled (filled, or voided) before it is answered. */
const SETTLED_WINDOW = 16;

/**
 * Makes the positions just below `position` final before an answer as of it is given: a missing
 * one there with a later one present may be an append in flight, which would change the answer
 * once it landed; `readPositions` waits for it, then voids it. Appends in flight take positions
 * near the end of the log, which this window covers (docs/history.md, "Reading and restoring as of a point").
 */
async function settleThrough(db: Db, position: number): Promise<void> {
  const from = Math.max(0, position - SETTLED_WINDOW);
  await changeLog(db).readPositions(from, position - from);
}

/** Checks that `position` is on the log, from 1 to the last position stored, and settles what is just below it. */
export async function checkPosition(db: Db, position: number): Promise<number> {
  if (position < 1) throw new PointOutOfRange('before');
  // A row at the position proves it is on the log, in one read; otherwise the log's end is found.
  if (!(await changeLog(db).timeAt(position))) {
    const last = await lastPosition(db);
    if (last === 0) throw new PointOutOfRange('empty');
    if (position > last) throw new PointOutOfRange('after');
  }
  await settleThrough(db, position);
  return position;
}

/**
 * The position the log had reached at `time`: the last position whose row was stored at or
 * before it. Positions are handed out in commit order and rows stamped with the committing
 * process's clock, so times rise with positions (to within the processes' clock skew): the
 * position is found by a binary search, each step one row read by key, about 2 log2(n) reads in
 * all whatever the log's size. A time before the first row, or after `now`, is out of range.
 */
export async function positionAt(db: Db, time: Date, now: Date): Promise<number> {
  if (time.getTime() > now.getTime()) throw new PointOutOfRange('after');
  const log = changeLog(db);
  const last = await lastPosition(db);
  if (last === 0) throw new PointOutOfRange('empty');
  const first = await log.timeAt(1);
  if (!first || first.getTime() > time.getTime()) throw new PointOutOfRange('before');
  // Invariant: the row at `low` was stored at or before `time`; none above `high` is known to be.
  let low = 1;
  let high = last;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    // A missing row (an append in flight) counts as later: it can only be stored at `now` or after.
    const at = await log.timeAt(middle);
    if (at && at.getTime() <= time.getTime()) low = middle;
    else high = middle - 1;
  }
  await settleThrough(db, low);
  return low;
}

/**
 * Folds a stream's events up to `position` with the type's pure fold: the item they leave (null:
 * none, or gone). A stream's positions rise with its seqs, so its events are read from seq 1, a
 * block at a time and one event decoded at a time (`foldSeqs`), until one is past the position or
 * the stream ends: the cost is the item's events up to that point, whatever the size of the log,
 * and what is held is one event and the state, however long the item's history.
 */
export async function foldThrough<S extends Versioned>(db: Db, type: HistoryType<S>, id: number, position: number, slices = new Slices()): Promise<S | null> {
  let state: S | null = null;
  for await (const event of changeLog(db).foldSeqs(id, 1, Number.MAX_SAFE_INTEGER, slices)) {
    if ((event.position ?? Infinity) > position) break;
    state = type.fold(state, event).state;
  }
  return state;
}

/**
 * The item `id` as it stood at `position` (null: it did not exist then, or not as this type).
 * `current` is its read model now, if it has one: unchanged since the position, it is the answer
 * as it is, with no event read; created after it, there is none.
 */
export async function stateAt<S extends Versioned & Positioned>(db: Db, type: HistoryType<S>, id: number, position: number, current?: S | null): Promise<S | null> {
  if (current?.firstPosition !== undefined && current.firstPosition > position) return null;
  if (current?.position !== undefined && current.position <= position) return current;
  return foldThrough(db, type, id, position);
}

/** Whether a read model's document can stand for the item at `position` without a fold, or is known not to exist then. */
export function unchangedSince(doc: Positioned, position: number): boolean {
  return doc.position !== undefined && doc.position <= position;
}

export function createdAfter(doc: Positioned, position: number): boolean {
  return doc.firstPosition !== undefined && doc.firstPosition > position;
}

/**
 * A document as `event` leaves it on the clock: at the event's position (and, for the item's first
 * event, starting there). An event not yet appended has no position: the document then holds
 * none, rather than an older event's, so that it is never taken for unchanged since then.
 */
export function atPosition<T extends Positioned>(doc: T, event: Pick<StoredEvent, 'position'>, first = false): T {
  const { position: _previous, ...rest } = doc;
  if (event.position === undefined) return (first ? (({ firstPosition: _first, ...others }) => others)(rest) : rest) as T;
  return { ...rest, position: event.position, ...(first ? { firstPosition: event.position } : {}) } as T;
}

/** How many items a list folds at once, each reading its own events. */
const FOLD_CONCURRENCY = 8;

export interface ListAtSpec<S extends Versioned & Positioned & { _id: number }> {
  readonly type: HistoryType<S>;
  /** The type's list index: every item it holds now, with the fields lists filter and sort on, and its positions. */
  readonly index: KeptIndex;
  /** Where the items' read models live (for the page's unchanged items, read by key). */
  readonly collection: Collection<S>;
  readonly position: number;
  /** The list's filter and order, as a live list asks them of the read model. */
  readonly filter: object;
  readonly sort: Sort;
  /** Whether the caller may read this item as of a point (judged on the item as it is now, as its revisions are). */
  readonly readable: (now: Readonly<Document>) => boolean;
  readonly skip: number;
  readonly limit: number;
}

/**
 * One page of a list as it stood at `position`, and its total. The candidates are the items the
 * type's list index holds now that the caller may read: an item force-deleted since is gone
 * with its erased content, and one created after the position is left out by its first position,
 * both without a read. An item whose last event is at or before the position is what it was
 * then, so the index's entry is matched as it is (a search, on fields the index does not keep,
 * reads its document); only the items changed since are folded to the position, each reading its
 * own events up to it, one at a time. So the cost is the type's items in memory, plus the items
 * changed since the position (their events up to it), plus the page read by key: a recent point
 * is cheap, and an old one on a busy site costs every item changed since. Of a folded item that
 * matches, only its id and sort keys are kept; the page's are folded again: a list over long
 * posts held every changed post whole.
 */
export async function listAt<S extends Versioned & Positioned & { _id: number }>(db: Db, spec: ListAtSpec<S>): Promise<{ docs: S[]; total: number }> {
  const { position } = spec;
  const entries = await spec.index.entries(db);
  const matches = matcher(spec.filter);
  const unchanged: number[] = [];
  const changed: number[] = [];
  for (const entry of entries.values()) {
    if (createdAfter(entry, position) || !spec.readable(entry)) continue;
    (unchangedSince(entry, position) ? unchanged : changed).push(entry._id as number);
  }
  const served = spec.index.serves(spec.filter, spec.sort);
  const found: Document[] = served ? unchanged.map((id) => entries.get(id)!).filter(matches) : (await findByIds(spec.collection, unchanged as S['_id'][])).filter(matches);
  // A sort on a field's part (`title.rendered`) keeps the whole field.
  const sortKeys = [...new Set(['_id', ...Object.keys(spec.sort).map((key) => key.split('.')[0])])];
  const folded = new Set<number>();
  const slices = new Slices();
  for (let start = 0; start < changed.length; start += FOLD_CONCURRENCY) {
    const states = await Promise.all(changed.slice(start, start + FOLD_CONCURRENCY).map((id) => foldThrough(db, spec.type, id, position, slices)));
    for (const state of states) {
      if (!state || !matches(state)) continue;
      folded.add(state._id);
      found.push(Object.fromEntries(sortKeys.map((key) => [key, (state as Document)[key]])));
    }
  }
  sortDocuments(found, spec.sort);
  const pageIds = found.slice(spec.skip, spec.limit > 0 ? spec.skip + spec.limit : undefined).map((doc) => doc._id as number);
  const read = new Map((await findByIds(spec.collection, pageIds.filter((id) => !folded.has(id)) as S['_id'][])).map((doc) => [doc._id as number, doc as S]));
  const docs: S[] = [];
  for (const id of pageIds) {
    const doc = folded.has(id) ? await foldThrough(db, spec.type, id, position, slices) : read.get(id);
    if (doc) docs.push(doc);
  }
  return { docs, total: found.length };
}

/** Positions a scan of the log since a point reads at once, each by key. */
const SINCE_BATCH = 500;

/**
 * The streams of `streamType` whose item was deleted after `position` (their `deleted` event is
 * later): what a restore as of that point re-creates. The log since the position is read by
 * position, each by key, so the cost is the changes since then, whatever came before.
 */
export async function streamsDeletedSince(db: Db, position: number, streamType: string): Promise<number[]> {
  const log = changeLog(db);
  const last = await lastPosition(db);
  const deleted: number[] = [];
  for (let after = position; after < last; ) {
    // Which item, what kind, of which type: the events' data (their content) is left unread.
    const { events, through } = await log.readPositions(after, Math.min(SINCE_BATCH, last - after), { outline: true });
    if (through === after) break;
    for (const event of events) if (event.type === 'deleted' && event.streamType === streamType) deleted.push(event.stream);
    after = through;
  }
  return deleted;
}
