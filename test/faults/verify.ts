import { execFile } from 'node:child_process';
import { isDeepStrictEqual, promisify } from 'node:util';
import { type Db, type MongoClient } from 'mongodb';
import { VOID_EVENT } from '../../src/store/log/change-log.js';
import { type WriteRecord } from './load.js';

interface EventRow {
  stream: number;
  seq: number;
  type: string;
  data: string;
}

/** What the log says about the writes the load was told about. */
export interface LogFindings {
  /** Writes answered 2xx that the log does not hold. */
  lost: string[];
  /** Writes answered with an error that the log holds all the same. */
  committedErrors: string[];
  /** Items deleted with `force=true` whose content the log still holds. */
  unerased: string[];
}

const MARKER = /\b[a-z]\d+-\d+-[0-9a-f]{8}\b/g;

/** Reads the whole log and checks every recorded write against it. */
export async function checkLog(db: Db, records: readonly WriteRecord[]): Promise<LogFindings> {
  const rows = await db.collection<EventRow>('events').find({}, { projection: { _id: 0, stream: 1, seq: 1, type: 1, data: 1 } }).toArray();
  const markers = new Set<string>();
  // Where a marker is still content (a slug made from a title keeps the title's words; it is not content).
  const inContent = new Map<string, { stream: number; type: string }>();
  const types = new Map<number, string[]>();
  for (const row of rows) {
    // A position no event took (a lost race's, or one a reader waited out): no write of any request.
    if (row.type === VOID_EVENT) continue;
    for (const marker of row.data.match(MARKER) ?? []) markers.add(marker);
    for (const marker of contentOf(row.data).match(MARKER) ?? []) inContent.set(marker, { stream: row.stream, type: row.type });
    types.set(row.stream, [...(types.get(row.stream) ?? []), row.type]);
  }
  const deleted = (id: number | undefined) => id !== undefined && (types.get(id) ?? []).includes('deleted');
  const count = (id: number, type: string) => (types.get(id) ?? []).filter((t) => t === type).length;
  const findings: LogFindings = { lost: [], committedErrors: [], unerased: [] };
  const describe = (record: WriteRecord) =>
    `${record.kind} of ${record.id ?? 'a new item'}${record.marker ? ` (${record.marker})` : ''} answered ${record.status ?? 'nothing'}${record.code ? ` ${record.code}` : ''}`;

  for (const record of records) {
    if (!record.marker) continue;
    const found = markers.has(record.marker);
    if (record.outcome === 'acknowledged' && !found && !deleted(record.id)) findings.lost.push(describe(record));
    if (record.outcome === 'refused' && found) findings.committedErrors.push(describe(record));
  }

  // Trashes and deletes carry no marker: count them per item instead.
  const byItem = new Map<number, WriteRecord[]>();
  for (const record of records) {
    if (record.id === undefined || (record.kind !== 'trash' && record.kind !== 'delete')) continue;
    byItem.set(record.id, [...(byItem.get(record.id) ?? []), record]);
  }
  for (const [id, writes] of byItem) {
    for (const kind of ['trash', 'delete'] as const) {
      const type = kind === 'trash' ? 'trashed' : 'deleted';
      const acknowledged = writes.filter((w) => w.kind === kind && w.outcome === 'acknowledged').length;
      const unanswered = writes.filter((w) => w.kind === kind && w.outcome === 'unanswered').length;
      const logged = count(id, type);
      if (logged < acknowledged) findings.lost.push(`${kind} of ${id}: ${acknowledged} acknowledged, ${logged} in the log`);
      if (logged > acknowledged + unanswered) {
        const refused = writes.filter((w) => w.kind === kind && w.outcome === 'refused').map((w) => `${w.status} ${w.code}`);
        findings.committedErrors.push(`${kind} of ${id}: ${logged} in the log, ${acknowledged} acknowledged, ${unanswered} unanswered, refused: ${refused.join(', ')}`);
      }
    }
  }

  for (const [marker, { stream, type }] of inContent) {
    if (!deleted(stream)) continue;
    const deletes = (byItem.get(stream) ?? []).filter((w) => w.kind === 'delete').map((w) => w.status ?? 'unanswered');
    findings.unerased.push(`item ${stream} was force-deleted (answers: ${deletes.join(', ')}), its ${type} event still holds ${marker}`);
  }
  return findings;
}

const CONTENT_FIELDS = ['title', 'content', 'excerpt'];

/** The content fields of an event's data, as one string. */
function contentOf(data: string): string {
  const parsed = JSON.parse(data) as { fields?: Record<string, unknown>; changes?: Record<string, unknown> };
  return [parsed.fields, parsed.changes]
    .flatMap((record) => CONTENT_FIELDS.map((field) => record?.[field]))
    .filter((value) => typeof value === 'string')
    .join('\n');
}

/**
 * Replays a copy of the log with the repository's own rebuild (`projections:rebuild`: each
 * stream folded by its projection's `rebuildStream`, as the service's projections fold it) into a
 * scratch database on the same server, and lists the documents of `posts` and `revisions`
 * that differ from what the service keeps. The rebuild runs as a child process without blocking
 * this one: a harness that serves requests meanwhile (a proxy, a webhook receiver) keeps serving.
 */
export async function compareWithRebuild(client: MongoClient, databaseUri: string, database: string): Promise<string[]> {
  const live = client.db(database);
  const scratchName = `${database}_rebuild_check`;
  const scratch = client.db(scratchName);
  await scratch.dropDatabase();
  const events = await live.collection('events').find({}).toArray();
  for (let start = 0; start < events.length; start += 500) {
    await scratch.collection('events').insertMany(events.slice(start, start + 500));
  }
  const uri = new URL(databaseUri);
  uri.pathname = `/${scratchName}`;
  try {
    await promisify(execFile)(process.execPath, ['dist/scripts/projections-rebuild.js'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MONGODB_URI: uri.toString(), LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? (error as Error).message);
    return [`projections:rebuild failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`];
  }

  const differences: string[] = [];
  for (const name of ['posts', 'revisions']) {
    const kept = await live.collection(name).find({}).sort({ _id: 1 }).toArray();
    const replayed = await scratch.collection(name).find({}).sort({ _id: 1 }).toArray();
    const byId = new Map(replayed.map((doc) => [String(doc._id), doc]));
    for (const doc of kept) {
      const other = byId.get(String(doc._id));
      byId.delete(String(doc._id));
      if (!other) differences.push(`${name} ${doc._id}: kept, but not rebuilt`);
      else if (!isDeepStrictEqual(doc, other)) differences.push(`${name} ${doc._id}: ${firstDifference(doc, other)}`);
    }
    for (const id of byId.keys()) differences.push(`${name} ${id}: rebuilt, but not kept`);
  }
  await scratch.dropDatabase();
  return differences;
}

function firstDifference(kept: Record<string, unknown>, rebuilt: Record<string, unknown>): string {
  for (const key of new Set([...Object.keys(kept), ...Object.keys(rebuilt)])) {
    if (!isDeepStrictEqual(kept[key], rebuilt[key])) {
      return `${key} is ${JSON.stringify(kept[key])?.slice(0, 80)}, rebuilt ${JSON.stringify(rebuilt[key])?.slice(0, 80)}`;
    }
  }
  return 'differs';
}
