import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { type AnyBulkWriteOperation, BSON, type Db, type Filter, type FindOptions, type Sort } from 'mongodb';
import { countTable, readFields, readTable, storedField, storedValue } from './ferretdb-tables.js';
import { type IndexSpec, isDatabaseUnavailable, isDuplicateKey, mayWriteAgain, readBack } from './mongo.js';
import { type PostgresConnection } from './postgresql.js';
import { jsonText } from '../lib/json-text.js';
import { Slices } from '../lib/time-slices.js';
import { positionClock } from './position-clock.js';
import { PositionRows } from './position-rows.js';
import { FULL_SCAN_COMMENT } from './query-shapes.js';
import { firstFreeAfter as firstFree } from './first-free.js';
import { StoreError } from './store-errors.js';

/** MongoDB's largest document (`maxBsonObjectSize`); FerretDB 1.24 keeps the same limit. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
/**
 * Seqs per block of a stream. Each event row keeps its block (`<stream>:<seq / 16>`), so a run of
 * a stream's events is read a block at a time, by equality on `block`, which the embedded database
 * serves from an index (where two fields, stream and seq, cost it an intersection per event).
 */
export const EVENT_BLOCK = 16;
export const eventBlock = (stream: number, seq: number) => `${stream}:${Math.floor(seq / EVENT_BLOCK)}`;
/**
 * Positions per block of the whole log. Each event row keeps its block (`position / 64`), so a run
 * of positions (a page of the change feed) is read a block at a time, by equality on
 * `positionBlock`, which the embedded database serves from an index, not position by position.
 */
export const POSITION_BLOCK = 64;
/** A row's place on the log's clock: its position and that position's block. */
export const atPosition = (position: number) => ({ position, positionBlock: Math.floor(position / POSITION_BLOCK) });
/** Runs shorter than this are read event by event. */
const BLOCK_READ_FROM = 8;
/** Events read by key at once when the end of a stream is not known. */
const KEYED_BATCH = 4;
/** Events a scan asks for at once (and reads ahead). */
const SCAN_BATCH = 1000;
/**
 * Events a scan decodes ahead of its caller. The driver's batch is at most 16 MB (the server's
 * bound); a read-ahead of a whole batch of events decoded held a thousand of them, gigabytes once
 * they are long.
 */
const SCAN_AHEAD = 64;
/** Reads by key sent together. */
const KEYED_READS_AT_ONCE = 32;
/**
 * Event rows are read without checking that their strings are valid UTF-8: the service wrote them
 * from JavaScript strings, and the check scanned every character of every long text again (most
 * of what decoding a page of long events cost).
 */
const EVENT_READ = { enableUtf8Validation: false } as const;
/** An event without its data: where it is and what it is. */
const OUTLINE_READ: FindOptions = { ...EVENT_READ, projection: { data: 0 } };
/**
 * Rows a read of long events asks for at once: the driver assembles each answer whole before
 * decoding any of it, and an answer of a block of a long post's versions (21 MB) took a slice of
 * its own to assemble.
 */
export const EVENT_READ_BATCH = 8;

/**
 * One accepted change of an item: `seq` counts from 1 within the item's stream. `data` is
 * client-shaped JSON (meta keys belong to clients), so it is stored as a JSON string.
 */
export interface StoredEvent<D = Record<string, unknown>> {
  stream: number;
  /**
   * The type of item the stream belongs to (a post type slug), which names the projection that
   * replays it. Absent from events stored before types were recorded: see `streamTypeOf`.
   */
  streamType?: string;
  seq: number;
  type: string;
  at: Date;
  actor: number;
  data: D;
  /** Names of the fields whose content was erased (a deleted revision or a force-deleted item). */
  redacted?: string[];
  /** The erasure this event owes (its id in `owed_erasures`): start-up tells it from a rival command's. */
  erasure?: string;
  /** Its place on the one clock of the whole log (`positions` below); absent only before the upgrade gave it one. */
  position?: number;
  /** The `Idempotency-Key` claim of the request that appended it (`write-claims.ts`); not read back into events. */
  claim?: string;
}

