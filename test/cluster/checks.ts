import { type Db } from 'mongodb';
import { VOID_EVENT } from '../../src/store/log/change-log.js';
import { type WriteRecord } from '../faults/load.js';
import { AUTHORIZATION } from '../faults/service.js';
import { checkLog } from '../faults/verify.js';
import { type RestoreRecord } from './restores.js';
import { sleep } from './processes.js';

interface EventRow {
  stream: number;
  seq: number;
  position?: number;
  type: string;
  data: string;
}

const MARKER = /\b[a-z]\d+-\d+-[0-9a-f]{8}\b/g;
/** The events that carry what one write sent (a restore copies an older state: it is counted apart). */
const WRITING_TYPES = new Set(['created', 'updated', 'autosaved']);

const readEvents = (db: Db) =>
  db.collection<EventRow>('events').find({}, { projection: { _id: 0, stream: 1, seq: 1, position: 1, type: 1, data: 1 } }).toArray();

/**
 * Every write answered 2xx is in the log, once: its marker in exactly one event (a retried
 * create or update that was applied twice shows it in two); none answered with an error is in
 * it; restores are counted per item.
 */
export async function checkWritesOnce(db: Db, records: readonly WriteRecord[], restores: readonly RestoreRecord[]): Promise<{ lost: string[]; twice: string[]; committedErrors: string[] }> {
  const found = await checkLog(db, records);
  const rows = await readEvents(db);
  const carriers = new Map<string, string[]>();
  const restored = new Map<number, number>();
  for (const row of rows) {
    if (row.type === VOID_EVENT || row.stream <= 0) continue;
    if (row.type === 'restored') restored.set(row.stream, (restored.get(row.stream) ?? 0) + 1);
    if (!WRITING_TYPES.has(row.type)) continue;
    for (const marker of new Set(row.data.match(MARKER) ?? [])) carriers.set(marker, [...(carriers.get(marker) ?? []), `${row.type} ${row.stream}:${row.seq}`]);
  }
  const twice: string[] = [];
  for (const record of records) {
    if (record.outcome !== 'acknowledged' || !record.marker) continue;
    const events = carriers.get(record.marker) ?? [];
    if (events.length > 1) twice.push(`${record.kind} ${record.marker} answered ${record.status} is in ${events.length} events: ${events.join(', ')}`);
  }
  const lost = [...found.lost];
  const committedErrors = [...found.committedErrors];
  const byItem = new Map<number, RestoreRecord[]>();
  for (const record of restores) byItem.set(record.id, [...(byItem.get(record.id) ?? []), record]);
  for (const [id, writes] of byItem) {
    const acknowledged = writes.filter((w) => w.outcome === 'acknowledged').length;
    const unanswered = writes.filter((w) => w.outcome === 'unanswered').length;
    const logged = restored.get(id) ?? 0;
    if (logged < acknowledged) lost.push(`restore of ${id}: ${acknowledged} acknowledged, ${logged} restored events in the log`);
    if (logged > acknowledged + unanswered) {
      const refused = writes.filter((w) => w.outcome === 'refused').map((w) => `${w.status} ${w.code}`);
      committedErrors.push(`restore of ${id}: ${logged} in the log, ${acknowledged} acknowledged, ${unanswered} unanswered, refused: ${refused.join(', ')}`);
    }
  }
  return { lost, twice, committedErrors };
}

/** No position taken twice, no (item, seq) twice, no item created twice, no id answered to two creates. */
export async function checkNothingReused(db: Db, records: readonly WriteRecord[]): Promise<string[]> {
  const rows = await readEvents(db);
  const failures: string[] = [];
  const positions = new Map<number, string>();
  const seqs = new Set<string>();
  const creations = new Map<number, number>();
  for (const row of rows) {
    const name = `${row.type} ${row.stream}:${row.seq}`;
    if (row.position === undefined) {
      if (row.stream > 0) failures.push(`${name} has no position`);
    } else if (positions.has(row.position)) {
      failures.push(`position ${row.position} taken by ${positions.get(row.position)} and ${name}`);
    } else positions.set(row.position, name);
    if (row.stream > 0) {
      const key = `${row.stream}:${row.seq}`;
      if (seqs.has(key)) failures.push(`item ${row.stream} seq ${row.seq} twice`);
      seqs.add(key);
      if (row.type === 'created') creations.set(row.stream, (creations.get(row.stream) ?? 0) + 1);
    }
  }
  for (const [id, count] of creations) if (count > 1) failures.push(`item ${id} created ${count} times`);
  const answered = new Map<number, string>();
  for (const record of records) {
    if (record.kind !== 'create' || record.outcome !== 'acknowledged' || record.id === undefined) continue;
    const other = answered.get(record.id);
    if (other) failures.push(`id ${record.id} answered to two creates: ${other} and ${record.marker}`);
    answered.set(record.id, record.marker ?? '?');
  }
  return failures;
}

interface FeedChange {
  position: number;
  item: number;
  seq: number;
  type: string;
}

