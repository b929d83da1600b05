// Prints every query shape the last test run saw, with the index that serves it on MongoDB
// (`npm run db:query-report`). `npm test` records the shapes and fails on any unserved one.
import fs from 'node:fs/promises';
import { type ShapeReport } from '../src/store/query-shapes.js';

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
for (const row of rows) console.log(`${row.shape.padEnd(width)}  ${row.index ?? (row.allowed ? `scan: ${row.allowed}` : 'NOT SERVED')}`);
const served = rows.filter((row) => row.index).length;
console.log(`\n${rows.length} shapes: ${served} served by an index, ${rows.length - served} allowed scans or unserved`);
