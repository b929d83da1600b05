import { fork, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startDatabaseServer } from '../../src/store/database/database-server.js';
import { freePort, type DatabaseServer } from '../../src/store/database/wire-server.js';
import { ensureDeclaredIndexes } from '../../src/store/queries/index-bridge.js';
import { openStore } from '../../src/store/database/mongo.js';
import { EMBEDDED_POSTGRES_ENV } from '../../src/store/database/postgresql.js';
import { indexesOf } from '../../src/resources/manifest.js';
import { resources } from '../../src/resources/index.js';

export const BENCH_ADMIN_PASSWORD = 'bench-password';

export const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
export const BENCH_ADMIN = basic('admin', BENCH_ADMIN_PASSWORD);
export const BENCH_ADMIN_JSON = { ...BENCH_ADMIN, 'Content-Type': 'application/json' };

export const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

/** A request to the bench's service as its administrator; anything but a 2xx throws. */
export async function send(url: string, method: string, route: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${url}/cms-json/cms/v2${route}`, { method, headers: body === undefined ? BENCH_ADMIN : BENCH_ADMIN_JSON, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return response;
}

/** A database for one benchmark run, resolved as `npm start` does, in a temporary folder. */
export async function benchDatabase(): Promise<{ database: DatabaseServer; uri: string; stop: () => Promise<void> }> {
  const config = loadConfig(process.env);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-bench-'));
  const database = await startDatabaseServer({ ...config, dataDir, logger: createLogger('warn') });
  const uri = `${database.uri.replace(/\/$/, '')}/bench`;
  // The service is started on a URI, as on a database of one's own: the declared indexes and their
  // bridge in the embedded PostgreSQL are made here, as `npm start` makes them before its workers.
  if (database.postgres) {
    const store = await openStore(uri);
    try {
      await ensureDeclaredIndexes(store.db, indexesOf(resources), database.postgres);
    } finally {
      await store.close();
    }
  }
  return {
    database,
    uri,
    stop: async () => {
      await database.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The environment a script (`export:timeline`) is run in against a bench database: its URI, and
 * the embedded PostgreSQL behind it, which the script reads directly as it would on its own.
 */
export function scriptEnv(database: DatabaseServer, uri: string): NodeJS.ProcessEnv {
  return { ...process.env, MONGODB_URI: uri, LOG_LEVEL: 'warn', ...embeddedPostgresEnv(database) };
}

/** Where the embedded PostgreSQL behind a bench database is, as `npm start` tells its workers. */
export function embeddedPostgresEnv(database: DatabaseServer): Record<string, string> {
  return database.postgres ? { [EMBEDDED_POSTGRES_ENV]: JSON.stringify(database.postgres) } : {};
}

/** Runs the built service as its own process, so the load generator does not share its event loop. */
export async function startBenchService(uri: string, env: Record<string, string> = {}): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, MONGODB_URI: uri, PORT: String(port), LOG_LEVEL: 'warn', CMS_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let ready = false; !ready; ) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    ready = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** What the counted service tells: database commands sent so far, summed over its processes, and each process's peak RSS. */
export interface CommandCount {
  commands: number;
  /** The commands by kind: the command, its collection and the fields its filter names (`find posts {_id,type}`). */
  byKind: Record<string, number>;
  peakRssMiB: number[];
}

export interface CountedService {
  url: string;
  count(): Promise<CommandCount>;
  commands(): Promise<number>;
  /** The event rows its inserts into the log sent since the last call, as [stream, seq, position] (voids left out). */
  appends(): Promise<[number, number, number][]>;
  stop(): Promise<void>;
}

/** The built service, forked so that it counts its database commands and tells them over IPC (`counted-service.ts`). */
export async function startCountedService(uri: string, env: Record<string, string> = {}): Promise<CountedService> {
  const child = fork('dist/scripts/bench/counted-service.js', {
    env: { ...process.env, MONGODB_URI: uri, PORT: '0', LOG_LEVEL: 'warn', CMS_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD, ...env },
  });
  const ask = <T>(question: string) =>
    new Promise<T>((resolve) => {
      child.once('message', (message) => resolve(message as T));
      child.send(question);
    });
  const count = () => ask<CommandCount>('count');
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
  return {
    url,
    count,
    commands: async () => (await count()).commands,
    appends: async () => (await ask<{ appends: [number, number, number][] }>('appends')).appends,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Database commands an idle service still sends in a second, at the most: each process's webhook
 * deliverer looks for work about once a second (its lease, the active endpoints).
 */
const BACKGROUND_COMMANDS_PER_SECOND = 12;

/**
 * Waits until the service sends no more than its background commands for `quietMs`: the work a
 * workload left in flight (projections, notes) is done, and the next one starts on a quiet service.
 */
export async function settle(service: Pick<CountedService, 'commands'>, quietMs = 500): Promise<void> {
  for (let last = await service.commands(); ; ) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = await service.commands();
    if (now - last <= (BACKGROUND_COMMANDS_PER_SECOND * quietMs) / 1000) return;
    last = now;
  }
}
