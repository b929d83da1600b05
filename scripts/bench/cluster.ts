/**
 * `npm run bench:cluster [-- --seconds 20 --clients 6 --warmup 3]`: the cluster suite's write mix
 * through one node, then through three: every write to the first node in service (as
 * `deploy/haproxy.cfg` routes them), then writes by turns, then each item's writes to one node,
 * on the cluster suite's database (FerretDB over a PostgreSQL primary with a synchronous standby,
 * `test/cluster/database.ts`), each behind the suite's proxy (reads round robin, `/readyz` asked
 * every 2 s). One database for every phase: one node serves first; then two more start beside it
 * and all three serve. Each node is the service as `npm start` runs it with one process, counting
 * its database commands (`counted-service.ts`). For each phase: writes answered 2xx a second,
 * their median and p99 latency, database commands per write (the nodes' background commands,
 * measured idle before the phase, said apart), and, from every event row the nodes sent to the
 * log read against the log afterwards, how many appends lost a position race (their row's
 * position was taken: sent again higher) or the race for their item's next seq (another node's
 * write came first: the command read the item again).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { startWriteLoad, type WriteRecord } from '../../test/faults/load.js';
import { startDatabasePair } from '../../test/cluster/database.js';
import { startHttpProxy, type HttpProxy } from '../../test/cluster/http-proxy.js';
import { stopAll } from '../../test/cluster/processes.js';
import { BENCH_ADMIN, startCountedService, type CountedService } from './service.js';
import { SHARED_CLOCK_MS } from '../../src/store/log/position-clock.js';
import { SHARED_CLAIMS_MS } from '../../src/store/coordination/sequences.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    clients: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '3' },
  },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);
const warmupSeconds = Number(values.warmup);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Node {
  name: string;
  port: number;
  service: CountedService;
}

interface PhaseResult {
  nodes: number;
  writes_to: 'round-robin' | 'hash' | 'first';
  writes: number;
  answered: Record<string, number>;
  seconds: number;
  medianMs: number;
  p99Ms: number;
  commandsPerWrite: number;
  backgroundPerSecond: number;
  /** What idle nodes send, per second by kind, the most frequent first. */
  backgroundKinds: [string, number][];
  /** The commands per write by kind, the most frequent first. */
  kinds: [string, number][];
  appends: number;
  positionRetries: number;
  versionLosses: number;
}

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-bench-cluster-'));
const nodes: Node[] = [];
let database: Awaited<ReturnType<typeof startDatabasePair>> | undefined;
let client: MongoClient | undefined;

async function startNode(name: string, uri: string): Promise<Node> {
  const dir = path.join(root, name);
  await fs.mkdir(path.join(dir, 'cache'), { recursive: true });
  const service = await startCountedService(uri, { CMS_WORKERS: '1', CMS_DATA_DIR: path.join(dir, 'data'), CMS_CACHE_DIR: path.join(dir, 'cache') });
  // The first request of a password costs a memory-hard hash; later ones are remembered.
  await fetch(`${service.url}/cms-json/cms/v2/users/me`, { headers: BENCH_ADMIN });
  return { name, port: Number(new URL(service.url).port), service };
}

const commandsOf = async (serving: readonly Node[]) => {
  const counts = await Promise.all(serving.map((node) => node.service.count()));
  const byKind = new Map<string, number>();
  for (const count of counts) for (const [kind, n] of Object.entries(count.byKind)) byKind.set(kind, (byKind.get(kind) ?? 0) + n);
  return { all: counts.reduce((sum, count) => sum + count.commands, 0), byKind };
};

/** Items created and not force-deleted, the newest few: where the next load writes, so that writes race. */
function liveItems(records: readonly WriteRecord[]): number[] {
  const deleted = new Set(records.filter((r) => r.kind === 'delete' && r.outcome === 'acknowledged').map((r) => r.id));
  return records.filter((r) => r.kind === 'create' && r.outcome === 'acknowledged' && !deleted.has(r.id)).slice(-12).map((r) => r.id!);
}

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/**
 * Reads what the nodes sent to the log against the log: an append is a (stream, seq) a node sent
 * and the log holds at a position that node sent it at; each further position the same node sent
 * for the same (stream, seq) is a position race lost; a (stream, seq) whose rows the log holds at
 * none of the positions the node sent lost the race for the seq.
 */
