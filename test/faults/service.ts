import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { baseEnv, runService, type ServiceProcess } from '../support/service-process.js';
import { WEBHOOK_ENV } from './webhooks.js';

export const ADMIN_PASSWORD = 'fault-suite-secret';
export const AUTHORIZATION = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;

/** The service as a process, with its own embedded FerretDB. */
export interface Started {
  service: ServiceProcess;
  siteUrl: string;
  /** The embedded database, as the service's log announced it. */
  databasePid: number;
  databaseUri: string;
  /** From spawning to listening. */
  startMs: number;
}

/** The data folders this run made, removed at its end. */
export const dataDirs: string[] = [];

export async function tempDataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-faults-'));
  dataDirs.push(dir);
  return dir;
}

export async function startService(dataDir: string, extra: Record<string, string> = {}): Promise<Started> {
  const started = performance.now();
  const service = runService(
    baseEnv({
      // mongodb-memory-server fails at once: the embedded database is FerretDB on any machine.
      MONGOMS_DOWNLOAD_URL: 'http://127.0.0.1:9/mongodb.tgz',
      CMS_DATA_DIR: dataDir,
      CMS_ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: 'debug',
      ...WEBHOOK_ENV,
      ...extra,
    }),
  );
  const database = await service.waitForLog((line) => line.msg === 'FerretDB started', 120_000);
  const listening = await service.waitForLog((line) => line.msg === 'listening', 120_000);
  // The first request of a password costs a memory-hard hash; later ones are remembered.
  await fetch(`${listening.url}/cms-json/cms/v2/users/me`, { headers: { Authorization: AUTHORIZATION } });
  return {
    service,
    siteUrl: listening.url as string,
    databasePid: database.pid as number,
    databaseUri: `mongodb://127.0.0.1:${database.port}/`,
    startMs: performance.now() - started,
  };
}

export async function withDatabase<T>(uri: string, use: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, directConnection: true });
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A named check of the suite: passed, or failed with what was seen. */
export interface Check {
  name: string;
  failures: string[];
}

export function check(name: string, failures: string[]): Check {
  return { name, failures };
}

/** What the service logged about the requests it failed with 5xx: error type and message. */
export function serverErrors(service: ServiceProcess): string[] {
  return service
    .lines()
    .filter((line) => line.msg === 'request failed' && line.err)
    .map((line) => {
      const err = line.err as { type?: string; message?: string };
      return `${err.type}: ${String(err.message).slice(0, 160)}`;
    });
}