interface EventRow {
  stream: number;
  streamType?: string;
  seq: number;
  type: string;
  at: Date;
  actor: number;
  data: string;
  redacted?: string[];
  erasure?: string;
  /** The block of the stream it falls in (`eventBlock`); absent on events stored before blocks were kept. */
  block?: string;
  position?: number;
  /** The block of the log its position falls in (`atPosition`); absent on events stored before position blocks were kept. */
  positionBlock?: number;
  claim?: string;
}

export type NewEvent<D = Record<string, unknown>> = Omit<StoredEvent<D>, 'seq' | 'redacted' | 'streamType' | 'position'> & { streamType: string };

/** Someone else appended to the stream first: re-read and decide again. */
export class ConcurrencyError extends Error {
  constructor(readonly stream: number, readonly expectedVersion: number) {
    super(`stream ${stream} moved past version ${expectedVersion}`);
  }
}

/** A document the database would refuse (over `MAX_DOCUMENT_BYTES`): nothing was written. */
export class DocumentTooLargeError extends StoreError {
  constructor(readonly bytes: number) {
    super(`a document of ${bytes} bytes is over the database's limit of ${MAX_DOCUMENT_BYTES}`);
  }
}

/** A number JSON cannot carry (NaN, Infinity): stored, it would come back as null. */
export class NonFiniteNumberError extends StoreError {
  constructor(readonly field: string) {
    super(`${field} is not a finite number`);
  }
}

/** Throws `DocumentTooLargeError` when `doc` cannot be stored as one document. */
export function assertStorable(doc: object): void {
  const bytes = BSON.calculateObjectSize(doc as BSON.Document);
  if (bytes > MAX_DOCUMENT_BYTES) throw new DocumentTooLargeError(bytes);
}

/**
 * Serializes event data, refusing what would not read back as written. Long strings (a long post's
 * content) are serialized a slice at a time, letting other requests run between the slices.
 */
function serializeData(data: unknown): Promise<string> {
  return jsonText(data, (key, value: unknown) => {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new NonFiniteNumberError(key);
    return value;
  });
}

/** A position no event reaches: a row carrying it is as large as it can be once it has its own. */
const LARGEST_POSITION = Number.MAX_SAFE_INTEGER;

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

const toEvent = <D>(row: EventRow): StoredEvent<D> => ({
  stream: row.stream,
  ...(row.streamType !== undefined ? { streamType: row.streamType } : {}),
  seq: row.seq,
  type: row.type,
  at: row.at,
  actor: row.actor,
  // An outline (`readPositions`' `outline`) was read without its data.
  data: (row.data === undefined ? {} : JSON.parse(row.data)) as D,
  ...(row.redacted ? { redacted: row.redacted } : {}),
  ...(row.erasure ? { erasure: row.erasure } : {}),
  ...(row.position !== undefined ? { position: row.position } : {}),
});

export interface LastEvent {
  seq: number;
  type: string;
  streamType?: string;
}

export interface ReadOptions {
  afterSeq?: number;
  limit?: number;
}

export interface ScanOptions {
  streams?: number[];
  since?: Date;
}

/**
 * One clock for the whole log: every event row holds a `position`, a positive integer that a
 * unique index keeps to one row. The append itself claims it (no claim before, no transaction):
 * a process inserts its event at a position its clock picks (`position-clock.ts`: one past its
 * last while it appends alone, from a counter shared by every process once others append too),
 * above its stream's previous event, so a stream's positions rise with its seqs. Another process
 * holding that position makes the insert fail like a lost race; the append then takes others. Positions are not dense while appends are in flight: a reader by position
 * (`readPositions`) reads only a prefix without gaps, and voids a gap it has waited out (a row
 * of stream 0, which is no item, at seq `-position`, so it can meet no real `(stream, seq)`).
 * Every other reader of the log reads by stream, or leaves stream 0 out.
 */
export const VOID_EVENT = 'void';
const voidRow = (position: number, at: Date): EventRow => ({ stream: 0, seq: -position, ...atPosition(position), type: VOID_EVENT, at, actor: 0, data: 'null' });
/** How long a reader by position waits for a missing one before voiding it: an append in flight takes a few database round trips. */
export const GAP_WAIT_MS = 5000;
const GAP_POLL_MS = 20;
/** Positions a read by position asks for at first, and at most at once, each by key (past the first run, blocks are read). */
const FIRST_POSITION_RUN = 8;
const MAX_POSITION_RUN = 64;
const positionsFrom = (first: number, last: number): number[] => Array.from({ length: Math.max(0, last - first + 1) }, (_, offset) => first + offset);
/** Streams whose last position a process remembers, so that its next append there need not read it. */
const STREAM_CACHE_SIZE = 10_000;

