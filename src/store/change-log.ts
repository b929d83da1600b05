import { Readable } from 'node:stream';
import { BSON, type Db, type Filter, type Sort } from 'mongodb';
import { type IndexSpec, isDuplicateKey } from './mongo.js';
import { FULL_SCAN_COMMENT } from './query-shapes.js';

/** MongoDB's largest document (`maxBsonObjectSize`); FerretDB 1.24 keeps the same limit. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
/**
 * Seqs per block of a stream. Each event row keeps its block (`<stream>:<seq / 16>`), so a run of
 * a stream's events is read a block at a time, by equality on `block`, which the embedded database
 * serves from an index (where two fields, stream and seq, cost it an intersection per event).
 */
export const EVENT_BLOCK = 16;
export const eventBlock = (stream: number, seq: number) => `${stream}:${Math.floor(seq / EVENT_BLOCK)}`;
/** Runs shorter than this are read event by event. */
const BLOCK_READ_FROM = 8;
/** Events read by key at once when the end of a stream is not known. */
const KEYED_BATCH = 4;
/** Events a scan asks for at once (and reads ahead). */
const SCAN_BATCH = 1000;

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
}

export type NewEvent<D = Record<string, unknown>> = Omit<StoredEvent<D>, 'seq' | 'redacted' | 'streamType'> & { streamType: string };

/** Someone else appended to the stream first: re-read and decide again. */
export class ConcurrencyError extends Error {
  constructor(readonly stream: number, readonly expectedVersion: number) {
    super(`stream ${stream} moved past version ${expectedVersion}`);
  }
}

/** A document the database would refuse (over `MAX_DOCUMENT_BYTES`): nothing was written. */
export class DocumentTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`a document of ${bytes} bytes is over the database's limit of ${MAX_DOCUMENT_BYTES}`);
  }
}

/** A number JSON cannot carry (NaN, Infinity): stored, it would come back as null. */
export class NonFiniteNumberError extends Error {
  constructor(readonly field: string) {
    super(`${field} is not a finite number`);
  }
}

/** Throws `DocumentTooLargeError` when `doc` cannot be stored as one document. */
export function assertStorable(doc: object): void {
  const bytes = BSON.calculateObjectSize(doc as BSON.Document);
  if (bytes > MAX_DOCUMENT_BYTES) throw new DocumentTooLargeError(bytes);
}

/** Serializes event data, refusing what would not read back as written. */
function serializeData(data: unknown): string {
  return JSON.stringify(data, (key, value: unknown) => {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new NonFiniteNumberError(key);
    return value;
  });
}

export const changeLogIndexes: IndexSpec[] = [
  { collection: 'events', key: { stream: 1, seq: 1 }, name: 'stream_seq_unique', unique: true },
  { collection: 'events', key: { at: 1, stream: 1, seq: 1 }, name: 'at_stream_seq' },
  { collection: 'events', key: { block: 1 }, name: 'block' },
];

