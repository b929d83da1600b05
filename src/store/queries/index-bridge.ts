import { createHash } from 'node:crypto';
import { MongoServerError, type Db } from 'mongodb';
import { ensureIndexes, type IndexSpec } from '../database/mongo.js';
import { ferretDbTables } from '../database/ferretdb-tables.js';
import { psql, sqlIdentifier as identifier, sqlLiteral as literal, type PostgresConnection } from '../database/postgresql.js';

/**
 * The index bridge: indexes FerretDB 1.24 cannot make use of, made for it in its PostgreSQL.
 *
 * FerretDB pushes down equality on a top-level field as `_jsonb->$1 @> $2`, and its own indexes
 * are btree on `(_jsonb->'field')`, which cannot serve `@>`: every read is a sequential scan. A
 * GIN expression index on `(_jsonb->'field')` in FerretDB's own table serves that filter once the
 * plan is made for the statement's values (`plan_cache_mode`, postgresql.ts). So each declared
 * index's top-level fields, and `_id`, get one (dotted paths are never pushed down). FerretDB
 * does not know of them: it neither lists nor drops them, and they go with the table.
 */

/** Every bridge index's name starts so, and the bridge drops no other. */
export const BRIDGE_INDEX_PREFIX = 'cms_gin_';
/** PostgreSQL's longest identifier (NAMEDATALEN - 1). */
const MAX_NAME_LENGTH = 63;
/** MongoDB's NamespaceExists: another process created the collection first. */
const NAMESPACE_EXISTS = 48;

export interface BridgeChanges {
  readonly created: readonly string[];
  readonly dropped: readonly string[];
}

/**
 * Creates the declared indexes that do not exist yet, then, when FerretDB keeps the data in the
 * embedded PostgreSQL (`postgres`), brings the bridge in line with them. Start-up and
 * `npm run db:indexes` run this.
 */
export async function ensureDeclaredIndexes(
  db: Db,
  specs: readonly IndexSpec[],
  postgres: PostgresConnection | undefined,
): Promise<BridgeChanges> {
  await ensureIndexes(db, specs);
  return postgres ? bridgeIndexes(postgres, db, specs) : { created: [], dropped: [] };
}

/**
 * Creates the bridge indexes `specs` call for in `db`'s schema and drops the bridge's others
 * (those of a field no declared index names any more). Collections without a table yet are
 * created first, through FerretDB, which alone names tables. Each statement runs and commits on
 * its own, one after another.
 */
export async function bridgeIndexes(postgres: PostgresConnection, db: Db, specs: readonly IndexSpec[]): Promise<BridgeChanges> {
  const schema = db.databaseName;
  const fields = bridgedFields(specs);
  const tables = await tablesOf(postgres, db, [...fields.keys()]);
  const wanted = new Map<string, { table: string; field: string }>();
  for (const [collection, names] of fields) {
    const table = tables.get(collection)!;
    for (const field of names) wanted.set(bridgeIndexName(collection, table, field), { table, field });
  }
  const existing = await psql(
    postgres,
    `SELECT indexname FROM pg_indexes WHERE schemaname = ${literal(schema)} AND starts_with(indexname, ${literal(BRIDGE_INDEX_PREFIX)});`,
  ).then((rows) => new Set(rows.map(([name]) => name!)));
  const dropped = [...existing].filter((name) => !wanted.has(name));
  const created = [...wanted.keys()].filter((name) => !existing.has(name));
  // A new expression index has no statistics until the table is analyzed: until then the planner
  // guesses how many rows each value matches, and may intersect a filter's every index, the
  // least selective too (an author's every revision), instead of reading the most selective one.
  const analyzed = [...new Set(created.map((name) => wanted.get(name)!.table))];
  const statements = [
    ...dropped.map((name) => `DROP INDEX IF EXISTS ${identifier(schema)}.${identifier(name)};`),
    ...created.map((name) => createStatement(schema, name, wanted.get(name)!)),
    ...analyzed.map((table) => `ANALYZE ${identifier(schema)}.${identifier(table)};`),
  ];
  if (statements.length) await psql(postgres, statements.join('\n'));
  return { created, dropped };
}

/** Each collection's fields to bridge: `_id`, then its declared indexes' top-level fields, once each. */
export function bridgedFields(specs: readonly IndexSpec[]): Map<string, string[]> {
  const fields = new Map<string, Set<string>>();
  for (const spec of specs) {
    const names = fields.get(spec.collection) ?? new Set(['_id']);
    fields.set(spec.collection, names);
    const keys = spec.key instanceof Map ? [...spec.key.keys()] : Object.keys(spec.key);
    for (const key of keys) if (!key.includes('.') && !key.startsWith('$')) names.add(key);
  }
  return new Map([...fields].map(([collection, names]) => [collection, [...names]]));
}

/**
 * `cms_gin_<collection>_<field>_<hash>`, cut to PostgreSQL's 63 characters: the hash of the table
 * and the field keeps names apart in the schema, whatever the cut leaves.
 */
export function bridgeIndexName(collection: string, table: string, field: string): string {
  const hash = createHash('sha256').update(`${table}\0${field}`).digest('hex').slice(0, 8);
  const readable = `${collection}_${field}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return `${BRIDGE_INDEX_PREFIX}${readable.slice(0, MAX_NAME_LENGTH - BRIDGE_INDEX_PREFIX.length - hash.length - 1)}_${hash}`;
}

/**
 * `jsonb_path_ops` serves `@>` (the only operator FerretDB pushes down) with a smaller, faster
 * index than the default `jsonb_ops`, which also serves key-existence operators nobody sends.
 */
function createStatement(schema: string, name: string, { table, field }: { table: string; field: string }): string {
  const on = `${identifier(schema)}.${identifier(table)}`;
  return `CREATE INDEX IF NOT EXISTS ${identifier(name)} ON ${on} USING gin ((_jsonb->${literal(field)}) jsonb_path_ops);`;
}

/** Each collection's table, as FerretDB's metadata names it, creating the collections that have none. */
async function tablesOf(postgres: PostgresConnection, db: Db, collections: readonly string[]): Promise<Map<string, string>> {
  if (!collections.length) return new Map();
  const present = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map(({ name }) => name));
  for (const name of collections) {
    if (present.has(name)) continue;
    await db.createCollection(name).catch((error: unknown) => {
      if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
    });
  }
  const tables = await ferretDbTables(postgres, db.databaseName);
  const missing = collections.filter((name) => !tables.has(name));
  if (missing.length) throw new Error(`FerretDB names no table for ${missing.join(', ')} in ${db.databaseName}`);
  return tables;
}