async function classifyAppends(serving: readonly Node[]): Promise<{ appends: number; positionRetries: number; versionLosses: number }> {
  const sent = (await Promise.all(serving.map((node) => node.service.appends()))).map((rows) => {
    const byKey = new Map<string, Set<number>>();
    for (const [stream, seq, position] of rows) {
      const key = `${stream}:${seq}`;
      byKey.set(key, (byKey.get(key) ?? new Set()).add(position));
    }
    return byKey;
  });
  const logged = new Map<string, number>();
  const rows = client!.db('bench').collection<{ stream: number; seq: number; position: number }>('events').find({ stream: { $gt: 0 } }, { projection: { _id: 0, stream: 1, seq: 1, position: 1 } });
  for await (const row of rows) logged.set(`${row.stream}:${row.seq}`, row.position);
  let appends = 0;
  let positionRetries = 0;
  let versionLosses = 0;
  for (const byKey of sent) {
    for (const [key, positions] of byKey) {
      positionRetries += positions.size - 1;
      if (positions.has(logged.get(key) ?? -1)) appends++;
      else versionLosses++;
    }
  }
  return { appends, positionRetries, versionLosses };
}

async function phase(serving: Node[], known: number[], tag: string, writes: PhaseResult['writes_to'] = 'round-robin'): Promise<{ result: PhaseResult; records: WriteRecord[] }> {
  // Each node's /readyz asked every 2 s, as deploy/haproxy.cfg asks it.
  const proxy: HttpProxy = await startHttpProxy(serving, { writes, healthEveryMs: 2000 });
  try {
    // Wait for the proxy's first look at every node's /readyz.
    await sleep(600);
    const warmup = startWriteLoad({ siteUrl: proxy.url, authorization: BENCH_ADMIN.Authorization, clients, known, tag: `${tag}w` });
    await sleep(warmupSeconds * 1000);
    await warmup.stop();
    // The background: what idle nodes send (webhook deliverer, lease, kept lists), per second.
    await sleep(1000);
    const idleFrom = await commandsOf(serving);
    const idleStarted = performance.now();
    await sleep(3000);
    const idleTo = await commandsOf(serving);
    const idleSeconds = (performance.now() - idleStarted) / 1000;
    const backgroundPerSecond = (idleTo.all - idleFrom.all) / idleSeconds;
    const backgroundKinds = [...idleTo.byKind]
      .map(([kind, n]): [string, number] => [kind, (n - (idleFrom.byKind.get(kind) ?? 0)) / idleSeconds])
      .filter(([, perSecond]) => perSecond >= 0.1)
      .sort((a, b) => b[1] - a[1]);

    await Promise.all(serving.map((node) => node.service.appends()));
    const before = await commandsOf(serving);
    const started = performance.now();
    const load = startWriteLoad({ siteUrl: proxy.url, authorization: BENCH_ADMIN.Authorization, clients, known: liveItems([...warmup.records]).concat(known).slice(-12), tag });
    await sleep(seconds * 1000);
    await load.stop();
    const elapsed = (performance.now() - started) / 1000;
    const after = await commandsOf(serving);
    const appends = await classifyAppends(serving);

    const acknowledged = load.records.filter((r) => r.outcome === 'acknowledged');
    const latencies = acknowledged.map((r) => r.ms).sort((a, b) => a - b);
    const answered: Record<string, number> = {};
    for (const r of load.records) {
      const key = r.status === undefined ? 'unanswered' : String(r.status);
      answered[key] = (answered[key] ?? 0) + 1;
    }
    const commands = after.all - before.all;
    return {
      records: [...warmup.records, ...load.records],
      result: {
        nodes: serving.length,
        writes_to: writes,
        writes: acknowledged.length,
        answered,
        seconds: elapsed,
        medianMs: percentile(latencies, 0.5),
        p99Ms: percentile(latencies, 0.99),
        commandsPerWrite: commands / acknowledged.length,
        backgroundPerSecond,
        backgroundKinds,
        kinds: [...after.byKind]
          .map(([kind, n]): [string, number] => [kind, (n - (before.byKind.get(kind) ?? 0)) / acknowledged.length])
          .filter(([, perWrite]) => perWrite >= 0.05)
          .sort((a, b) => b[1] - a[1]),
        ...appends,
      },
    };
  } finally {
    await proxy.close();
  }
}

