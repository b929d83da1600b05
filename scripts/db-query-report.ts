// Prints every query shape the last test run saw, with the index that serves it on MongoDB and
// how the embedded database serves it (`npm run db:query-report`). `npm test` records the shapes
// and fails on any unserved one.
import fs from 'node:fs/promises';
import { type ShapeReport } from '../src/store/queries/query-shapes.js';

const REPORT = '.cache/query-report.json';
const rows = await fs.readFile(REPORT, 'utf8').then(
  (text) => JSON.parse(text) as ShapeReport[],
  () => undefined,
);
if (!rows) {
  console.error(`No query report yet: run npm test first (it writes ${REPORT}).`);
  process.exit(1);
}
const width = Math.max(...rows.map((row) => row.shape.length));
for (const row of rows) {
  const mongodb = row.index ?? 'NOT SERVED';
  const embedded = row.embedded ?? 'decodes more than it answers';
  console.log(`${row.shape.padEnd(width)}  MongoDB: ${mongodb}; embedded: ${embedded}${row.allowed ? `; allowed: ${row.allowed}` : ''}`);
}
const served = rows.filter((row) => row.index).length;
const embedded = rows.filter((row) => row.embedded).length;
console.log(`\n${rows.length} shapes: ${served} served by an index on MongoDB, ${embedded} at the cost of their answer on the embedded database; the rest allowed scans or unserved`);
