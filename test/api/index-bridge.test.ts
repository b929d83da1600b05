import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources as serviceResources } from '../../src/resources/index.js';
import { type ResourceManifest } from '../../src/resources/manifest.js';
import { bridgeIndexes, bridgeIndexName, BRIDGE_INDEX_PREFIX } from '../../src/store/queries/index-bridge.js';
import { type IndexSpec } from '../../src/store/database/mongo.js';
import { psql, type PostgresConnection } from '../../src/store/database/postgresql.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const postgres = inject('postgres');
const COLLECTION = 'bridged_things';
const ROWS = 3000;
const indexes: IndexSpec[] = [
  { collection: COLLECTION, key: { type: 1, status: 1, date: -1 }, name: 'type_status_date' },
  { collection: COLLECTION, key: { 'meta.kind': 1, type: 1 }, name: 'kind_type' },
];
interface Thing {
  _id: string;
  type: string;
  status: string;
  date: Date;
  meta: { kind: string };
}
const bridged: ResourceManifest = { routes: [], indexes };

const sqlText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The table FerretDB keeps `collection` in, in `schema`. */
async function tableOf(connection: PostgresConnection, schema: string, collection: string): Promise<string> {
  const rows = await psql(connection, `SELECT _jsonb->>'table' FROM "${schema}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = ${sqlText(collection)};`);
  return rows[0]![0]!;
}

async function bridgeIndexesOf(connection: PostgresConnection, schema: string, table: string): Promise<string[]> {
  const rows = await psql(
    connection,
    `SELECT indexname FROM pg_indexes WHERE schemaname = ${sqlText(schema)} AND tablename = ${sqlText(table)} AND starts_with(indexname, '${BRIDGE_INDEX_PREFIX}') ORDER BY 1;`,
  );
  return rows.map(([name]) => name!);
}

/**
 * The plan of the statement FerretDB runs for an equality filter, prepared as its driver prepares
 * it (`_jsonb->$1 @> $2`, the field and the value as parameters) and planned seven times: from the
 * sixth on, PostgreSQL may switch to a generic plan, which sees no field name. `before` runs first
 * in the same session (a `SET`).
 */
async function planOfFilter(connection: PostgresConnection, where: { schema: string; table: string }, field: string, value: unknown, before = ''): Promise<string> {
  const explain = `EXPLAIN EXECUTE filter(${sqlText(field)}, ${sqlText(JSON.stringify(value))});`;
  const rows = await psql(
    connection,
    [
      before,
      `PREPARE filter AS SELECT _jsonb FROM "${where.schema}"."${where.table}" WHERE _jsonb->$1 @> $2;`,
      '\\o /dev/null',
      ...Array.from({ length: 6 }, () => explain),
      '\\o',
      explain,
    ].join('\n'),
  );
  return rows.map((row) => row.join(' ')).join('\n');
}

describe.skipIf(!postgres)('the index bridge (on FerretDB over the embedded PostgreSQL only: skipped on any other database)', () => {
  const connection = postgres!;
  let app: TestApp;
  let table: string;
  const where = () => ({ schema: app.databaseName, table });
  beforeAll(async () => {
    app = await createTestApp({ resources: [...serviceResources, bridged] });
    table = await tableOf(connection, app.databaseName, COLLECTION);
    const documents = Array.from({ length: ROWS }, (_, n) => ({
      _id: `thing-${String(n).padStart(5, '0')}`,
      type: `type-${n % 30}`,
      status: `status-${n % 7}`,
      date: new Date(Date.UTC(2024, 0, 1) + n * 60_000),
      meta: { kind: `kind-${n % 3}` },
    }));
    await app.deps.store.db.collection<Thing>(COLLECTION).insertMany(documents);
  }, 120_000);
  afterAll(() => app?.stop());

  it('plans each execution of a statement with its values', async () => {
    expect(await psql(connection, 'SHOW plan_cache_mode;')).toEqual([['force_custom_plan']]);
    // What the setting avoids: a plan for any values is a sequential scan.
    const generic = await planOfFilter(connection, where(), '_id', 'thing-01234', 'SET plan_cache_mode = force_generic_plan;');
    expect(generic).toContain('Seq Scan');
  });

  it("gives each declared index's top-level fields, and _id, a GIN index in FerretDB's table; not dotted paths", async () => {
    const expected = ['_id', 'type', 'status', 'date'].map((field) => bridgeIndexName(COLLECTION, table, field)).sort();
    expect(await bridgeIndexesOf(connection, app.databaseName, table)).toEqual(expected);
    const [[definition]] = await psql(connection, `SELECT indexdef FROM pg_indexes WHERE indexname = ${sqlText(bridgeIndexName(COLLECTION, table, 'type'))};`);
    expect(definition).toContain(`USING gin (((_jsonb -> 'type'::text)) jsonb_path_ops)`);
  });

  it('makes the equality filter FerretDB pushes down an index scan', async () => {
    const byId = await planOfFilter(connection, where(), '_id', 'thing-01234');
    expect(byId).toContain(`Bitmap Index Scan on ${bridgeIndexName(COLLECTION, table, '_id')}`);
    expect(byId).not.toContain('Seq Scan');
    const byType = await planOfFilter(connection, where(), 'type', 'type-7');
    expect(byType).toContain(`Bitmap Index Scan on ${bridgeIndexName(COLLECTION, table, 'type')}`);
  });

  it('answers through the driver as without it', async () => {
    const things = app.deps.store.db.collection<Thing>(COLLECTION);
    expect(await things.findOne({ _id: 'thing-01234' })).toMatchObject({ _id: 'thing-01234', type: 'type-4', status: 'status-2' });
    const matching = await things.find({ type: 'type-7', status: 'status-3' }).toArray();
    // n % 30 = 7 and n % 7 = 3: n = 157 + 210k.
    expect(matching.map(({ _id }) => _id).sort()).toEqual(
      Array.from({ length: ROWS }, (_, n) => n).filter((n) => n % 30 === 7 && n % 7 === 3).map((n) => `thing-${String(n).padStart(5, '0')}`),
    );
  });

  it('drops the indexes of a field no declared index names any more, and makes a table for a new collection first', async () => {
    const db = app.deps.store.db;
    const narrowed: IndexSpec[] = [
      ...serviceResources.flatMap((resource) => resource.indexes ?? []),
      { collection: COLLECTION, key: { type: 1 }, name: 'type' },
      { collection: 'bridged_new', key: { slug: 1 }, name: 'slug' },
    ];
    const changes = await bridgeIndexes(connection, db, narrowed);
    expect([...changes.dropped].sort()).toEqual(['status', 'date'].map((field) => bridgeIndexName(COLLECTION, table, field)).sort());
    const newTable = await tableOf(connection, app.databaseName, 'bridged_new');
    expect([...changes.created].sort()).toEqual(['_id', 'slug'].map((field) => bridgeIndexName('bridged_new', newTable, field)).sort());
    expect(await bridgeIndexesOf(connection, app.databaseName, table)).toEqual(['_id', 'type'].map((field) => bridgeIndexName(COLLECTION, table, field)).sort());

    // Once in line, nothing changes.
    expect(await bridgeIndexes(connection, db, narrowed)).toEqual({ created: [], dropped: [] });
  });
});
