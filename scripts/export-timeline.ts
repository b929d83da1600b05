// Writes the change log's timelines, one line per event, oldest first:
//   npm run export:timeline -- [--type post|page|nav_menu_item|cms_template|cms_template_part] [--id N] [--since ISO] [--format ndjson|csv] [--out FILE]
// Without --since, item by item; with it, every item's events after that instant in time order.
import fs from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import cliProgress from 'cli-progress';
import { stringify } from 'csv-stringify';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { parseRestDateGmt } from '../src/lib/site-dates.js';
import { resources } from '../src/resources/index.js';
import { projectionsOf } from '../src/resources/manifest.js';
import { countTimelineEvents, CSV_COLUMNS, csvRow, timeline, type ExportEntry, type TimelineQuery, type TimelineTypes } from '../src/resources/history/history.timeline.js';
import { startDatabaseServer } from '../src/store/database/database-server.js';
import { embeddedPostgresOf } from '../src/store/database/postgresql.js';
import { openStore, SCRIPT_DATABASE_TIMEOUT_MS } from '../src/store/database/mongo.js';
import { commandLine } from './command-line.js';

const USAGE = 'Usage: npm run export:timeline -- [--type post|page|nav_menu_item|cms_template|cms_template_part] [--id N] [--since ISO] [--format ndjson|csv] [--out FILE]';

const cli = commandLine(USAGE, {
  type: { type: 'string' },
  id: { type: 'string' },
  since: { type: 'string' },
  format: { type: 'string', default: 'ndjson' },
  out: { type: 'string' },
});
const { values } = cli;
// Annotated, so that the type checker knows a call to it ends the script.
const usageError: (message: string) => never = cli.usageError;

const projections = projectionsOf(resources);
const changeSources = resources.flatMap((resource) => resource.changeSources ?? []);
// Each history type as its resource declares it: how its streams are named, and its fields.
const historyTypes: TimelineTypes = {
  legacyTypeOf: (first) => projections.typeOf(undefined, first),
  wireNamesOf: (type) => changeSources.find((source) => source.itemTypes.includes(type))?.wireNames,
};

const query: TimelineQuery = {};
if (values.type !== undefined) {
  const historyTypes = projections.projections.flatMap((projection) => projection.streamTypes);
  if (!historyTypes.includes(values.type)) usageError(`--type must be one of ${historyTypes.join(', ')}.`);
  query.type = values.type;
}
if (values.id !== undefined) {
  if (!/^[1-9]\d*$/.test(values.id)) usageError('--id must be a positive integer.');
  query.id = Number(values.id);
}
if (values.since !== undefined) {
  // A date alone means its midnight; a time without an offset is GMT.
  const since = parseRestDateGmt(/^\d{4}-\d{2}-\d{2}$/.test(values.since) ? `${values.since}T00:00:00` : values.since);
  if (!since) usageError('--since must be an ISO 8601 date or date and time (2024-05-06, 2024-05-06T07:08:09, 2024-05-06T07:08:09+02:00).');
  query.since = since;
}
const format = values.format;
if (format !== 'ndjson' && format !== 'csv') usageError('--format must be ndjson or csv.');

const config = loadConfig(process.env);
// Standard output may carry the export, so the log goes to standard error.
const logger = pino({ level: config.logLevel === 'info' ? 'warn' : config.logLevel }, pino.destination(2));
const database = await startDatabaseServer({ ...config, logger });
const store = await openStore(database.uri, { timeoutMs: SCRIPT_DATABASE_TIMEOUT_MS });
// FerretDB's PostgreSQL, when the log is kept there: read directly, the export is ten times as fast.
const postgres = database.postgres ?? embeddedPostgresOf(process.env);
try {
  const bar = values.out
    ? new cliProgress.SingleBar(
        { stream: process.stderr, noTTYOutput: true, format: 'timeline [{bar}] {percentage}% | {value}/{total} events | ETA {eta}s' },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(await countTimelineEvents(store.db, query, postgres), 0);
  let read = 0;
  let written = 0;
  async function* entries(): AsyncGenerator<ExportEntry> {
    const onRead = () => {
      read++;
      bar?.increment();
    };
    for await (const entry of timeline(store.db, historyTypes, query, { onRead, postgres })) {
      written++;
      yield entry;
    }
  }
  async function* lines(): AsyncGenerator<string> {
    for await (const entry of entries()) yield `${JSON.stringify(entry)}\n`;
  }
  async function* rows(): AsyncGenerator<ReturnType<typeof csvRow>> {
    for await (const entry of entries()) yield csvRow(entry);
  }
  const destination: Writable = values.out ? fs.createWriteStream(values.out) : process.stdout;
  try {
    if (format === 'csv') await pipeline(Readable.from(rows()), stringify({ header: true, columns: [...CSV_COLUMNS] }), destination);
    else await pipeline(Readable.from(lines()), destination);
  } catch (error) {
    // The reader went away (`| head`): what it wanted was written.
    if ((error as { code?: string }).code !== 'EPIPE') throw error;
  }
  // The total may have been an estimate (`countTimelineEvents`).
  bar?.setTotal(read);
  bar?.stop();
  if (values.out) console.error(`Wrote ${written} events to ${values.out}.`);
} finally {
  await store.close();
  await database.stop();
}
