import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/store/database/wire-server.js';
import { ADMIN_PASSWORD, AUTHORIZATION } from '../faults/service.js';
import { WEBHOOK_ENV } from '../faults/webhooks.js';
import { baseEnv, runService, type ServiceProcess } from '../support/service-process.js';
import { sleep } from './processes.js';

/** How long a node keeps serving once told to stop while `/readyz` says it is stopping: the proxy looks every 250 ms. */
const DRAIN_MS = 1500;
/** A request waits out a database away this long before 503: past the 12 s pause (an election). */
export const DATABASE_TIMEOUT_MS = 15_000;
/**
 * Each node runs with a host name of its own (a UTS namespace, `unshare --uts`, where this process
 * may make one: root), as on machines of their own: a process that finds another's webhook lease
 * then cannot tell that its holder is gone by looking for its pid, and waits for its term to end.
 */
export const OWN_HOST_NAMES = spawnSync('unshare', ['--uts', 'true']).status === 0;
const hostNamed = (name: string) => ['unshare', '--uts', '--', 'sh', '-c', 'hostname "$0" && exec "$@"', `cms-${name}`];
const SKEWED_CLOCK = path.join(path.dirname(fileURLToPath(import.meta.url)), 'skewed-clock.js');

/** One node of the service: its own process group, port, data and cache folders, as a machine of its own. */
export interface ClusterNode {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly dataDir: string;
  /** The running process (a restart replaces it); every process it ran, for their logs. */
  service: ServiceProcess;
  readonly runs: ServiceProcess[];
  /** Milliseconds its wall clock is off by, in its current run. */
  clockOffsetMs: number;
  /** How far ahead of this process's clock its log's `time` read as it said it was listening. */
  clockSeenOffsetMs?: number;
}

export async function createNode(root: string, name: string): Promise<Omit<ClusterNode, 'service' | 'runs' | 'clockOffsetMs'>> {
  const dataDir = path.join(root, name);
  await fs.mkdir(path.join(dataDir, 'cache'), { recursive: true });
  const port = await freePort();
  return { name, port, url: `http://127.0.0.1:${port}`, dataDir };
}

/** Starts (or starts again) a node against `databaseUri`, and waits until its `/readyz` answers 200. */
export async function startNode(
  node: Omit<ClusterNode, 'service' | 'runs' | 'clockOffsetMs'> & Partial<ClusterNode>,
  databaseUri: string,
  clockOffsetMs = 0,
): Promise<ClusterNode> {
  const service = runService(
    baseEnv({
      PORT: String(node.port),
      MONGODB_URI: `${databaseUri}cms`,
      CMS_DATA_DIR: path.join(node.dataDir, 'data'),
      CMS_CACHE_DIR: path.join(node.dataDir, 'cache'),
      CMS_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CMS_WORKERS: '1',
      CMS_DATABASE_TIMEOUT_MS: String(DATABASE_TIMEOUT_MS),
      CMS_DRAIN_MS: String(DRAIN_MS),
      CMS_SHUTDOWN_TIMEOUT_MS: '10000',
      LOG_LEVEL: 'info',
      ...WEBHOOK_ENV,
      ...(clockOffsetMs ? { NODE_OPTIONS: `--import=${new URL(`file://${SKEWED_CLOCK}`).href}`, CLUSTER_CLOCK_OFFSET_MS: String(clockOffsetMs) } : {}),
    }),
    { detached: true, wrapper: OWN_HOST_NAMES ? hostNamed(node.name) : [] },
  );
  const started: ClusterNode = { ...node, service, runs: [...(node.runs ?? []), service], clockOffsetMs } as ClusterNode;
  const listening = await service.waitForLog((line) => line.msg === 'listening', 120_000);
  if (typeof listening.time === 'number') started.clockSeenOffsetMs = listening.time - Date.now();
  await waitReady(started.url, 60_000);
  // The first request of a password costs a memory-hard hash; later ones are remembered.
  await fetch(`${started.url}/cms-json/cms/v2/users/me`, { headers: { Authorization: AUTHORIZATION } });
  return started;
}

export async function waitReady(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const answer = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    await answer?.body?.cancel().catch(() => {});
    if (answer?.status === 200) return true;
    await sleep(100);
  }
  return false;
}

/** Sends `signal` to the node's process group, and waits for its process to exit (SIGKILL after `graceMs`). */
export async function stopNode(node: ClusterNode, signal: NodeJS.Signals, graceMs = 20_000): Promise<number | null> {
  const kill = (sig: NodeJS.Signals) => {
    try {
      process.kill(-node.service.child.pid!, sig);
    } catch {
      // The group has ended.
    }
  };
  kill(signal);
  const timer = setTimeout(() => kill('SIGKILL'), graceMs);
  const code = await node.service.exited;
  clearTimeout(timer);
  kill('SIGKILL');
  return code;
}
