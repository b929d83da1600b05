import {
  MongoBulkWriteError,
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type CommandStartedEvent,
  type Db,
  type IndexDescription,
  type WriteError,
} from 'mongodb';
import { setTimeout as delay } from 'node:timers/promises';
import { ConnectionString } from 'mongodb-connection-string-url';
import { type PostgresConnection } from './postgresql.js';

export const DEFAULT_DATABASE = 'cms';

/**
 * How long a request waits on a database that does not answer before it answers 503
 * (`CMS_DATABASE_TIMEOUT_MS`). The driver's `timeoutMS` has no effect since driver 7, so the
 * bound comes from server monitoring: a heartbeat every half second, given this long to answer;
 * when one does not, the driver interrupts every operation in flight on that server, and new
 * ones wait this long for it to come back.
 */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5000;

/**
 * The longest one round trip may take while the server still answers its heartbeats (a slow
 * query on a busy machine): a backstop, well above the unavailability bound.
 */
const ROUND_TRIP_BACKSTOP_FACTOR = 6;
const MIN_ROUND_TRIP_BACKSTOP_MS = 30_000;

/**
 * How long a write that met an unavailable database (its acknowledgement lost in an election, or
 * a restart) waits for the database to answer again, in database timeouts from when it was sent:
 * until then what it wrote is read back, and the write is answered from what is found, not as an
 * error. Three timeouts (15 s by default) cover a replica set's election (MongoDB's
 * `electionTimeoutMillis` is 10 s); past them the write is answered 503, and may be stored
 * all the same if the database comes back later.
 */
export const READ_BACK_TIMEOUTS = 3;
/** The pause between reads back that failed at once (a refused connection): server selection waits out the rest. */
export const READ_BACK_PAUSE_MS = 100;

/** The bound for command-line scripts that read or rewrite the whole log in one query. */
export const SCRIPT_DATABASE_TIMEOUT_MS = 10 * 60_000;

export interface Store {
  readonly client: MongoClient;
  readonly db: Db;
  /** FerretDB's embedded PostgreSQL, when the database is kept there: whole-log reads go to it (`ferretdb-tables.ts`). */
  readonly postgres?: PostgresConnection;
  close(): Promise<void>;
}

/** One collection's index, declared next to the code that queries it. */
export interface IndexSpec extends IndexDescription {
  collection: string;
  /** Named, so start-up can tell which indexes exist already. */
  name: string;
}

export interface StoreOptions {
  /** Overrides the database named by the URI. */
  databaseName?: string;
  /** FerretDB's embedded PostgreSQL, when the database is kept there (`Store.postgres`). */
  postgres?: PostgresConnection;
  /**
   * The bound on finding a server, connecting, waiting for a pooled connection, and on a
   * heartbeat; an unresponsive server is noticed within about this long, and operations in
   * flight fail then. A single round trip to a server that still answers may take several times
   * longer, and cursors are bounded per batch, so a long export streams for as long as it needs.
   */
  timeoutMs?: number;
  /** Told every command the service sends (the driver's command monitoring): the test run's index check, the benchmark's counts. */
  onCommand?: (event: CommandStartedEvent) => void;
}

/**
 * What every connection reads and writes with, on a replica set what the service's promises rest
 * on: a write answered as stored is held by a majority, so no failover rolls it back (unless the
 * URI names a weaker `w` its operator accepted: `loadConfig`); every read sees only what a
 * majority holds, so no event is seen that a failover later rolls back and no position is seen
 * and then reused; reads go to the primary, which has every acknowledged write; a write or read
 * whose connection broke is sent once more (retryable writes carry a transaction number, so the
 * server applies a write once). A standalone server and FerretDB take the same options.
 */
const DURABILITY = { readConcernLevel: 'majority', readPreference: 'primary', retryWrites: true, retryReads: true } as const;

/** Connects to `uri`; the database is the URI's path, or `cms`, unless `databaseName` is given. */
export async function openStore(uri: string, options: StoreOptions = {}): Promise<Store> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const namesWriteConcern = [...new ConnectionString(uri).searchParams.keys()].some((key) => key.toLowerCase() === 'w');
  const client = new MongoClient(uri, {
    ...DURABILITY,
    ...(namesWriteConcern ? {} : { writeConcern: { w: 'majority' as const } }),
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    waitQueueTimeoutMS: timeoutMs,
    // The driver's floor: a frozen or dead server is noticed within half a second plus the
    // heartbeat's own bound (connectTimeoutMS), and a restarted one is found as soon.
    heartbeatFrequencyMS: 500,
    socketTimeoutMS: Math.max(timeoutMs * ROUND_TRIP_BACKSTOP_FACTOR, MIN_ROUND_TRIP_BACKSTOP_MS),
    monitorCommands: options.onCommand !== undefined,
  });
  if (options.onCommand) client.on('commandStarted', options.onCommand);
  await client.connect();
  const db = client.db(options.databaseName ?? databaseFromUri(uri));
  return { client, db, ...(options.postgres ? { postgres: options.postgres } : {}), close: () => client.close() };
}

