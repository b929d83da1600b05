// The cluster suite (`npm run test:cluster [-- --clients 3] [--only 3,4]`): three nodes of the service, each
// its own process group, port and folders, behind a small round-robin proxy, on one FerretDB
// over a PostgreSQL primary with a synchronous standby, with a fault proxy in the nodes' path to
// the database. Under a mixed write load through the proxy it plays each scenario of
// scenarios.ts, then checks the log, the ids and positions, the feed, the webhooks and every
// node's list. Prints what it saw and `N passed, N failed`.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Db, MongoClient } from 'mongodb';
import { startWriteLoad, type WriteRecord } from '../faults/load.js';
import { AUTHORIZATION, check, type Check } from '../faults/service.js';
import { compareWithRebuild } from '../faults/verify.js';
import { checkDeliveries, createEndpoint } from '../faults/webhooks.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { type ServiceProcess } from '../support/service-process.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { checkFeed, checkLists, checkNothingReused, checkWritesOnce } from './checks.js';
import { startDatabasePair } from './database.js';
import { startHttpProxy } from './http-proxy.js';
import { createNode, OWN_HOST_NAMES, startNode, stopNode, waitReady, type ClusterNode } from './nodes.js';
import { stopAll } from './processes.js';
import { type RestoreRecord, startRestores } from './restores.js';
import { SCENARIOS, type Cluster } from './scenarios.js';

