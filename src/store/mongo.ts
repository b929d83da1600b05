import {
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Db,
  type IndexDescription,
} from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';

export const DEFAULT_DATABASE = 'cms';

/**
 * How long one database round trip may take before the request gives up on the database
 * (`CMS_DATABASE_TIMEOUT_MS`). The driver's `timeoutMS` has no effect since driver 7, so the bound
 * is the socket's: a frozen server stops sending, and the read times out.
 */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5000;

/** The bound for command-line scripts that read or rewrite the whole log in one query. */
export const SCRIPT_DATABASE_TIMEOUT_MS = 10 * 60_000;

export interface Store {
  readonly client: MongoClient;
  readonly db: Db;
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
  /**
   * The bound on finding a server, connecting, waiting for a pooled connection, and on each
   * round trip. Cursors are bounded per batch, so a long export streams for as long as it needs.
   */
  timeoutMs?: number;
}

/** Connects to `uri`; the database is the URI's path, or `cms`, unless `databaseName` is given. */
export async function openStore(uri: string, options: StoreOptions = {}): Promise<Store> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
    waitQueueTimeoutMS: timeoutMs,
    // An unknown server is probed every half second while requests wait for it (the driver's
    // floor), so a restarted database is found again at once.
    heartbeatFrequencyMS: Math.min(timeoutMs, 10_000),
  });
  await client.connect();
  const db = client.db(options.databaseName ?? databaseFromUri(uri));
  return { client, db, close: () => client.close() };
}

export function databaseFromUri(uri: string): string {
  const name = new ConnectionString(uri).pathname.replace(/^\//, '');
  return name || DEFAULT_DATABASE;
}

/**
 * Creates the indexes that do not exist yet, one at a time: FerretDB 1.24 drops the connection
 * when one `createIndexes` command names several indexes that already exist.
 */
export async function ensureIndexes(db: Db, specs: readonly IndexSpec[]): Promise<void> {
  const existing = new Map<string, Set<string>>();
  for (const { collection, ...index } of specs) {
    if (!existing.has(collection)) {
      const names = await db.collection(collection).listIndexes().toArray().catch(() => []);
      existing.set(collection, new Set(names.map((described) => String(described.name))));
    }
    if (existing.get(collection)!.has(index.name)) continue;
    await db.collection(collection).createIndexes([index]);
  }
}

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

// Server errors that mean "not now", not "not this": a server shutting down or stepping down.
const UNAVAILABLE_SERVER_CODES = new Set([91, 189, 10107, 11600, 11602, 13435, 13436]);
// The pool's own errors, which the driver does not export as classes: no connection could be had
// in time (every one waiting on a frozen server), or the pool is closing.
const UNAVAILABLE_POOL_ERRORS = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClosedError']);

/**
 * Whether an error says the database could not be reached or did not answer in time (so the
 * request may succeed later), as opposed to refusing the operation.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    (error instanceof MongoError && UNAVAILABLE_POOL_ERRORS.has(error.name)) ||
    (error instanceof MongoServerError && typeof error.code === 'number' && UNAVAILABLE_SERVER_CODES.has(error.code))
  );
}
