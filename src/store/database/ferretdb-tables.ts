import { ObjectId } from 'mongodb';
import { psql, psqlLines, sqlIdentifier, sqlLiteral, type PostgresConnection } from './postgresql.js';

/**
 * FerretDB 1.24's own tables in the embedded PostgreSQL, read without FerretDB.
 *
 * FerretDB keeps a collection's documents in one table of the schema named like the database, a
 * document a row whose `_jsonb` column holds its values beside a schema naming each value's BSON
 * type (its `sjson` encoding). Reading a whole collection through FerretDB costs about 100 µs a
 * row of its own decoding; PostgreSQL prints the same rows, in an order one of FerretDB's btree
 * indexes serves, about ten times as fast. The index bridge names tables here too.
 */

/** Where FerretDB names each collection's table, in the schema named like the database. */
const METADATA_TABLE = '_ferretdb_database_metadata';

/** Each collection of the database `schema` that has a table, with its table. */
export async function ferretDbTables(postgres: PostgresConnection, schema: string): Promise<Map<string, string>> {
  const rows = await psql(postgres, `SELECT _jsonb->>'_id', _jsonb->>'table' FROM ${sqlIdentifier(schema)}.${sqlIdentifier(METADATA_TABLE)};`);
  return new Map(rows.map(([collection, table]) => [collection!, table!]));
}

/** A top-level field of a stored document, as PostgreSQL compares it: numbers, and dates as milliseconds, in numeric order. */
export const storedField = (field: string): string => `(_jsonb->${sqlLiteral(field)})`;
/** A number or string as a stored field holds it (a date: its milliseconds). */
export const storedValue = (value: number | string): string => `${sqlLiteral(JSON.stringify(value))}::jsonb`;

export interface TableRead {
  /** SQL conditions on `storedField`s, all of which a row meets. */
  where?: string[];
  /** `storedField`s: an order one of the collection's indexes keeps, or PostgreSQL sorts the whole answer first. */
  orderBy: string[];
}

/** The documents of `collection` in `schema` that `read` selects, in its order, decoded as the driver would give them. */
export async function* readTable<T = Record<string, unknown>>(postgres: PostgresConnection, schema: string, collection: string, read: TableRead): AsyncGenerator<T> {
  const table = (await ferretDbTables(postgres, schema)).get(collection);
  // FerretDB makes the table with the collection's first document or index.
  if (table === undefined) return;
  const sql = `SELECT _jsonb FROM ${sqlIdentifier(schema)}.${sqlIdentifier(table)}${whereClause(read.where)} ORDER BY ${read.orderBy.join(', ')}`;
  for await (const line of psqlLines(postgres, sql)) yield decodeStoredDocument(line) as T;
}

/** How many documents of `collection` in `schema` meet `where`, counted by PostgreSQL. */
export async function countTable(postgres: PostgresConnection, schema: string, collection: string, where: string[] = []): Promise<number> {
  const table = (await ferretDbTables(postgres, schema)).get(collection);
  if (table === undefined) return 0;
  const [[count]] = await psql(postgres, `SELECT count(*) FROM ${sqlIdentifier(schema)}.${sqlIdentifier(table)}${whereClause(where)};`);
  return Number(count);
}

const whereClause = (where: string[] = []) => (where.length ? ` WHERE ${where.join(' AND ')}` : '');

export interface FieldsRead {
  /** `storedField`s, each printed as stored (a date: its milliseconds). */
  fields: string[];
  where?: string[];
  /** The rows whose `distinctOn` first comes in `orderBy`'s order, one for each value. */
  distinctOn?: string;
  orderBy: string[];
}

/**
 * Some top-level fields of the rows `read` selects, each row as the list of its values, read
 * without decoding whole documents: what a pass over a whole collection needs of it.
 */
export async function* readFields(postgres: PostgresConnection, schema: string, collection: string, read: FieldsRead): AsyncGenerator<unknown[]> {
  const table = (await ferretDbTables(postgres, schema)).get(collection);
  if (table === undefined) return;
  const distinct = read.distinctOn ? `DISTINCT ON (${read.distinctOn}) ` : '';
  const sql = `SELECT ${distinct}jsonb_build_array(${read.fields.join(', ')}) FROM ${sqlIdentifier(schema)}.${sqlIdentifier(table)}${whereClause(read.where)} ORDER BY ${read.orderBy.join(', ')}`;
  for await (const line of psqlLines(postgres, sql)) yield JSON.parse(line) as unknown[];
}

interface StoredSchema {
  p: Record<string, StoredType>;
  $k: string[];
}
interface StoredType {
  t: string;
  $s?: StoredSchema;
  i?: StoredType[];
}

/**
 * One row's `_jsonb`, as FerretDB 1.24 writes it (`internal/handler/sjson`): `{"$s": {"$k": [keys
 * in order], "p": {key: type}}, key: value…}`, a nested document with its own `$s` in its type and
 * an array with its items' types (`i`). Types this service never stores (binary data, regular
 * expressions, timestamps) are refused rather than guessed at.
 */
export function decodeStoredDocument(text: string): Record<string, unknown> {
  const stored = JSON.parse(text) as Record<string, unknown> & { $s: StoredSchema };
  return decodeDocument(stored, stored.$s);
}

function decodeDocument(values: Record<string, unknown>, schema: StoredSchema): Record<string, unknown> {
  // Keys may be clients' (meta): kept off any prototype.
  const document = Object.create(null) as Record<string, unknown>;
  for (const key of schema.$k) document[key] = decodeValue(values[key], schema.p[key]!);
  return document;
}

function decodeValue(value: unknown, type: StoredType): unknown {
  switch (type.t) {
    case 'object':
      return decodeDocument(value as Record<string, unknown>, type.$s!);
    case 'array':
      return (value as unknown[]).map((item, index) => decodeValue(item, type.i![index]!));
    case 'date':
      return new Date(value as number);
    case 'objectId':
      return ObjectId.createFromHexString(value as string);
    case 'string':
    case 'int':
    case 'long':
    case 'double':
    case 'bool':
    case 'null':
      return value;
    default:
      throw new Error(`A stored value of FerretDB's type ${JSON.stringify(type.t)} cannot be read from PostgreSQL directly`);
  }
}
