import { Readable } from 'node:stream';
import { type Collection, type Db, type Filter, type Sort } from 'mongodb';
import { EVENT_READ, type EventRow, type StoredEvent, toEvent } from './change-log-rows.js';
import { countTable, readFields, readTable, storedField, storedValue } from '../database/ferretdb-tables.js';
import { type PostgresConnection } from '../database/postgresql.js';
import { FULL_SCAN_COMMENT } from '../queries/query-shapes.js';

/** Events a scan asks for at once (and reads ahead). */
const SCAN_BATCH = 1000;
/**
 * Events a scan decodes ahead of its caller. The driver's batch is at most 16 MB (the server's
 * bound); a read-ahead of a whole batch of events decoded held a thousand of them, gigabytes once
 * they are long.
 */
const SCAN_AHEAD = 64;

export interface LastEvent {
  seq: number;
  type: string;
  streamType?: string;
}

/**
 * Keeps `event` as its stream's last in `last` when it comes after the one kept. Voided positions
 * (stream 0) are no item's events.
 */
export function keepLatest(last: Map<number, LastEvent>, event: LastEvent & { stream: number }): void {
  if (event.stream > 0 && (last.get(event.stream)?.seq ?? 0) < event.seq) last.set(event.stream, { seq: event.seq, type: event.type, streamType: event.streamType });
}

export interface ScanOptions {
  streams?: number[];
  since?: Date;
}

export interface ChangeLogOptions {
  /**
   * The embedded PostgreSQL FerretDB keeps `db` in: a whole scan (`scan`) then reads the rows
   * from it directly, ten times as fast as through FerretDB (`ferretdb-tables.ts`).
   */
  postgres?: PostgresConnection;
}

/**
 * How many events there are in one stream, or since a time, or in the whole log: a progress bar's
 * total. With the embedded PostgreSQL at hand, PostgreSQL counts. Otherwise the whole log's count
 * comes from the collection's statistics: counting by filter through FerretDB decodes every row
 * (its `count` too), which doubled an export's cost; there the figure is PostgreSQL's estimate, so
 * a bar is given the true total once its scan ends.
 */
export async function countEvents(db: Db, range: { stream?: number; since?: Date }, options: ChangeLogOptions = {}): Promise<number> {
  const events = db.collection<EventRow>('events');
  if (options.postgres) return countTable(options.postgres, db.databaseName, 'events', storedRange({ streams: range.stream === undefined ? undefined : [range.stream], since: range.since }));
  if (range.stream === undefined && !range.since) {
    // One document per shard on a sharded cluster.
    const shards = await events.aggregate<{ count?: number }>([{ $collStats: { count: {} } }]).toArray();
    return shards.reduce((total, shard) => total + Math.max(0, shard.count ?? 0), 0);
  }
  // The change log has no count by filter; this reads the same indexed range `scan` does.
  const filter: Filter<EventRow> = {};
  if (range.stream !== undefined) filter.stream = range.stream;
  if (range.since) filter.at = { $gte: range.since };
  return events.countDocuments(filter);
}

/** A scan's range as conditions on FerretDB's stored rows (`readTable`). */
function storedRange(scan: ScanOptions): string[] {
  const where: string[] = [];
  if (scan.streams) where.push(`${storedField('stream')} IN (${scan.streams.map(storedValue).join(', ')})`);
  if (scan.since) where.push(`${storedField('at')} >= ${storedValue(scan.since.getTime())}`);
  return where;
}

/** The last event of each stream appended to since `since`, from the `at` index: what a checkpointed heal reads. */
async function lastEventsSince(events: Collection<EventRow>, since: Date): Promise<Map<number, LastEvent>> {
  const last = new Map<number, LastEvent>();
  const rows = events.find({ at: { $gte: since } }, { projection: { stream: 1, streamType: 1, seq: 1, type: 1 } }).sort({ at: 1, stream: 1, seq: 1 });
  for await (const row of rows) keepLatest(last, row);
  return last;
}

/**
 * `lastEvents` read in PostgreSQL: each stream's last row, over the `(stream, seq)` index, where
 * FerretDB would decode every row of the log (a range on `at` is not pushed down either).
 */
