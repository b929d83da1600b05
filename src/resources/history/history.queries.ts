import { type Deps } from '../../deps.js';
import { type PageWindow } from '../../rest/pagination.js';
import { changeLog } from '../../store/log/change-log.js';
import { findByIds } from '../../store/queries/filters.js';
import { timelineEntry, type TimelineEntry, type WireNames } from './history.serializer.js';
import { REVISION_BLOCK, revisionBlock, revisionsCollection } from '../revisions/index.js';
import { type ItemRoute } from '../../rest/item-route.js';
import { type RestRequest } from '../../rest/rest-request.js';

/**
 * An item type whose change log `/history` shows, as the type brings it: where its items live,
 * how one is found, who may read it, its route and how its stored fields are named.
 */
export interface HistorySubject<Item extends HistoryItem = HistoryItem> {
  /** How its items are named in URLs: `/history` sits under it, and its entries link to it. */
  readonly route: ItemRoute<Item>;
  /** The item the URL's id names, or its type's 404 (unknown ids and items of another type alike). */
  find(deps: Deps, id: unknown): Promise<Item>;
  /** History is for those who may edit the item. */
  mayRead(req: RestRequest, item: Item): boolean;
  readonly wireNames?: WireNames;
}

/** What `/history` needs of an item: its stream, and how far its read model has reached. */
export interface HistoryItem {
  _id: number;
  version?: number;
}

/**
 * One page of an item's entries, oldest first. A stream's seqs run 1..n without gaps (each append
 * is at the item's version plus one), so the item's version is their count (unless the read model
 * lags the log), and a page is the seqs after `skip`. Each event is read, decoded and made an
 * entry before the next (`foldSeqs`): an entry names the fields a change set, never their content,
 * and a page of 100 changes of a long post held every one of them whole.
 */
export async function historyPage(
  deps: Pick<Deps, 'store'>,
  item: { _id: number; version?: number },
  window: PageWindow,
  wireNames?: WireNames,
): Promise<{ entries: TimelineEntry[]; total: number }> {
  const log = changeLog(deps.store.db);
  // The read model may lag the log (a crash between an append and its projection): an event past
  // the item's version means the log is counted instead.
  const behind = item.version === undefined || (await log.holds(item._id, item.version + 1));
  const total = behind ? await log.countStream(item._id) : item.version!;
  const last = Math.min(total, window.skip + window.perPage);
  const entries: TimelineEntry[] = [];
  for await (const event of log.foldSeqs(item._id, window.skip + 1, last)) entries.push(timelineEntry(event, wireNames));
  return { entries, total };
}

/** Every entry of an item's log, oldest first, each event read and let go in turn (constant memory). */
export async function* allEntries(deps: Pick<Deps, 'store'>, item: { _id: number }, wireNames?: WireNames): AsyncGenerator<TimelineEntry> {
  for await (const event of changeLog(deps.store.db).foldSeqs(item._id, 1, Number.MAX_SAFE_INTEGER)) yield timelineEntry(event, wireNames);
}

/**
 * Which of the revisions named by `entries` (a run of one item's log) are still revisions or
 * autosaves of `parent` (deleted ones get no link). A revision row keeps the block of the event
 * that last wrote it, so the rows of the run's blocks are read by block; the rest (an autosave
 * written again later, a row stored before rows kept their block) each by id.
 */
export async function liveRevisions(deps: Pick<Deps, 'store'>, parent: number, entries: readonly TimelineEntry[]): Promise<Set<number>> {
  const ids = entries.map((entry) => entry.revision).filter((id): id is number => id !== null);
  if (ids.length === 0) return new Set();
  const revisions = revisionsCollection(deps.store.db);
  const first = Math.floor(entries[0].seq / REVISION_BLOCK);
  const last = Math.floor(entries.at(-1)!.seq / REVISION_BLOCK);
  const blocks = Array.from({ length: last - first + 1 }, (_, offset) => revisionBlock(parent, (first + offset) * REVISION_BLOCK));
  const found = new Set<number>();
  for (const rows of await Promise.all(blocks.map((block) => revisions.find({ block }, { projection: { _id: 1 } }).toArray()))) {
    for (const row of rows) found.add(row._id);
  }
  const rest = ids.filter((id) => !found.has(id));
  for (const row of await findByIds(revisions, rest, { projection: { _id: 1, parent: 1 } })) if (row.parent === parent) found.add(row._id);
  return new Set(ids.filter((id) => found.has(id)));
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
