import { MongoClient, type Db, type IndexDescription } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';

export const DEFAULT_DATABASE = 'cms';

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

/** Connects to `uri`; the database is the URI's path, or `cms`, unless `databaseName` is given. */
export async function openStore(uri: string, databaseName?: string): Promise<Store> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  const db = client.db(databaseName ?? databaseFromUri(uri));
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

export async function isDatabaseUp(db: Db, timeoutMs = 2000): Promise<boolean> {
  try {
    await db.command({ ping: 1 }, { timeoutMS: timeoutMs });
    return true;
  } catch {
    return false;
  }
}
