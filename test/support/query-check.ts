import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BSON, MongoClient, type Document } from 'mongodb';
import { resources } from '../../src/resources/index.js';
import { indexesOf } from '../../src/resources/manifest.js';
import { ensureIndexes } from '../../src/store/database/mongo.js';
import { checkShapes, describeShape, type ShapeReport } from '../../src/store/queries/query-shapes.js';
import { type RecordedShape } from './query-recorder.js';

/** The run's query report, which `npm run db:query-report` prints. */
export const QUERY_REPORT = path.join('.cache', 'query-report.json');
/** The shapes known to decode more rows than they answer with on the embedded database, each group with its reason. */
const EMBEDDED_SCANS = path.join('test', 'support', 'embedded-scans.txt');

/**
 * Every query the services under test sent must be served by a declared index on MongoDB (the
 * equality-sort-range rule), unless it reads a small collection or says it scans on purpose; on a
 * real MongoDB (`MONGODB_URI`), `explain` must also show no COLLSCAN. Writes the report, and
 * returns the failures.
 */
export async function checkQueryShapes(dir: string, mongodbUri: string | undefined): Promise<{ rows: ShapeReport[]; failures: string[] }> {
  const recorded: RecordedShape[] = [];
  for (const file of await fs.readdir(dir)) {
    for (const line of (await fs.readFile(path.join(dir, file), 'utf8')).split('\n')) if (line) recorded.push(JSON.parse(line) as RecordedShape);
  }
  // The demo resources that exercise the REST layer are the tests' own, not the service's.
  const ours = recorded.filter(({ shape }) => !shape.collection.startsWith('demo_'));
  const { rows, failures } = checkShapes(ours.map(({ shape }) => shape), indexesOf(resources), await knownEmbeddedScans());
  const problems = failures.map((row) => (row.index
    ? `the embedded database decodes rows it does not answer with for ${row.shape} (pushed-down equality on a bridged field must hold a unique key, or be the whole filter of an unlimited find, update or delete)`
    : `no declared index serves ${row.shape}`));
  if (mongodbUri && ours.length) problems.push(...(await collectionScans(mongodbUri, ours, rows)));
  await fs.mkdir(path.dirname(QUERY_REPORT), { recursive: true });
  await fs.writeFile(QUERY_REPORT, `${JSON.stringify(rows, null, 2)}\n`);
  return { rows, failures: problems };
}

/** The shapes `embedded-scans.txt` accepts though the embedded database decodes more rows than they answer with. */
async function knownEmbeddedScans(): Promise<(shape: string) => boolean> {
  const lines = (await fs.readFile(EMBEDDED_SCANS, 'utf8')).split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const shapes = new Set(lines);
  const collections = new Set(lines.filter((line) => line.endsWith(' *')).map((line) => line.slice(0, -2)));
  return (shape) => shapes.has(shape) || collections.has(shape.slice(0, shape.indexOf(' ')));
}

/** On a real MongoDB, each shape's sample command explained against the declared indexes: a COLLSCAN that is not allowed fails. */
async function collectionScans(uri: string, recorded: RecordedShape[], rows: ShapeReport[]): Promise<string[]> {
  const client = await MongoClient.connect(uri);
  try {
    const build = await client.db('admin').command({ buildInfo: 1 });
    if ('ferretdb' in build) return []; // FerretDB plans nothing with indexes: its explain says nothing here.
    const db = client.db(`query_check_${randomBytes(4).toString('hex')}`);
    try {
      await ensureIndexes(db, indexesOf(resources));
      const allowed = new Set(rows.filter((row) => row.allowed).map((row) => row.shape));
      const scans: string[] = [];
      for (const { shape, sample } of recorded) {
        if (allowed.has(describeShape(shape))) continue;
        const plan = await db.command({ explain: BSON.EJSON.parse(sample) as Document, verbosity: 'queryPlanner' });
        if (JSON.stringify(plan).includes('"COLLSCAN"')) scans.push(`explain shows COLLSCAN for ${describeShape(shape)}`);
      }
      return scans;
    } finally {
      await db.dropDatabase();
    }
  } finally {
    await client.close();
  }
}