export function databaseFromUri(uri: string): string {
  const name = new ConnectionString(uri).pathname.replace(/^\//, '');
  return name || DEFAULT_DATABASE;
}

/** Every collection's built-in index: declared only so that the embedded database's bridge serves it (index-bridge.ts), never created. */
export const ID_INDEX_NAME = '_id_';

/**
 * Creates the indexes that do not exist yet, one at a time: FerretDB 1.24 drops the connection
 * when one `createIndexes` command names several indexes that already exist.
 */
export async function ensureIndexes(db: Db, specs: readonly IndexSpec[]): Promise<void> {
  const existing = new Map<string, Set<string>>();
  for (const { collection, ...index } of specs) {
    if (index.name === ID_INDEX_NAME) continue;
    if (!existing.has(collection)) {
      const names = await db.collection(collection).listIndexes().toArray().catch(() => []);
      existing.set(collection, new Set(names.map((described) => String(described.name))));
    }
    if (existing.get(collection)!.has(index.name)) continue;
    try {
      await db.collection(collection).createIndexes([index]);
    } catch (error) {
      // FerretDB 1.24 has no TTL indexes ("Index option expireAfterSeconds is not implemented
      // yet"): where one is declared, its readers take expired documents for absent and delete them.
      if (index.expireAfterSeconds !== undefined && isNotImplemented(error)) continue;
      throw error;
    }
  }
}

/** MongoDB's `NotImplemented` (238), FerretDB's answer to an option it does not have. */
const isNotImplemented = (error: unknown): boolean => error instanceof MongoServerError && error.code === 238;

/** Whether the database answers a ping within `timeoutMs` (a frozen server never answers). */
export async function isDatabaseUp(db: Db, timeoutMs = 1500): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const pinged = db.command({ ping: 1 }).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([pinged, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a write was refused by a unique index. MongoDB says so with code 11000 (11001 on old
 * servers), and so does FerretDB 1.24 on an insert; on an update it answers code 1 with
 * PostgreSQL's unique-violation SQLSTATE (23505) in its message, the only sign of it there is.
 */
export function isDuplicateKey(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 11000 || code === 11001) return true;
  return error instanceof MongoServerError && code === 1 && /\(SQLSTATE 23505\)/.test(error.errmsg ?? '');
}

/**
 * The first row a bulk write (or a single insert) was refused for a duplicate key: its `index` in
 * the batch, when the server says it (an ordered write stored the rows before it). Undefined when
 * the write failed otherwise.
 */
export function duplicateKeyRefusal(error: unknown): { index?: number } | undefined {
  const refused = (error as { writeErrors?: WriteError | WriteError[] } | null)?.writeErrors;
  const first = Array.isArray(refused) ? refused[0] : refused;
  if (!isDuplicateKey(error) && !isDuplicateKey(first)) return undefined;
  return { index: first?.index };
}

// Server errors that mean "not now", not "not this": a server shutting down or stepping down.
const UNAVAILABLE_SERVER_CODES = new Set([91, 189, 10107, 11600, 11602, 13435, 13436]);
// The pool's own errors, which the driver does not export as classes: no connection could be had
// in time (every one waiting on a frozen server), or the pool is closing.
const UNAVAILABLE_POOL_ERRORS = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClosedError']);
const SOCKET_ERRORS = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT']);
/**
 * FerretDB answers a command its PostgreSQL could not run with code 1 and PostgreSQL's words: the
 * server went away under it (connection exceptions, class 08; shut down, crashed or starting,
 * 57P01-57P03), it is a standby that cannot write (25006, just after a failover), or its
 * connection broke or could not be made (pgx's own words). Each means "not now", as a primary
 * stepping down does.
 */
const POSTGRES_AWAY =
  /\(SQLSTATE (08\w{3}|57P0[123]|25006)\)|failed to connect to|conn closed|unexpected EOF|broken pipe|connection reset by peer|connection refused/;

/**
 * Whether an error says the database could not be reached or did not answer in time (so the
 * request may succeed later), as opposed to refusing the operation.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // A bulk write (`insertMany`, `bulkWrite`) wraps the error of the command it sent, a lost
  // connection or a server that is not primary, keeping it as `errorResponse`.
  if (error instanceof MongoBulkWriteError && error.errorResponse instanceof Error) return isDatabaseUnavailable(error.errorResponse);
  return (
    // A connection the server closed under a write can surface as the socket's own error
    // (EPIPE, "This socket has been ended by the other party"), not wrapped by the driver.
    SOCKET_ERRORS.has((error as NodeJS.ErrnoException | null)?.code ?? '') ||
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    (error instanceof MongoError && UNAVAILABLE_POOL_ERRORS.has(error.name)) ||
    (error instanceof MongoServerError && typeof error.code === 'number' && UNAVAILABLE_SERVER_CODES.has(error.code)) ||
    (error instanceof MongoServerError && error.code === 1 && POSTGRES_AWAY.test(error.errmsg ?? ''))
  );
}

/** The bound a store was opened with (`StoreOptions.timeoutMs`), as its driver holds it. */
export const databaseTimeoutOf = (db: Db): number => db.client.options.serverSelectionTimeoutMS;

/**
 * Reads back what a failed write may have stored: `read` is tried again while the database is
 * unavailable, until `READ_BACK_TIMEOUTS` database timeouts after `sentAt` (`performance.now()`
 * when the write was first sent); then its error is thrown. A database that answers again before
 * then is found by the read in flight (server selection waits for it), so the write is resolved
 * as soon as it can be; the last read may end one timeout past the bound.
 */
export async function readBack<T>(db: Db, sentAt: number, read: () => Promise<T>): Promise<T> {
  const deadline = sentAt + READ_BACK_TIMEOUTS * databaseTimeoutOf(db);
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || performance.now() >= deadline) throw error;
      await delay(Math.min(READ_BACK_PAUSE_MS, deadline - performance.now()));
    }
  }
}

/** Whether a write that met an unavailable database may still be sent again: within `readBack`'s bound. */
export const mayWriteAgain = (db: Db, sentAt: number): boolean => performance.now() < sentAt + READ_BACK_TIMEOUTS * databaseTimeoutOf(db);