const toEvent = <D>(row: EventRow): StoredEvent<D> => ({
  stream: row.stream,
  ...(row.streamType !== undefined ? { streamType: row.streamType } : {}),
  seq: row.seq,
  type: row.type,
  at: row.at,
  actor: row.actor,
  data: JSON.parse(row.data) as D,
  ...(row.redacted ? { redacted: row.redacted } : {}),
  ...(row.erasure ? { erasure: row.erasure } : {}),
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

/** The append-only `events` collection. Nothing but `append` writes it, except `redact`. */
export function changeLog(db: Db) {
  const events = db.collection<EventRow>('events');

  /** The last event of each stream appended to since `since`, from the `at` index: what a checkpointed heal reads. */
  async function lastEventsSince(since: Date): Promise<Map<number, LastEvent>> {
    const last = new Map<number, LastEvent>();
    const rows = events.find({ at: { $gte: since } }, { projection: { stream: 1, streamType: 1, seq: 1, type: 1 } }).sort({ at: 1, stream: 1, seq: 1 });
    for await (const row of rows) {
      if ((last.get(row.stream)?.seq ?? 0) < row.seq) last.set(row.stream, { seq: row.seq, type: row.type, streamType: row.streamType });
    }
    return last;
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

  /**
   * Appends at `expectedVersion + 1`. The unique `(stream, seq)` index makes this the commit
   * point: a duplicate key means another writer got there first. A row the database would
   * refuse, or data that would not read back as written, is refused before the insert.
   */
  async function append<D>(event: NewEvent<D>, expectedVersion: number): Promise<StoredEvent<D>> {
    const seq = expectedVersion + 1;
    const row: EventRow = { ...event, seq, data: serializeData(event.data), block: eventBlock(event.stream, seq) };
    assertStorable(row);
    try {
      await events.insertOne(row);
    } catch (error) {
      if (isDuplicateKey(error)) throw new ConcurrencyError(event.stream, expectedVersion);
      throw error;
    }
    return { ...event, seq };
  }

  return {
    append,

    /**
     * Appends a run of events at `expectedVersion + 1` onwards, in one ordered insert (group
     * commit). Ordered inserts stop at the first refused row, so what is stored is a prefix of the
     * run; it is read back by key to be sure, whatever the server reported, before anything is
     * answered. Returns that prefix: shorter than the run when another writer took a seq first.
     */
    async appendRun<D>(run: NewEvent<D>[], expectedVersion: number): Promise<StoredEvent<D>[]> {
      if (run.length === 1) {
        try {
          return [await append(run[0], expectedVersion)];
        } catch (error) {
          if (error instanceof ConcurrencyError) return [];
          throw error;
        }
      }
      const rows = run.map((event, offset): EventRow => {
        const seq = expectedVersion + 1 + offset;
        return { ...event, seq, data: serializeData(event.data), block: eventBlock(event.stream, seq) };
      });
      for (const row of rows) assertStorable(row);
      const stored = (count: number) => run.slice(0, count).map((event, offset) => ({ ...event, seq: expectedVersion + 1 + offset }));
      try {
        await events.insertMany(rows, { ordered: true });
        return stored(rows.length);
      } catch (error) {
        let found: StoredEvent[];
        try {
          found = await readSeqs(run[0].stream, rows[0].seq, rows.at(-1)!.seq);
        } catch {
          // Nothing can be said of what was stored: the caller answers the first error.
          throw error;
        }
        const ours = (row: EventRow, event: StoredEvent | undefined) =>
          event !== undefined && event.seq === row.seq && event.type === row.type && event.actor === row.actor && event.at.getTime() === row.at.getTime() && JSON.stringify(event.data) === row.data;
        let count = 0;
        while (count < rows.length && ours(rows[count], found[count])) count++;
        if (count === 0 && !isDuplicateKey(error) && found.length === 0) throw error;
        return stored(count);
      }
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
     * memory. Up to one batch is read ahead, so the database prepares the next batch while the
     * caller works through this one (the driver alone asks only once its batch is used up).
     */
    async *scan<D = Record<string, unknown>>(options: ScanOptions = {}): AsyncGenerator<StoredEvent<D>> {
      const filter: Filter<EventRow> = {};
      if (options.streams) filter.stream = options.streams.length === 1 ? options.streams[0] : { $in: options.streams };
      if (options.since) filter.at = { $gte: options.since };
      const sort: Sort = options.since ? { at: 1, stream: 1, seq: 1 } : { stream: 1, seq: 1 };
      const cursor = events.find(filter).sort(sort).batchSize(SCAN_BATCH);
      for await (const row of Readable.from(cursor, { objectMode: true, highWaterMark: SCAN_BATCH })) yield toEvent<D>(row as EventRow);
    },

    /**
     * The last seq and type of every stream, for healing projections after a crash. A stream's
     * seqs run 1..n without gaps, so its event count is its last seq (FerretDB 1.24's `$group`
     * has `$sum` and `$count` only, no `$last` or `$max`); the last events are then read by key.
     */
    async lastEvents(since?: Date): Promise<Map<number, LastEvent>> {
      if (since) return lastEventsSince(since);
      const counts = await events
        .aggregate<{ _id: number; seq: number }>([{ $group: { _id: '$stream', seq: { $sum: 1 } } }], { comment: `${FULL_SCAN_COMMENT} every stream's length, for a first start or one with faults on record` })
        .toArray();
      const last = new Map<number, LastEvent>();
      for (let start = 0; start < counts.length; start += 1000) {
        const keys = counts.slice(start, start + 1000).map((count) => ({ stream: count._id, seq: count.seq }));
        for (const row of await events.find({ $or: keys }, { projection: { stream: 1, streamType: 1, seq: 1, type: 1 } }).toArray()) {
          last.set(row.stream, { seq: row.seq, type: row.type, streamType: row.streamType });
        }
      }
      return last;
    },

    /** The first event of each of `streams` (the `created` event, which names a legacy stream's type). */
    async firstEvents<D = Record<string, unknown>>(streams: number[]): Promise<Map<number, StoredEvent<D>>> {
      const first = new Map<number, StoredEvent<D>>();
      for (let start = 0; start < streams.length; start += 1000) {
        const keys = streams.slice(start, start + 1000).map((stream) => ({ stream, seq: 1 }));
        for (const row of await events.find({ $or: keys }).toArray()) first.set(row.stream, toEvent<D>(row));
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
