import { type WireCommand, type FaultProxy } from '../support/fault-proxy.js';
import { type DatabasePair } from './database.js';
import { startNode, stopNode, waitReady, type ClusterNode } from './nodes.js';
import { sleep } from './processes.js';

/** What a scenario plays on: the database pair, the fault proxy in the nodes' path to it, the nodes. */
export interface Cluster {
  database: DatabasePair;
  faults: FaultProxy;
  nodes: ClusterNode[];
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
      return {
        summary: `standby was ${before}; primary killed, standby promoted in ${Math.round(promotedMs)} ms; nodes ready again: ${back.filter(Boolean).length}/${back.length}`,
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
    name: 'a node whose clock is 5 s ahead, appends slowed',
    async play(cluster) {
      const index = cluster.nodes.length - 1;
      const { ms } = await restart(cluster, index, 5000);
      const node = cluster.nodes[index];
      const listening = node.service.lines().find((line) => line.msg === 'listening');
      const seenOffset = typeof listening?.time === 'number' ? Math.round((listening.time - Date.now()) / 1000) : undefined;
      await sleep(4000);
      // Appends 300 ms slower: writes from the skewed node and the others overlap in the log.
      const fast = cluster.faults.slow(appendToLog, 300);
      await sleep(4000);
      fast();
      await sleep(1000);
      return {
        summary: `${node.name} restarted with its clock +5 s (ready in ${Math.round(ms)} ms; its log's clock reads about ${seenOffset ?? '?'} s ahead); event appends slowed 300 ms for 4 s`,
        failures: { "the skewed node's clock is 5 s ahead": seenOffset !== undefined && seenOffset >= 4 && seenOffset <= 6 ? [] : [`its log's time is ${seenOffset} s off`] },
      };
    },
  },
];
