// Reads through FerretDB on the embedded PostgreSQL before and after the index bridge
// (src/store/queries/index-bridge.ts), on one collection of `--rows` documents of about `--bytes` of text
// (base64 of random bytes: compressed by TOAST no more than prose is):
// - findOne({ _id }), a document picked at random each time;
// - find({ type, status }), a selective pair (about 25 documents at 50,000 rows), read whole.
//   npm run bench:index-bridge [-- --rows 50000 --bytes 1000 --rounds 50]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { bridgeIndexes } from '../../src/store/queries/index-bridge.js';
import { ensureIndexes, openStore, type IndexSpec } from '../../src/store/database/mongo.js';
import { psql } from '../../src/store/database/postgresql.js';
import { benchDatabase } from './service.js';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '50000' }, bytes: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '50' } },
});
const rows = Number(values.rows);
const bytes = Number(values.bytes);
const rounds = Number(values.rounds);
const TYPES = 100;
const STATUSES = 20;
const indexes: IndexSpec[] = [{ collection: 'items', key: { type: 1, status: 1, date: -1 }, name: 'type_status_date' }];

const { database, uri, stop } = await benchDatabase();
const store = await openStore(uri);
try {
  const postgres = database.postgres;
  if (!postgres) throw new Error(`the index bridge needs FerretDB on the embedded PostgreSQL; this run has ${database.description}`);
  console.log(`${database.description}, ${rows} documents of about ${bytes} bytes, ${rounds} rounds each`);
  await ensureIndexes(store.db, indexes);
  const items = store.db.collection<{ _id: string; type: string; status: string; date: Date; content: string }>('items');
  for (let start = 0; start < rows; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, rows - start) }, (_, i) => {
      const n = start + i;
      return { _id: `item-${n}`, type: `type-${n % TYPES}`, status: `status-${Math.floor(n / TYPES) % STATUSES}`, date: new Date(n * 1000), content: randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64') };
    });
    await items.insertMany(batch);
  }
  // Statistics as autovacuum would gather them on a table this size.
  await psql(postgres, 'ANALYZE;');

  const random = (below: number) => Math.floor(Math.random() * below);
  const measure = async () => ({
    findOneById: await timed(async () => {
      const id = `item-${random(rows)}`;
      if ((await items.findOne({ _id: id }))?._id !== id) throw new Error(`${id} not found`);
    }),
    findByTypeAndStatus: await timed(async () => {
      const found = await items.find({ type: `type-${random(TYPES)}`, status: `status-${random(STATUSES)}` }).toArray();
      if (!found.length) throw new Error('nothing found');
    }),
  });
  const before = await measure();
  const started = performance.now();
  const changes = await bridgeIndexes(postgres, store.db, indexes);
  const bridging = performance.now() - started;
  const after = await measure();

  console.log(`bridge: ${changes.created.length} indexes created in ${bridging.toFixed(0)} ms`);
  console.log(`${'read'.padEnd(30)} ${'before p50 / p90 ms'.padStart(22)} ${'after p50 / p90 ms'.padStart(22)}`);
  for (const name of ['findOneById', 'findByTypeAndStatus'] as const) {
    console.log(`${name.padEnd(30)} ${before[name].padStart(22)} ${after[name].padStart(22)}`);
  }
} finally {
  await store.close();
  await stop();
}

/** Runs `read` `rounds` times (after 3 unmeasured), one after another: "p50 / p90" in ms. */
async function timed(read: () => Promise<void>): Promise<string> {
  for (let i = 0; i < 3; i++) await read();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await read();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (share: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * share))]!.toFixed(1);
  return `${at(0.5)} / ${at(0.9)}`;
}
