import { BSON, type Collection, type Db } from 'mongodb';
import { jsonText } from '../../lib/json-text.js';
import { atPosition, eventBlock, type EventRow, type NewEvent, type StoredEvent, voidRow } from './change-log-rows.js';
import { firstFreeAfter as firstFree } from '../coordination/first-free.js';
import { isDatabaseUnavailable, isDuplicateKey, mayWriteAgain, readBack } from '../database/mongo.js';
import { positionClock } from './position-clock.js';
import { StoreError } from './store-errors.js';

/** MongoDB's largest document (`maxBsonObjectSize`); FerretDB 1.24 keeps the same limit. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

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
/** Streams whose last position a process remembers, so that its next append there need not read it. */
const STREAM_CACHE_SIZE = 10_000;

/** The last event's place of the streams a process appended to last, so that its next append there need not read it. */
const streamCaches = new WeakMap<Db, Map<number, { seq: number; position: number }>>();
const streamCacheOf = (db: Db) => {
  let streams = streamCaches.get(db);
  if (!streams) streamCaches.set(db, (streams = new Map()));
  return streams;
};

/** The positions a process's appends take (`position-clock.ts`), and the streams it appended to last. */
function appendPositions(db: Db, events: Collection<EventRow>) {
  const streams = streamCacheOf(db);

  const taken = async (position: number) => (await events.findOne({ position }, { projection: { _id: 1 } })) !== null;

  /**
   * The first free position after `from` (taken, or 0), found by key alone, as ids are
   * (sequences.ts): doubling steps past the taken ones, then halving steps back to the first free.
   * It may be a gap below later events (an append in flight, or one that lost its race): taking
   * it is safe, since no reader has gone past a free position (see `readPositions`).
   */
  const firstFreeAfter = (from: number): Promise<number> => firstFree(from, taken);
  /**
   * Positions this process reserved and will not fill (its append lost the race): voided at once,
   * so that readers need not wait them out. A reader voids them anyway if this fails.
   */
  const abandon = (positions: number[]) => {
    if (positions.length) void events.insertMany(positions.map((position) => voidRow(position, new Date())), { ordered: false }).catch(() => {});
  };

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

  return { firstFreeAfter, clock, positionOf, remember, abandon };
}

/** What an append works with: the log, a read back by key (`readSeqs`), and the positions it takes. */
type Appending = ReturnType<typeof appendPositions> & {
  db: Db;
  events: Collection<EventRow>;
  readSeqs: (stream: number, first: number, last: number) => Promise<StoredEvent[]>;
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
async function insertRun<D>(appending: Appending, run: NewEvent<D>[], expectedVersion: number, expectedPosition?: number): Promise<StoredEvent<D>[]> {
  const { db, events, readSeqs, clock, positionOf, remember, abandon } = appending;
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
      let next: number;
      try {
        next = await clock.replace(rows.length - stored, refused.position!, ++positionLosses);
      } catch (replaceError) {
        // The prefix stored stands and is answered; its commands must not be answered an error.
        abandon(rows.slice(stored + 1).map((row) => row.position!));
        if (stored === 0) throw replaceError;
        break;
      }
      rows.slice(stored).forEach((row, offset) => Object.assign(row, atPosition(next + offset)));
    }
  }
  if (stored > 0) remember(stream, rows[stored - 1].seq, rows[stored - 1].position!);
  return rows.slice(0, stored).map((row, offset) => ({ ...run[offset], seq: row.seq, position: row.position! }));
}

/** The appends of the change log. `readSeqs` reads a run back by key after an insert's error. */
export function logAppends(db: Db, events: Collection<EventRow>, readSeqs: Appending['readSeqs']) {
  const appending: Appending = { db, events, readSeqs, ...appendPositions(db, events) };

  /**
   * Appends at `expectedVersion + 1` (see `insertRun`). The unique `(stream, seq)` index makes
   * this the commit point: a duplicate there means another writer got there first.
   */
  async function append<D>(event: NewEvent<D>, expectedVersion: number): Promise<StoredEvent<D>> {
    const [stored] = await insertRun(appending, [event], expectedVersion);
    if (!stored) throw new ConcurrencyError(event.stream, expectedVersion);
    return stored;
  }

  return {
    append,

    /** The first position no row holds (after the highest, while no append is in flight): where bulk seeding goes on. */
    firstFreePosition: () => appending.firstFreeAfter(0),

    /** The first free position after `from`, a position some row holds (or 0): a few reads by key when the log grew little since. */
    firstFreePositionAfter: (from: number) => appending.firstFreeAfter(from),

    /**
     * Appends a run of events at `expectedVersion + 1` onwards, in one ordered insert (group
     * commit; see `insertRun`). Returns the stored prefix: shorter than the run when another
     * writer took a seq first. `expectedPosition`: the position of the event at `expectedVersion`,
     * when the caller knows it (else it is looked up by key unless this process appended it).
     */
    async appendRun<D>(run: NewEvent<D>[], expectedVersion: number, expectedPosition?: number): Promise<StoredEvent<D>[]> {
      return insertRun(appending, run, expectedVersion, expectedPosition);
    },
  };
}
