import fs from 'node:fs/promises';
import path from 'node:path';
import { type Logger } from '../../logger.js';
import { type Shutdown } from '../../shutdown.js';
import { DataDirInUseError, lockDataDir } from './data-lock.js';
import { ensureFerretDbBinary, startFerretDb } from './ferretdb.js';
import { findPostgres, startPostgres, type PostgresConnection } from './postgresql.js';
import { type DatabaseServer } from './wire-server.js';

export class NoDatabaseError extends Error {}

export interface DatabaseServerOptions {
  mongodbUri: string | undefined;
  dataDir: string;
  cacheDir: string;
  logger: Logger;
  /** The service's stop: once requested, a supervised server that exits is not started again. */
  shutdown?: Shutdown;
}

/**
 * `MONGODB_URI` when set; otherwise an embedded `mongod` (mongodb-memory-server), and where no
 * `mongod` can be had, FerretDB: on an embedded PostgreSQL when the machine has its server
 * programs, else on SQLite. A data folder keeps the backend it was created with.
 */
export async function startDatabaseServer(options: DatabaseServerOptions): Promise<DatabaseServer> {
  const { mongodbUri, dataDir, cacheDir, logger, shutdown } = options;
  if (mongodbUri) {
    return { uri: mongodbUri, description: `MongoDB at ${redactUri(mongodbUri)}`, stop: async () => {} };
  }
  const reasons: string[] = [];
  const mongodDir = path.join(dataDir, 'mongod');
  const sqliteDir = path.join(dataDir, 'ferretdb');
  const postgresDir = path.join(dataDir, 'postgresql');
  // Data kept by FerretDB and none by mongod: FerretDB served this folder before, so it serves it
  // again, without first spending seconds on looking for a mongod (a restart after a crash is quick).
  const ferretDbServed = (await holdsFiles(sqliteDir)) || (await holdsFiles(postgresDir));
  if ((await holdsFiles(mongodDir)) || !ferretDbServed) {
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
    if (!(await holdsFiles(sqliteDir))) {
      const postgres = findPostgres();
      if (postgres) {
        try {
          return await startFerretDbOnPostgres(binary, postgresDir, postgres, logger, shutdown);
        } catch (error) {
          // A cluster that holds data is never silently abandoned for an empty SQLite folder.
          if (error instanceof DataDirInUseError || (await holdsFiles(path.join(postgresDir, 'cluster')))) throw error;
          reasons.push(`PostgreSQL: ${firstLine(error)}`);
          logger.warn({ reason: firstLine(error) }, 'no embedded PostgreSQL; FerretDB falls back to SQLite');
        }
      } else if (await holdsFiles(path.join(postgresDir, 'cluster'))) {
        throw new Error(`The data in ${postgresDir} is kept by PostgreSQL, whose server programs cannot be found (pg_config --bindir).`);
      }
    }
    return await startFerretDbOnSqlite(binary, sqliteDir, logger, shutdown);
  } catch (error) {
    if (error instanceof DataDirInUseError) throw error;
    reasons.push(`FerretDB: ${firstLine(error)}`);
  }
  throw new NoDatabaseError(
    `No database: set MONGODB_URI to a MongoDB server (${reasons.join('; ')}).`,
  );
}

async function startFerretDbOnSqlite(binary: string, dir: string, logger: Logger, shutdown?: Shutdown): Promise<DatabaseServer> {
  await fs.mkdir(dir, { recursive: true });
  const lock = await lockDataDir(dir);
  try {
    const server = await startFerretDb(binary, { kind: 'sqlite', dir }, dir, lock, logger, shutdown);
    return withStop(server, async () => {
      await server.stop();
      await lock.release();
    });
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** FerretDB on a PostgreSQL cluster of its own in `dir`, both stopped together (FerretDB first). */
async function startFerretDbOnPostgres(
  binary: string,
  dir: string,
  { binDir, version }: { binDir: string; version: string },
  logger: Logger,
  shutdown?: Shutdown,
): Promise<DatabaseServer> {
  await fs.mkdir(dir, { recursive: true });
  const lock = await lockDataDir(dir);
  try {
    const postgres = await startPostgres(dir, binDir, version, logger, shutdown);
    try {
      const stateDir = path.join(dir, 'ferretdb-state');
      await fs.mkdir(stateDir, { recursive: true });
      const backend = { kind: 'postgresql', url: postgres.url, label: `PostgreSQL ${version} in ${dir}` } as const;
      const server = await startFerretDb(binary, backend, stateDir, lock, logger, shutdown);
      const stop = async () => {
        await server.stop();
        await postgres.stop();
        await lock.release();
      };
      return withStop(server, stop, postgres.connection);
    } catch (error) {
      await postgres.stop();
      throw error;
    }
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** `server` with another `stop`, its `pid` still read live (a supervised restart changes it). */
function withStop(server: DatabaseServer, stop: () => Promise<void>, postgres?: PostgresConnection): DatabaseServer {
  return {
    uri: server.uri,
    description: server.description,
    get pid() {
      return server.pid;
    },
    ...(postgres ? { postgres } : {}),
    stop,
  };
}

async function startMongod(dbPath: string): Promise<DatabaseServer> {
  await fs.mkdir(dbPath, { recursive: true });
  // Loaded only when wanted: it takes a noticeable part of a start on a busy machine.
  const { MongoBinary, MongoMemoryServer } = await import('mongodb-memory-server');
  // Found (or downloaded) first: where none can be had this throws quietly, while a failed
  // create() prints the library's own stack trace to the console.
  await MongoBinary.getPath();
  const server = await MongoMemoryServer.create({ instance: { dbPath, storageEngine: 'wiredTiger' } });
  return {
    uri: server.getUri(),
    description: `embedded mongod (mongodb-memory-server) in ${dbPath}`,
    stop: async () => {
      await server.stop({ doCleanup: false });
    },
  };
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