const { values } = parseArgs({ options: { clients: { type: 'string', default: '3' }, only: { type: 'string' } } });
const clients = Number(values.clients);
/** `--only 3,4`: those scenarios alone (numbered from 1), for looking into one. */
const only = values.only?.split(',').map(Number);
const log = (line: string) => console.log(line);
const started = performance.now();
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const checks: Check[] = [];
const root = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-cluster-'));
const nodes: ClusterNode[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  cleanups.length = 0;
  for (const node of nodes) await stopNode(node, 'SIGKILL', 0).catch(() => {});
  await stopAll();
  await fs.rm(root, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping everything the suite started`);
    void cleanUp().finally(() => process.exit(130));
  });
}

try {
  const database = await startDatabasePair(root);
  cleanups.push(() => database.stop());
  const faults = await startFaultProxy({ host: '127.0.0.1', port: Number(new URL(database.uri).port) });
  cleanups.push(() => faults.close());
  log(`database: PostgreSQL primary :${database.primary.port}, standby :${database.standby.port} (${database.replicationState()}), FerretDB ${database.uri}, fault proxy ${faults.uri} (${seconds(started)})`);

  for (const name of ['node1', 'node2', 'node3']) {
    // One after another, as the README's workers start: the first creates indexes and the administrator.
    nodes.push(await startNode(await createNode(root, name), faults.uri));
  }
  const proxy = await startHttpProxy(nodes);
  cleanups.push(() => proxy.close());
  log(`nodes: ${nodes.map((node) => `${node.name} :${node.port}`).join(', ')}, ${OWN_HOST_NAMES ? 'each with a host name of its own' : "sharing this machine's host name (unshare --uts is refused here)"}; proxy ${proxy.url} (${seconds(started)})`);

  const direct = new MongoClient(database.uri, { directConnection: true, serverSelectionTimeoutMS: 30_000 });
  cleanups.push(() => direct.close());
  const db = direct.db('cms');
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  // Made before any scenario and never moved: its deliveries cross every fault.
  const webhookStart = await createEndpoint(proxy.url, receiver);
  const cluster: Cluster = { database, faults, nodes, db, log };

  const records: WriteRecord[] = [];
  const restores: RestoreRecord[] = [];
  // What an earlier scenario reported of a cumulative finding is not repeated.
  const reported = new Map<string, Set<string>>();
  const fresh = (key: string, lines: string[]) => {
    const seen = reported.get(key) ?? new Set<string>();
    reported.set(key, seen);
    const now = lines.filter((line) => !seen.has(line));
    for (const line of now) seen.add(line);
    return now;
  };

  for (const [index, scenario] of SCENARIOS.entries()) {
    if (only && !only.includes(index + 1)) continue;
    const scenarioStarted = performance.now();
    log('');
    log(`scenario ${index + 1}: ${scenario.name}`);
    const load = startWriteLoad({ siteUrl: proxy.url, authorization: AUTHORIZATION, clients, known: liveItems(records), tag: `c${index + 1}`, requestTimeoutMs: 60_000 });
    const restoring = startRestores(proxy.url, AUTHORIZATION, () => liveItems([...records, ...load.records]));
    let played: Awaited<ReturnType<typeof scenario.play>>;
    try {
      played = await scenario.play(cluster);
    } catch (error) {
      played = { summary: 'could not be played', failures: { 'the scenario plays to its end': [(error as Error).stack ?? String(error)] } };
    }
    await load.stop();
    await restoring.stop();
    records.push(...load.records);
    restores.push(...restoring.records);
    await Promise.all(nodes.map((node) => waitReady(node.url, 30_000)));
    log(`  ${played.summary}`);
    log(`  writes ${load.records.length}, restores ${restoring.records.length}: answers ${JSON.stringify(statuses([...load.records, ...restoring.records]))}, slowest ${Math.round(Math.max(0, ...load.records.map((r) => r.ms)))} ms`);

    const name = (text: string) => `${scenario.name}: ${text}`;
    for (const [text, failures] of Object.entries(played.failures ?? {})) checks.push(check(name(text), failures));
    const writes = await checkWritesOnce(db, records, restores);
    checks.push(check(name('every write answered 2xx is in the log'), fresh('lost', writes.lost)));
    checks.push(check(name('every write answered 2xx is in the log once'), fresh('twice', writes.twice)));
    checks.push(check(name('no write answered with an error is in the log'), fresh('committed', writes.committedErrors)));
    // A 500 is a fault of the service, and so is a 409 for a unique value: the load never sends one twice.
    const logged = fresh('logged', nodes.flatMap((node) => node.runs.flatMap((run) => failedRequests(run).map((line) => `${node.name} logged ${line}`))));
    const unexpected = [...load.records, ...restoring.records].filter((r) => r.status === 500 || r.code === 'rest_duplicate_value');
    const evidence: string[] = [];
    for (const r of unexpected) {
      const what = `${'kind' in r ? r.kind : 'restore'} of ${r.id ?? 'a new item'}${'marker' in r && r.marker ? ` (${r.marker})` : ''}`;
      evidence.push(`${what} sent at +${((r.sentAt - scenarioStarted) / 1000).toFixed(1)} s answered ${r.status} ${r.code ?? ''} after ${Math.round(r.ms)} ms`);
      if (r.id !== undefined) evidence.push(`  the log of item ${r.id}: ${await itemLog(db, r.id)}`);
      if ('marker' in r && r.marker) evidence.push(`  its marker in the log: ${(await eventsWith(db, r.marker)) || 'nowhere'}`);
    }
    checks.push(check(name('no write answered 500, nor 409 rest_duplicate_value'), unexpected.length ? [...evidence, ...logged] : []));
    checks.push(check(name('no id or position reused'), fresh('reused', await checkNothingReused(db, records))));
    const feed = await checkFeed(proxy.url, db);
    // The feed delivers an event only once its item's read model holds it: an event a node left
    // unprojected holds it there until the item's next write or a restart.
    const unprojected = fresh('unprojected', nodes.flatMap((node) => node.runs.flatMap((run) => unprojectedEvents(run).map((line) => `${node.name} logged ${line}`))));
    checks.push(check(name('the feed replayed from 0 equals the log in position order'), feed.failures.length ? [...feed.failures, ...unprojected] : []));
    const webhooks = await checkDeliveries(db, receiver, webhookStart, 30_000);
    checks.push(check(name('webhooks: every event reached the receiver'), fresh('webhooks lost', webhooks.lost)));
    checks.push(check(name("webhooks: each item's versions arrived in order"), fresh('webhooks order', webhooks.outOfOrder)));
    const lists = await checkLists(nodes, db);
    checks.push(check(name('the lists of posts are equal on every node, and to the database'), lists.failures));
    // Once the feed holds every event, every event is projected: the read models the nodes left
    // must then be what folding the log gives, item by item (a failover leaves none half-applied).
    const rebuildStarted = performance.now();
    const rebuilt = await compareWithRebuild(direct, database.uri, 'cms');
    checks.push(check(name('a rebuild from the log equals the read models (posts, revisions)'), fresh('rebuild', rebuilt)));
    if (unprojected.length) log(`  ${unprojected.length} appended events left unprojected: ${unprojected.join('; ')}`);
    log(`  feed ${feed.changes} changes; webhooks ${webhooks.events} events, ${webhooks.requests} requests (${webhooks.duplicates} sent again); lists of ${lists.items} posts; rebuild compared in ${seconds(rebuildStarted)}, ${rebuilt.length} documents differ; took ${seconds(scenarioStarted)}`);
  }

  log('');
  log(`proxy sent ${JSON.stringify(Object.fromEntries(proxy.sent))}, answered ${proxy.queuedOut()} with 503 for want of a node`);
  const stopped = await Promise.all(nodes.map(async (node) => ({ node, code: await stopNode(node, 'SIGTERM') })));
  checks.push(check('every node stops cleanly on SIGTERM at the end', stopped.filter((s) => s.code !== 0).map((s) => `${s.node.name} exited ${s.code}`)));
} catch (error) {
  checks.push(check('the cluster starts and the suite runs to its end', [(error as Error).stack ?? String(error)]));
} finally {
  await cleanUp();
}

const failed = checks.filter((c) => c.failures.length > 0);
log('');
for (const failure of failed) {
  log(`FAILED ${failure.name}`);
  for (const line of failure.failures.slice(0, 12)) log(`  ${line}`);
  if (failure.failures.length > 12) log(`  … and ${failure.failures.length - 12} more`);
}
log(`cluster suite took ${seconds(started)}`);
console.log(`${checks.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length > 0 ? 1 : 0);

/** Items created (acknowledged) and not acknowledged as force-deleted: the newest few, so that writes race. */
function liveItems(records: readonly WriteRecord[]): number[] {
  const deleted = new Set(records.filter((r) => r.kind === 'delete' && r.outcome === 'acknowledged').map((r) => r.id));
  return records
    .filter((r) => r.kind === 'create' && r.outcome === 'acknowledged' && !deleted.has(r.id))
    .slice(-12)
    .map((r) => r.id!);
}

function statuses(all: readonly { status?: number; code?: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const record of all) {
    const key = record.status === undefined ? 'unanswered' : `${record.status}${record.code ? ` ${record.code}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** What a node logged of the requests it failed: the route, the error and where it was thrown. */
function failedRequests(service: ServiceProcess): string[] {
  return service
    .lines()
    .filter((line) => line.msg === 'request failed' && line.err)
    .map((line) => {
      const err = line.err as { type?: string; message?: string; stack?: string; code?: unknown };
      const frames = (err.stack ?? '').split('\n').filter((frame) => frame.trim().startsWith('at ')).slice(0, 4).map((frame) => frame.trim().replace(/\(.*\/dist\//, '(dist/'));
      return `${line.route ?? ''} ${err.type}${err.code !== undefined ? ` code ${String(err.code)}` : ''}: ${String(err.message).slice(0, 300)} ${frames.join(' < ')}`;
    });
}

/** The events a node appended and could not project (`projectRun` gave up), as `item:seq`. */
function unprojectedEvents(service: ServiceProcess): string[] {
  return service
    .lines()
    .filter((line) => typeof line.msg === 'string' && line.msg.startsWith('appended event left unprojected'))
    .map((line) => `${String(line.time ?? '')} item ${String(line.stream)}:${String(line.seq)} left unprojected`);
}

/** An item's events as `seq type @position`, in seq order. */
async function itemLog(db: Db, id: number): Promise<string> {
  const events = await db.collection<{ stream: number; seq: number; type: string; position?: number }>('events').find({ stream: id }).toArray();
  return events.sort((a, b) => a.seq - b.seq).map((event) => `${event.seq} ${event.type} @${event.position}`).join(', ');
}

/** The events whose data holds `marker`, as `type item:seq @position`. */
async function eventsWith(db: Db, marker: string): Promise<string> {
  const events = await db.collection<{ stream: number; seq: number; type: string; position?: number; data: string }>('events').find({}, { projection: { _id: 0, stream: 1, seq: 1, type: 1, position: 1, data: 1 } }).toArray();
  return events
    .filter((event) => event.data.includes(marker))
    .map((event) => `${event.type} ${event.stream}:${event.seq} @${event.position}`)
    .join(', ');
}
