import { type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { type Logger } from '../logger.js';
import { DataDirInUseError } from './data-lock.js';
import { ensureFerretDbBinary, startFerretDb } from './ferretdb.js';

/** A MongoDB-compatible server the service talks to over the wire. */
export interface DatabaseServer {
  readonly uri: string;
  /** Said once in the start-up log. */
  readonly description: string;
  /** The database's process, when this service started it. */
  readonly pid?: number;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

export class NoDatabaseError extends Error {}

export interface DatabaseServerOptions {
  mongodbUri: string | undefined;
  dataDir: string;
  cacheDir: string;
  logger: Logger;
}

/**
 * `MONGODB_URI` when set; otherwise an embedded `mongod` (mongodb-memory-server) and,
 * where no `mongod` can be downloaded, FerretDB with its SQLite backend.
 */
export async function startDatabaseServer(options: DatabaseServerOptions): Promise<DatabaseServer> {
  const { mongodbUri, dataDir, cacheDir, logger } = options;
  if (mongodbUri) {
    return { uri: mongodbUri, description: `MongoDB at ${redactUri(mongodbUri)}`, stop: async () => {} };
  }
  const reasons: string[] = [];
  const mongodDir = path.join(dataDir, 'mongod');
  const ferretDir = path.join(dataDir, 'ferretdb');
  // Data kept by FerretDB and none by mongod: FerretDB served this folder before, so it serves it
  // again, without first spending seconds on looking for a mongod (a restart after a crash is quick).
  if ((await holdsFiles(mongodDir)) || !(await holdsFiles(ferretDir))) {
    try {
      return await startMongod(mongodDir);
    } catch (error) {
      reasons.push(`mongod: ${firstLine(error)}`);
      logger.info({ reason: firstLine(error) }, 'no embedded mongod; falling back to FerretDB');
    }
  }
  try {
    await fs.mkdir(cacheDir, { recursive: true });
    const binary = await ensureFerretDbBinary(cacheDir, logger);
    return await startFerretDb(binary, ferretDir, logger);
  } catch (error) {
    if (error instanceof DataDirInUseError) throw error;
    reasons.push(`FerretDB: ${firstLine(error)}`);
  }
  throw new NoDatabaseError(
    `No database: set MONGODB_URI to a MongoDB server (${reasons.join('; ')}).`,
  );
}

async function startMongod(dbPath: string): Promise<DatabaseServer> {
  await fs.mkdir(dbPath, { recursive: true });
  // Loaded only when wanted: it takes a noticeable part of a start on a busy machine.
  const { MongoMemoryServer } = await import('mongodb-memory-server');
  const server = await MongoMemoryServer.create({ instance: { dbPath, storageEngine: 'wiredTiger' } });
  return {
    uri: server.getUri(),
    description: `embedded mongod (mongodb-memory-server) in ${dbPath}`,
    stop: async () => {
      await server.stop({ doCleanup: false });
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Pings until the server answers, giving up when `child` exits or after `timeoutMs`. */
export async function waitForMongo(uri: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500, directConnection: true });
    try {
      await client.db('admin').command({ ping: 1 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await client.close();
    }
  }
}

async function holdsFiles(dir: string): Promise<boolean> {
  const entries = await fs.readdir(dir).catch(() => []);
  return entries.length > 0;
}

function redactUri(uri: string): string {
  return uri.replace(/\/\/[^@/]*@/, '//***@');
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0] ?? '';
}