try {
  database = await startDatabasePair(root);
  const uri = `${database.uri}bench`;
  client = new MongoClient(database.uri, { directConnection: true });
  console.log(`database: FerretDB ${database.uri} over PostgreSQL primary :${database.primary.port} with a ${database.replicationState()} standby :${database.standby.port}`);
  nodes.push(await startNode('node1', uri));
  const one = await phase(nodes.slice(0, 1), [], 'b1');
  // The other two start one after another, as the cluster suite's nodes do.
  for (const name of ['node2', 'node3']) nodes.push(await startNode(name, uri));
  // First every write to one node while it serves, as deploy/haproxy.cfg routes them: one writer
  // needs no shared position counter. (Before the phases where every node writes: a process that
  // saw another's append takes positions from the counter for a while after.)
  const first = await phase(nodes, liveItems(one.records), 'b3f', 'first');
  const three = await phase(nodes, liveItems(first.records), 'b3');
  // Each item's writes to one node, where they queue and commit together.
  const hashed = await phase(nodes, liveItems(three.records), 'b3h', 'hash');
  // One node again, the other two stopped: the database has grown since the first phase, and each
  // phase of three is compared with one node before and after it. Once the node no longer takes
  // positions and ids as one of several writers, as in the first phase.
  for (const node of nodes.splice(1)) await node.service.stop();
  await sleep(Math.max(SHARED_CLOCK_MS, SHARED_CLAIMS_MS));
  const oneAgain = await phase(nodes, liveItems(hashed.records), 'b1a');

  console.log('');
  console.log(`the cluster suite's write mix (creates, updates, autosaves, trashes, force deletes), ${clients} clients, ${seconds} s a phase after ${warmupSeconds} s of warm-up, through the proxy (reads round robin); ${os.cpus().length} cores`);
  console.log('nodes  writes to     writes/s  median ms  p99 ms  db cmds/write  idle cmds/s  appends  position races lost  seq races lost  answers');
  for (const { result: r } of [one, first, three, hashed, oneAgain]) {
    console.log(
      `${String(r.nodes).padStart(5)}  ${r.writes_to.padEnd(11)}  ${(r.writes / r.seconds).toFixed(1).padStart(8)}  ${r.medianMs.toFixed(0).padStart(9)}  ${r.p99Ms.toFixed(0).padStart(6)}  ` +
        `${r.commandsPerWrite.toFixed(1).padStart(13)}  ${r.backgroundPerSecond.toFixed(1).padStart(11)}  ${String(r.appends).padStart(7)}  ` +
        `${`${r.positionRetries} (${(r.positionRetries / Math.max(1, r.appends)).toFixed(2)}/append)`.padStart(19)}  ${String(r.versionLosses).padStart(14)}  ${JSON.stringify(r.answered)}`,
    );
  }
  // One node answers slower at the end of the run than at its start (the database grew, and its
  // commands on posts take longer): each phase of three is compared with one node where it ran,
  // on a straight line between the first phase and the last.
  const rate = (r: PhaseResult) => r.writes / r.seconds;
  const phases = [one, first, three, hashed, oneAgain];
  const oneNodeAt = (index: number) => rate(one.result) + ((rate(oneAgain.result) - rate(one.result)) * index) / (phases.length - 1);
  console.log(
    `three nodes against one node where they ran (between ${rate(one.result).toFixed(1)} and ${rate(oneAgain.result).toFixed(1)} writes/s): ` +
      [first, three, hashed].map((phase) => `writes ${phase.result.writes_to} ${(rate(phase.result) / oneNodeAt(phases.indexOf(phase))).toFixed(2)}x`).join(', '),
  );
  for (const { result: r } of phases) {
    console.log(`database commands per write with ${r.nodes} node${r.nodes > 1 ? 's' : ''}, writes ${r.writes_to} (idle ones included): ${r.kinds.slice(0, 10).map(([kind, n]) => `${kind} ${n.toFixed(2)}`).join(', ')}`);
    console.log(`  idle, per second: ${r.backgroundKinds.map(([kind, n]) => `${kind} ${n.toFixed(1)}`).join(', ')}`);
  }
} finally {
  for (const node of nodes) await node.service.stop().catch(() => {});
  await client?.close();
  await database?.stop().catch(() => {});
  await stopAll();
  await fs.rm(root, { recursive: true, force: true });
}
