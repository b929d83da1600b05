import fs from 'node:fs';
import { type Db } from 'mongodb';
import { type WireCommand, type FaultProxy } from '../support/fault-proxy.js';
import { type DatabasePair } from './database.js';
import { startNode, stopNode, waitReady, type ClusterNode } from './nodes.js';
import { sleep } from './processes.js';

/** What a scenario plays on: the database pair, the fault proxy in the nodes' path to it, the nodes. */
export interface Cluster {
  database: DatabasePair;
  faults: FaultProxy;
  nodes: ClusterNode[];
  /** The site's database, straight to FerretDB (not through the fault proxy). */
  db: Db;
  log(line: string): void;
}

/** A fault played under the write load; it says what it did, and may add checks of its own. */
export interface Scenario {
  name: string;
  play(cluster: Cluster): Promise<{ summary: string; failures?: Record<string, string[]> }>;
}

const appendToLog = (command: WireCommand) => command.name === 'insert' && command.collection === 'events';

/** Restarts a node in place: SIGTERM (it drains, then finishes what it holds), then the same port and folders. */
async function restart(cluster: Cluster, index: number, clockOffsetMs = 0): Promise<{ code: number | null; ms: number }> {
  const node = cluster.nodes[index];
  const code = await stopNode(node, 'SIGTERM');
  const started = performance.now();
  cluster.nodes[index] = await startNode(node, cluster.faults.uri, clockOffsetMs);
  return { code, ms: performance.now() - started };
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'rolling restart of every node',
    async play(cluster) {
      const lines: string[] = [];
      const unclean: string[] = [];
      for (let i = 0; i < cluster.nodes.length; i++) {
        await sleep(1000);
        const { code, ms } = await restart(cluster, i);
        lines.push(`${cluster.nodes[i].name} exit ${code}, ready again in ${Math.round(ms)} ms`);
        if (code !== 0) unclean.push(`${cluster.nodes[i].name} exited ${code} on SIGTERM`);
      }
      await sleep(1000);
      return { summary: lines.join('; '), failures: { 'every node stops cleanly on SIGTERM': unclean } };
    },
  },
  {
    name: 'a node killed with SIGKILL',
    async play(cluster) {
      await sleep(2000);
      const node = cluster.nodes[1];
      await stopNode(node, 'SIGKILL', 0);
      await sleep(1500);
      const started = performance.now();
      cluster.nodes[1] = await startNode(node, cluster.faults.uri);
      await sleep(2000);
      return { summary: `${node.name} killed, started again in ${Math.round(performance.now() - started)} ms` };
    },
  },
  {
    name: 'the database primary killed, the standby promoted',
    async play(cluster) {
      const before = cluster.database.replicationState();
      await sleep(2000);
      await cluster.database.killPrimary();
      const promotedMs = await cluster.database.promoteStandby();
      const back = await Promise.all(cluster.nodes.map((node) => waitReady(node.url, 30_000)));
      await sleep(2000);
      // The old primary's machine comes back as the new primary's standby, under the load.
      const rejoinMs = await cluster.database.rejoinAsStandby();
      await sleep(1000);
      return {
        summary:
          `standby was ${before}; primary killed, standby promoted in ${Math.round(promotedMs)} ms; nodes ready again: ${back.filter(Boolean).length}/${back.length}; ` +
          `the old primary rebuilt as the new one's standby in ${Math.round(rejoinMs)} ms (${cluster.database.replicationState()})`,
        failures: { 'every node is ready again after the failover': back.flatMap((ok, i) => (ok ? [] : [`${cluster.nodes[i].name} not ready within 30 s`])) },
      };
    },
  },
  {
    name: 'the database away 12 s (an election)',
    async play(cluster) {
      await sleep(1500);
      cluster.faults.pause();
      await sleep(12_000);
      cluster.faults.resume();
      const back = await Promise.all(cluster.nodes.map((node) => waitReady(node.url, 30_000)));
      await sleep(2000);
      return {
        summary: `every message held 12 s; nodes ready again: ${back.filter(Boolean).length}/${back.length}`,
        failures: { 'every node is ready again after the pause': back.flatMap((ok, i) => (ok ? [] : [`${cluster.nodes[i].name} not ready within 30 s`])) },
      };
    },
  },
  {
    name: 'acknowledgements lost, writes refused as NotWritablePrimary',
    async play(cluster) {
      const lines: string[] = [];
      for (let round = 0; round < 3; round++) {
        await sleep(1500);
        const lost = await Promise.race([cluster.faults.loseReplyTo(appendToLog, { refuseForMs: 2000 }).then(() => true), sleep(15_000).then(() => false)]);
        lines.push(lost ? 'an append\'s reply lost, the database refused 2 s' : 'no append came within 15 s');
      }
      await sleep(2500);
      cluster.faults.refuseWrites(3000);
      await sleep(4000);
      lines.push('every write refused as NotWritablePrimary for 3 s');
      return { summary: lines.join('; ') };
    },
  },
  {
    name: 'a node whose clock is 5 s ahead, the webhook lease holder frozen, appends slowed',
    async play(cluster) {
      const index = cluster.nodes.length - 1;
      const { ms } = await restart(cluster, index, 5000);
      const node = cluster.nodes[index];
      await sleep(3000);
      // The deliverer stalls (a long GC, a frozen VM) past the end of its term by the skewed
      // node's clock, not by the others': only the skewed node may take the lease over early.
      const holder = await leaseHolder(cluster);
      if (holder) holder.signal('SIGSTOP');
      await sleep(12_000);
      if (holder) holder.signal('SIGCONT');
      await sleep(2000);
      // Appends 300 ms slower: writes of the skewed node and of the others overlap in the log.
      const fast = cluster.faults.slow(appendToLog, 300);
      await sleep(4000);
      fast();
      await sleep(1000);
      const offset = node.clockSeenOffsetMs === undefined ? undefined : Math.round(node.clockSeenOffsetMs / 100) / 10;
      const terms = await cluster.db.collection<{ _id: number; owner: string }>('webhook_leases').find({}).sort({ _id: 1 }).toArray();
      return {
        summary:
          `${node.name} restarted with its clock +5 s (ready in ${Math.round(ms)} ms; its log's clock reads ${offset ?? '?'} s ahead); ` +
          `${holder ? `the lease holder ${holder.name} frozen 12 s` : 'no lease holder found to freeze'}; lease terms ${terms.map((t) => `${t._id} ${ownerNode(cluster, t.owner)?.name ?? t.owner}`).join(', ')}; event appends slowed 300 ms for 4 s`,
        failures: {
          "the skewed node's clock is 5 s ahead": offset !== undefined && offset >= 4.5 && offset <= 5.5 ? [] : [`its log's time is ${offset} s off`],
          'a lease holder was found and frozen': holder ? [] : ['no term of webhook_leases names a running node'],
        },
      };
    },
  },
];

/** The node whose process holds the newest term of the webhook lease (its owner is `host:pid:random`). */
async function leaseHolder(cluster: Cluster): Promise<{ name: string; signal(signal: NodeJS.Signals): void } | undefined> {
  const [newest] = await cluster.db.collection<{ _id: number; owner: string }>('webhook_leases').find({}).sort({ _id: -1 }).limit(1).toArray();
  const node = newest && ownerNode(cluster, newest.owner);
  if (!node) return undefined;
  return {
    name: node.name,
    signal: (signal) => {
      try {
        process.kill(-node.service.child.pid!, signal);
      } catch {
        // The group has ended.
      }
    },
  };
}

/** The node a lease owner's pid belongs to: its process group is the node's. */
function ownerNode(cluster: Cluster, owner: string): ClusterNode | undefined {
  const pid = owner.split(':')[1];
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    return cluster.nodes.find((node) => node.service.child.pid === pgid);
  } catch {
    return undefined;
  }
}