async function lastEventsFromPostgres(db: Db, postgres: PostgresConnection, since?: Date): Promise<Map<number, LastEvent>> {
  const last = new Map<number, LastEvent>();
  const rows = readFields(postgres, db.databaseName, 'events', {
    fields: ['stream', 'seq', 'type', 'streamType'].map(storedField),
    // Voided positions (stream 0) are no item's events.
    where: [`${storedField('stream')} > ${storedValue(0)}`, ...(since ? [`${storedField('at')} >= ${storedValue(since.getTime())}`] : [])],
    distinctOn: storedField('stream'),
    orderBy: [storedField('stream'), `${storedField('seq')} DESC`],
  });
  for await (const [stream, seq, type, streamType] of rows) {
    last.set(stream as number, { seq: seq as number, type: type as string, ...(streamType !== null ? { streamType: streamType as string } : {}) });
  }
  return last;
}

/** Scans of the whole change log (or a range of it), through the driver or from PostgreSQL. */
export function logScans(db: Db, events: Collection<EventRow>, options: ChangeLogOptions) {
  /** `scan`'s rows, through the driver, or from PostgreSQL in the same order. */
  function scannedRows(scan: ScanOptions): AsyncIterable<EventRow> {
    const byTime = scan.since !== undefined;
    if (options.postgres) {
      // The orders of the `(at, stream, seq)` and `(stream, seq)` indexes.
      const orderBy = (byTime ? ['at', 'stream', 'seq'] : ['stream', 'seq']).map(storedField);
      return readTable<EventRow>(options.postgres, db.databaseName, 'events', { where: storedRange(scan), orderBy });
    }
    const filter: Filter<EventRow> = {};
    if (scan.streams) filter.stream = scan.streams.length === 1 ? scan.streams[0] : { $in: scan.streams };
    if (scan.since) filter.at = { $gte: scan.since };
    const sort: Sort = byTime ? { at: 1, stream: 1, seq: 1 } : { stream: 1, seq: 1 };
    const cursor = events.find(filter, EVENT_READ).sort(sort).batchSize(SCAN_BATCH);
    return Readable.from(cursor, { objectMode: true, highWaterMark: SCAN_AHEAD });
  }

  return {
    /**
     * Every event (or those of `streams`, or since `since`), oldest first, from a cursor: constant
     * memory (a batch of at most 16 MB, and SCAN_AHEAD events decoded). Events are read ahead, so
     * the database prepares the next batch while the caller works through this one (the driver
     * alone asks only once its batch is used up).
     */
    async *scan<D = Record<string, unknown>>(scan: ScanOptions = {}): AsyncGenerator<StoredEvent<D>> {
      for await (const row of scannedRows(scan)) {
        // Voided positions (stream 0) are no item's events.
        if (row.stream > 0) yield toEvent<D>(row);
      }
    },

    /**
     * The last seq and type of every stream, for healing projections after a crash: one pass
     * over the log, a batch a round trip, so that no single command's time grows with the log
     * (a `$group` of every stream, or reading the last events back by `$or`, which the embedded
     * database matches by decoding every row, took longer than a round trip may on a large one).
     */
    async lastEvents(since?: Date): Promise<Map<number, LastEvent>> {
      if (options.postgres) return lastEventsFromPostgres(db, options.postgres, since);
      if (since) return lastEventsSince(events, since);
      const last = new Map<number, LastEvent>();
      const rows = events.find({}, {
        projection: { stream: 1, streamType: 1, seq: 1, type: 1 },
        batchSize: SCAN_BATCH,
        comment: `${FULL_SCAN_COMMENT} every stream's last event, for a first start or one with faults on record`,
      });
      for await (const row of rows) {
        // Voided positions (stream 0) are no item's events.
        if (row.stream <= 0 || (last.get(row.stream)?.seq ?? 0) > row.seq) continue;
        last.set(row.stream, { seq: row.seq, type: row.type, streamType: row.streamType });
      }
      return last;
    },
  };
}