/** The last event's place of the streams a process appended to last, so that its next append there need not read it. */
const streamCaches = new WeakMap<Db, Map<number, { seq: number; position: number }>>();
const streamCacheOf = (db: Db) => {
  let streams = streamCaches.get(db);
  if (!streams) streamCaches.set(db, (streams = new Map()));
  return streams;
};

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

export interface ChangeLogOptions {
  /**
   * The embedded PostgreSQL FerretDB keeps `db` in: a whole scan (`scan`) then reads the rows
   * from it directly, ten times as fast as through FerretDB (`ferretdb-tables.ts`).
   */
  postgres?: PostgresConnection;
}

/** The append-only `events` collection. Nothing but `append` writes it, except `redact`. */
export function changeLog(db: Db, options: ChangeLogOptions = {}) {
  const events = db.collection<EventRow>('events');
  const streams = streamCacheOf(db);

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

  /** The last event of each stream appended to since `since`, from the `at` index: what a checkpointed heal reads. */
  async function lastEventsSince(since: Date): Promise<Map<number, LastEvent>> {
    const last = new Map<number, LastEvent>();
    const rows = events.find({ at: { $gte: since } }, { projection: { stream: 1, streamType: 1, seq: 1, type: 1 } }).sort({ at: 1, stream: 1, seq: 1 });
    for await (const row of rows) {
      if (row.stream <= 0) continue;
      if ((last.get(row.stream)?.seq ?? 0) < row.seq) last.set(row.stream, { seq: row.seq, type: row.type, streamType: row.streamType });
    }
    return last;
  }

  /**
   * `lastEvents` read in PostgreSQL: each stream's last row, over the `(stream, seq)` index, where
   * FerretDB would decode every row of the log (a range on `at` is not pushed down either).
   */
  async function lastEventsFromPostgres(postgres: PostgresConnection, since?: Date): Promise<Map<number, LastEvent>> {
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

  /** The row at `position` once it is there, or, after `waitMs`, the void this reader stored (or whatever won the race to it). */
  async function waitOrVoid(position: number, waitMs: number): Promise<EventRow> {
    const deadline = performance.now() + waitMs;
    for (;;) {
      const row = await events.findOne({ position });
      if (row) return row;
      if (performance.now() >= deadline) break;
      await delay(GAP_POLL_MS);
    }
    try {
      await events.insertOne(voidRow(position, new Date()));
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    return (await events.findOne({ position }))!;
  }

  /**
   * The events `first..last` of a stream (a stream's seqs run 1..n without gaps, so a page of them
   * is known before it is read): a long run block by block, a short one, and any event stored
   * before events kept their block, each by its key `(stream, seq)`. Either way the embedded
   * database decodes only the rows of those blocks or events.
   */
  async function readSeqs<D = Record<string, unknown>>(stream: number, first: number, last: number): Promise<StoredEvent<D>[]> {
    if (last < first) return [];
    const bySeq = new Map<number, EventRow>();
    if (last - first + 1 >= BLOCK_READ_FROM) {
      const blocks = Array.from({ length: Math.floor(last / EVENT_BLOCK) - Math.floor(first / EVENT_BLOCK) + 1 }, (_, offset) => eventBlock(stream, first + offset * EVENT_BLOCK));
      for (const rows of await Promise.all(blocks.map((block) => events.find({ block }).toArray()))) {
        for (const row of rows) if (row.seq >= first && row.seq <= last) bySeq.set(row.seq, row);
      }
    }
    const missing = Array.from({ length: last - first + 1 }, (_, offset) => first + offset).filter((seq) => !bySeq.has(seq));
    for (const row of await Promise.all(missing.map((seq) => events.findOne({ stream, seq })))) if (row) bySeq.set(row.seq, row);
    return [...bySeq.values()].sort((a, b) => a.seq - b.seq).map((row) => toEvent<D>(row));
  }

  /** The rows at `positions` up to the cap, by key, a run at a time, into `rows`. */
  async function readPositionKeys(positions: number[], rows: PositionRows<EventRow>, read: FindOptions): Promise<void> {
    for (let start = 0; start < positions.length; start += MAX_POSITION_RUN) {
      const run = positions.slice(start, start + MAX_POSITION_RUN).filter((position) => position <= rows.cap);
      if (rows.bounded && read !== OUTLINE_READ) {
        // Read whole at once, a run of long events (eight 15 MB posts) would all be decoded before
        // the bound could let one go: which are there is asked at once, each one's data in turn.
        const present = await Promise.all(run.map((position) => events.findOne({ position }, OUTLINE_READ)));
        for (const outline of present) {
          if (!outline || outline.position! > rows.cap) continue;
          const row = await events.findOne({ position: outline.position }, read);
          if (row) rows.add(row);
          await rows.slices.pause();
        }
        continue;
      }
      const found = await Promise.all(run.map((position) => events.findOne({ position }, read)));
      for (const row of found) {
        if (row) rows.add(row);
        await rows.slices.pause();
      }
    }
  }

  /**
   * The rows at positions `start..end` the blocks of those positions hold, into `rows`, a block at
   * a time until one starts past the cap; the highest position kept (0: none). Each row is decoded
   * as the cursor hands it over, with a pause between rows, where `toArray` decoded a block of
   * long events (64 versions of a 340 KB post: 21 MB) in one go.
   */
  async function readPositionBlocks(start: number, end: number, rows: PositionRows<EventRow>, read: FindOptions): Promise<number> {
    for (const positionBlock of positionsFrom(Math.floor(start / POSITION_BLOCK), Math.floor(end / POSITION_BLOCK))) {
      if (positionBlock * POSITION_BLOCK > rows.cap) break;
      for await (const row of events.find({ positionBlock }, read).batchSize(EVENT_READ_BATCH)) {
        if (row.position! >= start && row.position! <= end) rows.add(row);
        await rows.slices.pause();
      }
    }
    const highest = rows.highest(0);
    return highest >= start ? highest : 0;
  }

  /** Positions `start..end` by key, in doubling runs, until a run comes back with one missing. */
  async function readPositionRuns(start: number, end: number, rows: PositionRows<EventRow>, read: FindOptions): Promise<void> {
    for (let run = FIRST_POSITION_RUN, next = start; next <= Math.min(end, rows.cap); run *= 2) {
      const positions = positionsFrom(next, Math.min(end, rows.cap, next + Math.min(run, MAX_POSITION_RUN) - 1));
      await readPositionKeys(positions, rows, read);
      if (positions.some((position) => position <= rows.cap && !rows.has(position))) return;
      next += positions.length;
    }
  }

  const taken = async (position: number) => (await events.findOne({ position }, { projection: { _id: 1 } })) !== null;

  /**
   * The first free position after `from` (taken, or 0), found by key alone, as ids are
   * (sequences.ts): doubling steps past the taken ones, then halving steps back to the first free.
   * It may be a gap below later events (an append in flight, or one that lost its race): taking
   * it is safe, since no reader has gone past a free position (see `readPositions`).
   */
  const firstFreeAfter = (from: number): Promise<number> => firstFree(from, taken);
  const clock = positionClock(db, firstFreeAfter);

  /**
   * The position of the stream's event `seq` (the one an append follows): what the append must go
   * above. `given`: that position as the caller knows it (the item's read model keeps it).
   */
  const positionOf = async (stream: number, seq: number, given?: number): Promise<number> => {
    if (seq === 0) return 0;
    if (given !== undefined) return given;
    const known = streams.get(stream);
    if (known?.seq === seq) return known.position;
    return (await events.findOne({ stream, seq }, { projection: { position: 1 } }))?.position ?? 0;
  };

  const remember = (stream: number, seq: number, position: number) => {
    if (streams.size >= STREAM_CACHE_SIZE) streams.delete(streams.keys().next().value!);
    streams.set(stream, { seq, position });
  };

  /**
   * Positions this process reserved and will not fill (its append lost the race): voided at once,
   * so that readers need not wait them out. A reader voids them anyway if this fails.
   */
  const abandon = (positions: number[]) => {
    if (positions.length) void events.insertMany(positions.map((position) => voidRow(position, new Date())), { ordered: false }).catch(() => {});
  };

  /**
   * Appends a run of a stream's events at `expectedVersion + 1` onwards, in one ordered insert,
   * at consecutive positions above the stream's previous event and above every position this
   * process has handed out. Ordered inserts stop at the first refused row, so what is stored is a
   * prefix of the run; after any error it is read back by key, whatever the server reported,
   * before anything is answered. While the database is unavailable (an election, with the
   * acknowledgement lost), the read back waits for it to answer again, up to `READ_BACK_TIMEOUTS`
   * database timeouts after the insert was sent (`readBack`), and rows found missing then are
   * sent again within that bound: their `(stream, seq)` keeps a copy still on its way from being
   * stored twice. A duplicate key is one of two things: the `(stream, seq)`
   * of the first row not stored is someone else's (the race for the version is lost: the prefix
   * stands, and is returned), or that row's position was taken (by another process's event or a
   * reader's void): the rest of the run takes the first free positions after it and is inserted
   * again. A row the database would refuse, or data that would not read back as written, is
   * refused before the insert.
   */
  async function insertRun<D>(run: NewEvent<D>[], expectedVersion: number, expectedPosition?: number): Promise<StoredEvent<D>[]> {
    const stream = run[0].stream;
    // Serialized and sized before positions are reserved: a reserved position not yet written is a
    // gap every reader of the log waits on.
    const rows: EventRow[] = [];
    for (const [offset, event] of run.entries()) {
      const seq = expectedVersion + 1 + offset;
      const row = { ...event, seq, data: await serializeData(event.data), block: eventBlock(stream, seq), ...atPosition(LARGEST_POSITION) };
      assertStorable(row);
      rows.push(row);
    }
    const first = await clock.reserve(run.length, await positionOf(stream, expectedVersion, expectedPosition));
    rows.forEach((row, offset) => Object.assign(row, atPosition(first + offset)));
    const sentAt = performance.now();
    let stored = 0;
    let positionLosses = 0;
    while (stored < rows.length) {
      const rest = rows.slice(stored);
      try {
        if (rest.length === 1) await events.insertOne(rest[0]);
        else await events.insertMany(rest, { ordered: true });
        stored = rows.length;
        break;
      } catch (error) {
        let found: StoredEvent[];
        try {
          found = await readBack(db, sentAt, () => readSeqs(stream, rest[0].seq, rest.at(-1)!.seq));
        } catch {
          // Nothing can be said of what was stored within the bound: the caller answers the first error.
          throw error;
        }
        const ours = (row: EventRow, event: StoredEvent | undefined) =>
          event !== undefined && event.seq === row.seq && event.type === row.type && event.actor === row.actor && event.at.getTime() === row.at.getTime() && JSON.stringify(event.data) === row.data;
        let count = 0;
        while (count < rest.length && ours(rest[count], found[count])) {
          Object.assign(rest[count], atPosition(found[count].position!));
          count++;
        }
        stored += count;
        if (stored === rows.length) break;
        const refused = rows[stored];
        const lost = found.some((event) => event.seq === refused.seq);
        if (!lost && isDatabaseUnavailable(error) && mayWriteAgain(db, sentAt)) continue;
        if (lost || !isDuplicateKey(error)) {
          if (!lost && stored === 0) throw error;
          abandon(rows.slice(stored).map((row) => row.position!));
          break;
        }
        const next = await clock.replace(rows.length - stored, refused.position!, ++positionLosses);
        rows.slice(stored).forEach((row, offset) => Object.assign(row, atPosition(next + offset)));
      }
    }
    if (stored > 0) remember(stream, rows[stored - 1].seq, rows[stored - 1].position!);
    return rows.slice(0, stored).map((row, offset) => ({ ...run[offset], seq: row.seq, position: row.position! }));
  }

  /**
   * Appends at `expectedVersion + 1` (see `insertRun`). The unique `(stream, seq)` index makes
   * this the commit point: a duplicate there means another writer got there first.
   */
  async function append<D>(event: NewEvent<D>, expectedVersion: number): Promise<StoredEvent<D>> {
    const [stored] = await insertRun([event], expectedVersion);
    if (!stored) throw new ConcurrencyError(event.stream, expectedVersion);
    return stored;
  }

  return {
    append,

    /** The first position no row holds (after the highest, while no append is in flight): where bulk seeding goes on. */
    firstFreePosition: () => firstFreeAfter(0),

    /** When the row at `position` was stored (an event, or a void), by key; null while none is there. */
    async timeAt(position: number): Promise<Date | null> {
      return (await events.findOne({ position }, { projection: { at: 1 } }))?.at ?? null;
    },

    /** The first free position after `from`, a position some row holds (or 0): a few reads by key when the log grew little since. */
    firstFreePositionAfter: (from: number) => firstFreeAfter(from),

    /**
     * Appends a run of events at `expectedVersion + 1` onwards, in one ordered insert (group
     * commit; see `insertRun`). Returns the stored prefix: shorter than the run when another
     * writer took a seq first. `expectedPosition`: the position of the event at `expectedVersion`,
     * when the caller knows it (else it is looked up by key unless this process appended it).
     */
    async appendRun<D>(run: NewEvent<D>[], expectedVersion: number, expectedPosition?: number): Promise<StoredEvent<D>[]> {
      return insertRun(run, expectedVersion, expectedPosition);
    },

    /**
     * The events at positions `after + 1` onwards, at most `limit` positions, as a gap-free
     * prefix: `through` is the last position it covers (voids included), where the next read
     * starts. A missing position with a later one present may belong to an append still in
     * flight: the reader waits for it up to `gapWaitMs`, then abandons it by storing a void
     * there. The unique position index lets either the event or the void in, never both; an
     * append refused by the void takes a later position. So no position a reader has gone past
     * is ever free, and a reader that has seen position N never later finds an event below N.
     * The first few positions are read by key, the rest of the page by block (`POSITION_BLOCK`;
     * the embedded database serves only equality from an index), and by key again those stored
     * before blocks were kept. A gap that reaches the end of what was read is taken for the end of
     * the log until a later read. `maxBytes`: about how much event data the read holds (one event
     * at least); past it the prefix ends sooner (`PositionRows`), and `through` says where.
     * `outline`: the events without their data (`data` is `{}`), for a reader that needs only who
     * changed which item when, and how.
     *
     * `sideStreams`: the events of side streams (below 0: an item's lock events) come too; every
     * other reader leaves them out, as it leaves voids out.
     *
     * `waitForGaps: false`: a reader that must not be held up (a list) neither waits for a missing
     * position nor voids it: `through` ends before the first, and `events` holds every event read,
     * those past it too; `highest` is the highest position read.
     */
    async readPositions<D = Record<string, unknown>>(
      after: number,
      limit: number,
      options: { gapWaitMs?: number; maxBytes?: number; outline?: boolean; waitForGaps?: boolean; sideStreams?: boolean } = {},
    ): Promise<{ events: StoredEvent<D>[]; through: number; highest: number }> {
      const gapWaitMs = options.gapWaitMs ?? GAP_WAIT_MS;
      const end = after + limit;
      const rows = new PositionRows<EventRow>(end, options.maxBytes ?? Number.POSITIVE_INFINITY);
      const read: FindOptions = options.outline ? OUTLINE_READ : EVENT_READ;
      // A reader at the head (a waiting feed, woken by every change) asks for a few positions by
      // key; only once they are all there is the rest of the page read, a block at a time.
      const firstRunEnd = Math.min(end, after + FIRST_POSITION_RUN);
      await readPositionKeys(positionsFrom(after + 1, firstRunEnd), rows, read);
      // One that does not wait reads on past a missing position too, once anything followed it.
      const readOn = rows.found.size === firstRunEnd - after || (options.waitForGaps === false && rows.found.size > 0);
      if (readOn && firstRunEnd < rows.cap) {
        const start = firstRunEnd + 1;
        const highest = await readPositionBlocks(start, end, rows, read);
        // Below the highest found, the rows stored before blocks were kept, and any append in
        // flight; above it, rows without a block (stored before, or by a process that kept none).
        await readPositionKeys(positionsFrom(start, highest).filter((position) => !rows.has(position)), rows, read);
        await readPositionRuns(Math.max(start, highest + 1), end, rows, read);
      }
      const last = rows.highest(after);
      const found: StoredEvent<D>[] = [];
      let through = last;
      for (let position = after + 1; position <= last; position++) {
        let row = rows.found.get(position);
        if (!row && options.waitForGaps === false) {
          through = Math.min(through, position - 1);
          continue;
        }
        row ??= await waitOrVoid(position, gapWaitMs);
        if (row.stream > 0 || (options.sideStreams && row.stream < 0)) found.push(toEvent<D>(row));
        await rows.slices.pause();
      }
      return { events: found, through, highest: last };
    },

    async readStream<D = Record<string, unknown>>(stream: number, options: ReadOptions = {}): Promise<StoredEvent<D>[]> {
      const rows = await events
        .find({ stream, seq: { $gt: options.afterSeq ?? 0 } })
        .sort({ stream: 1, seq: 1 })
        .limit(options.limit ?? 0)
        .toArray();
      return rows.map((row) => toEvent<D>(row));
    },

    readSeqs,

    /**
     * The events `first..last` of a stream in seq order, one at a time, as a fold over a long log
     * reads them: block by block, each row decoded as the cursor hands it over (a block's rows come
     * in any order; one out of turn waits for its turn), with a pause between rows (`slices`), and
     * each row a block did not hold (stored before blocks were kept) by its key. It ends early where
     * the stream does. `readSeqs` holds the whole run at once.
     */
    async *foldSeqs<D = Record<string, unknown>>(stream: number, first: number, last: number, slices = new Slices()): AsyncGenerator<StoredEvent<D>> {
      let next = first;
      for (let block = Math.floor(first / EVENT_BLOCK); next <= last; block++) {
        const blockEnd = Math.min(last, (block + 1) * EVENT_BLOCK - 1);
        const early = new Map<number, EventRow>();
        for await (const row of events.find({ block: eventBlock(stream, next) }, EVENT_READ).batchSize(EVENT_READ_BATCH)) {
          if (row.seq < next || row.seq > blockEnd) continue;
          early.set(row.seq, row);
          for (let turn = early.get(next); turn; turn = early.get(next)) {
            early.delete(next++);
            yield toEvent<D>(turn);
            await slices.pause();
          }
        }
        for (; next <= blockEnd; next++) {
          const row = early.get(next) ?? (await events.findOne({ stream, seq: next }, EVENT_READ));
          if (!row) return;
          yield toEvent<D>(row);
          await slices.pause();
        }
      }
    },

    /** Whether the stream holds an event at `seq`, read by key without its data. */
    async holds(stream: number, seq: number): Promise<boolean> {
      return (await events.findOne({ stream, seq }, { projection: { _id: 1 } })) !== null;
    },

    /**
     * Every event after `afterSeq`, read by key a few at a time until a seq is missing (a stream's
     * seqs have no gaps): what catching up and healing read, which is a few events at most, at a
     * cost that does not grow with the stream.
     */
    async readAfter<D = Record<string, unknown>>(stream: number, afterSeq: number): Promise<StoredEvent<D>[]> {
      const found: StoredEvent<D>[] = [];
      for (let first = afterSeq + 1; ; first += KEYED_BATCH) {
        const batch = await readSeqs<D>(stream, first, first + KEYED_BATCH - 1);
        found.push(...batch);
        if (batch.length < KEYED_BATCH) return found;
      }
    },

    async countStream(stream: number): Promise<number> {
      return events.countDocuments({ stream });
    },

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
      if (options.postgres) return lastEventsFromPostgres(options.postgres, since);
      if (since) return lastEventsSince(since);
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

    /** The first event of each of `streams` (the `created` event, which names a legacy stream's type). */
    async firstEvents<D = Record<string, unknown>>(streams: number[]): Promise<Map<number, StoredEvent<D>>> {
      // Each by its key, a few at a time: the embedded database matches an `$or` of keys by decoding every row.
      const first = new Map<number, StoredEvent<D>>();
      for (let start = 0; start < streams.length; start += KEYED_READS_AT_ONCE) {
        const rows = await Promise.all(streams.slice(start, start + KEYED_READS_AT_ONCE).map((stream) => events.findOne({ stream, seq: 1 })));
        for (const row of rows) if (row) first.set(row.stream, toEvent<D>(row));
      }
      return first;
    },

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
