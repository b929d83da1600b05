import { type AnyBulkWriteOperation, type Db } from 'mongodb';
import { logAppends } from './change-log-appends.js';
import { positionReads } from './change-log-reads.js';
import { atPosition, type EventRow, type StoredEvent, toEvent } from './change-log-rows.js';
import { type ChangeLogOptions, logScans } from './change-log-scans.js';
import { streamReads } from './change-log-streams.js';
import { type IndexSpec, isDuplicateKey } from '../database/mongo.js';
import { FULL_SCAN_COMMENT } from '../queries/query-shapes.js';

// The change log's parts, by concern; callers import them all from here.
export { assertStorable, ConcurrencyError, DocumentTooLargeError, MAX_DOCUMENT_BYTES, NonFiniteNumberError } from './change-log-appends.js';
export { GAP_WAIT_MS } from './change-log-reads.js';
export { atPosition, EVENT_BLOCK, EVENT_READ_BATCH, eventBlock, eventsOfTypes, type NewEvent, POSITION_BLOCK, type StoredEvent, type TypedEvent, type TypedEventData, VOID_EVENT } from './change-log-rows.js';
export { type ChangeLogOptions, countEvents, keepLatest, type LastEvent, type ScanOptions } from './change-log-scans.js';
export { type ReadOptions } from './change-log-streams.js';

export const changeLogIndexes: IndexSpec[] = [
  { collection: 'events', key: { stream: 1, seq: 1 }, name: 'stream_seq_unique', unique: true },
  { collection: 'events', key: { at: 1, stream: 1, seq: 1 }, name: 'at_stream_seq' },
  { collection: 'events', key: { block: 1 }, name: 'block' },
  // Sparse: on MongoDB, events stored before positions (until the upgrade gives them one) would
  // otherwise all hold the one value null. FerretDB ignores the option; its PostgreSQL index
  // keeps missing values apart anyway.
  { collection: 'events', key: { position: 1 }, name: 'position_unique', unique: true, sparse: true },
  { collection: 'events', key: { positionBlock: 1 }, name: 'position_block' },
];

/** The append-only `events` collection. Nothing but `append` writes it, except `redact`. */
export function changeLog(db: Db, options: ChangeLogOptions = {}) {
  const events = db.collection<EventRow>('events');
  const byStream = streamReads(events);
  return {
    ...logAppends(db, events, byStream.readSeqs),
    ...positionReads(events),
    ...byStream,
    ...logScans(db, events, options),

    /**
     * Erases content from stored events (the one change events ever get): `erase` rewrites the
     * data of each event, returning the names of the fields it blanked.
     */
    async redact<D>(stream: number, erase: (event: StoredEvent<D>) => { data: D; fields: string[] } | null): Promise<void> {
      for (const row of await events.find({ stream }).sort({ stream: 1, seq: 1 }).toArray()) {
        const result = erase(toEvent<D>(row));
        if (!result || result.fields.length === 0) continue;
        const redacted = [...new Set([...(row.redacted ?? []), ...result.fields])];
        await events.updateOne({ stream, seq: row.seq }, { $set: { data: JSON.stringify(result.data), redacted } });
      }
    },
  };
}

export type ChangeLog = ReturnType<typeof changeLog>;

/** The checkpoint of the upgrade that gives positions to events stored before them. */
export const POSITIONS_CHECKPOINT = 'event_positions';
const UPGRADE_BATCH = 1000;

interface PositionsCheckpoint {
  _id: string;
  /** The first position the upgrade gives: one past the highest any event held when it began. */
  base: number;
  done?: Date;
}

/**
 * Gives every event stored without a position one, in `(at, stream, seq)` order, once per
 * database (a checkpoint records it); start-up runs it before the service appends anything.
 * The first process to begin records where the numbering starts, `base`, under a unique key, so
 * that processes starting at once (or one starting again after a crash) number alike: each
 * event without a position, or with one from `base` up (given by the upgrade: nothing else
 * appends before it is done), takes `base` plus its rank among them. Rows are updated by `_id`, a
 * batch at a time, only where no position is set yet.
 */
export async function upgradePositions(db: Db): Promise<number> {
  const checkpoints = db.collection<PositionsCheckpoint>('checkpoints');
  const events = db.collection<EventRow>('events');
  let checkpoint = await checkpoints.findOne({ _id: POSITIONS_CHECKPOINT });
  if (checkpoint?.done) return 0;
  if (!checkpoint) {
    let highest = 0;
    const positions = events.find({}, { projection: { position: 1 }, comment: `${FULL_SCAN_COMMENT} once per database: the highest position before the upgrade` });
    for await (const row of positions) highest = Math.max(highest, row.position ?? 0);
    await checkpoints.insertOne({ _id: POSITIONS_CHECKPOINT, base: highest + 1 }).catch((error: unknown) => {
      if (!isDuplicateKey(error)) throw error;
    });
    checkpoint = (await checkpoints.findOne({ _id: POSITIONS_CHECKPOINT }))!;
  }
  const { base } = checkpoint;
  let rank = 0;
  let count = 0;
  let batch: AnyBulkWriteOperation<EventRow>[] = [];
  const flush = async () => {
    if (batch.length) await events.bulkWrite(batch, { ordered: false });
    count += batch.length;
    batch = [];
  };
  const rows = events
    .find({}, { projection: { stream: 1, position: 1 }, comment: `${FULL_SCAN_COMMENT} once per database: events stored before positions, in time order` })
    .sort({ at: 1, stream: 1, seq: 1 });
  for await (const row of rows) {
    if (row.stream <= 0 || (row.position !== undefined && row.position < base)) continue;
    const position = base + rank++;
    if (row.position === position) continue;
    batch.push({ updateOne: { filter: { _id: row._id, position: { $exists: false } }, update: { $set: atPosition(position) } } });
    if (batch.length >= UPGRADE_BATCH) await flush();
  }
  await flush();
  await checkpoints.updateOne({ _id: POSITIONS_CHECKPOINT }, { $set: { done: new Date() } });
  return count;
}