/** Reads the whole change feed through `siteUrl`, page after page, as the administrator. */
async function readFeed(siteUrl: string): Promise<FeedChange[]> {
  const changes: FeedChange[] = [];
  let since = 0;
  for (let page = 0; page < 1000; page++) {
    const answer = await fetch(`${siteUrl}/cms-json/cms/v2/changes?since=${since}&limit=500`, { headers: { Authorization: AUTHORIZATION }, signal: AbortSignal.timeout(30_000) });
    const body = (await answer.json()) as { changes?: FeedChange[]; last_position?: number; code?: string };
    if (!answer.ok || !body.changes) throw new Error(`the feed answered ${answer.status} ${body.code ?? ''} at since=${since}`);
    changes.push(...body.changes);
    if (body.last_position === undefined || body.last_position <= since) break;
    since = body.last_position;
  }
  return changes;
}

/**
 * The feed replayed from position 0 equals the log's events in position order (position, item,
 * seq, type). Read again for up to `timeoutMs` while a change may still be projecting.
 */
export async function checkFeed(siteUrl: string, db: Db, timeoutMs = 10_000): Promise<{ failures: string[]; changes: number }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const rows = (await readEvents(db)).filter((row) => row.stream > 0 && row.type !== VOID_EVENT).sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
    let feed: FeedChange[];
    try {
      feed = await readFeed(siteUrl);
    } catch (error) {
      if (performance.now() > deadline) return { failures: [(error as Error).message], changes: 0 };
      await sleep(500);
      continue;
    }
    const logged = rows.map((row) => `${row.position} ${row.stream}:${row.seq} ${row.type}`);
    const fed = feed.map((change) => `${change.position} ${change.item}:${change.seq} ${change.type}`);
    const failures: string[] = [];
    if (fed.length !== logged.length) failures.push(`the feed has ${fed.length} changes, the log ${logged.length} events`);
    const at = fed.findIndex((line, i) => line !== logged[i]);
    if (at >= 0) failures.push(`first difference at change ${at}: feed ${fed[at]}, log ${logged[at] ?? 'nothing'}`);
    else if (fed.length < logged.length) failures.push(`the feed stops before ${logged[fed.length]}`);
    const sorted = feed.every((change, i) => i === 0 || change.position > feed[i - 1].position);
    if (!sorted) failures.push('the feed is not in strictly increasing position order');
    if (failures.length === 0 || performance.now() > deadline) return { failures, changes: fed.length };
    await sleep(500);
  }
}

interface ListedPost {
  id: number;
  status: string;
  modified_gmt: string;
  title: { raw?: string };
}

/** A node's whole list of posts (every status but trash), by id, as the administrator. */
async function listOn(url: string): Promise<string[]> {
  const lines: string[] = [];
  for (let page = 1; page < 100; page++) {
    const answer = await fetch(`${url}/cms-json/cms/v2/posts?status=any&context=edit&orderby=id&order=asc&per_page=100&page=${page}&_fields=id,status,modified_gmt,title`, {
      headers: { Authorization: AUTHORIZATION },
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await answer.json()) as ListedPost[] | { code?: string };
    if (!answer.ok || !Array.isArray(body)) throw new Error(`answered ${answer.status} ${(body as { code?: string }).code ?? ''}`);
    lines.push(...body.map((post) => `${post.id} ${post.status} ${post.modified_gmt} ${post.title.raw ?? ''}`));
    if (page >= Number(answer.headers.get('x-wp-totalpages') ?? 1)) break;
  }
  return lines;
}

/**
 * Every node lists the same posts, with the same status, date and title, as the database's
 * projection holds: read again for up to `timeoutMs` (a node's kept list looks at the log at
 * least once a second, and waits out an unfinished position for five).
 */
export async function checkLists(nodes: readonly { name: string; url: string }[], db: Db, timeoutMs = 12_000): Promise<{ failures: string[]; items: number }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const truth = (await db.collection<{ _id: number; type: string; status: string }>('posts').find({ type: 'post' }, { projection: { _id: 1, status: 1 } }).toArray())
      .filter((doc) => doc.status !== 'trash' && doc.status !== 'auto-draft')
      .map((doc) => doc._id)
      .sort((a, b) => a - b);
    const failures: string[] = [];
    const lists: { name: string; lines: string[] }[] = [];
    for (const node of nodes) {
      try {
        lists.push({ name: node.name, lines: await listOn(node.url) });
      } catch (error) {
        failures.push(`${node.name}: ${(error as Error).message}`);
      }
    }
    const [first, ...others] = lists;
    if (first) {
      const ids = first.lines.map((line) => Number(line.split(' ')[0]));
      if (ids.join(',') !== truth.join(',')) {
        const missing = truth.filter((id) => !ids.includes(id));
        const extra = ids.filter((id) => !truth.includes(id));
        failures.push(`${first.name} lists ${ids.length} posts, the database holds ${truth.length}: missing ${missing.slice(0, 5).join(', ') || 'none'}, not there ${extra.slice(0, 5).join(', ') || 'none'}`);
      }
      for (const other of others) {
        if (other.lines.join('\n') === first.lines.join('\n')) continue;
        const at = other.lines.findIndex((line, i) => line !== first.lines[i]);
        const index = at < 0 ? first.lines.length : at;
        failures.push(`${other.name} differs from ${first.name} (${other.lines.length} and ${first.lines.length} posts), first at: ${other.name} "${other.lines[index] ?? 'nothing'}", ${first.name} "${first.lines[index] ?? 'nothing'}"`);
      }
    }
    if (failures.length === 0 || performance.now() > deadline) return { failures, items: first?.lines.length ?? 0 };
    await sleep(500);
  }
}
