import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { type DatabaseServer } from '../../src/store/database/wire-server.js';
import { lockDataDir } from '../../src/store/database/data-lock.js';
import { ensureFerretDbBinary, startFerretDb } from '../../src/store/database/ferretdb.js';
import { findPostgres, startPostgres } from '../../src/store/database/postgresql.js';

export interface OwnDatabase {
  server: DatabaseServer;
  /** The database process: what a test freezes or kills. */
  pid(): number;
  stop(): Promise<void>;
}

/**
 * An embedded FerretDB of the test's own (on SQLite: it starts in moments), in a temporary
 * folder, so that freezing or killing it disturbs no other test file.
 */
export async function startOwnDatabase(): Promise<OwnDatabase> {
  const config = loadConfig(process.env);
  const logger = createLogger('warn');
  const binary = await ensureFerretDbBinary(config.cacheDir, logger);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-own-db-'));
  const lock = await lockDataDir(dataDir);
  const server = await startFerretDb(binary, { kind: 'sqlite', dir: dataDir }, dataDir, lock, logger);
  return {
    server,
    pid: () => server.pid!,
    stop: async () => {
      try {
        process.kill(server.pid!, 'SIGCONT');
      } catch {
        // Not running any more.
      }
      await server.stop();
      await lock.release();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * FerretDB on a PostgreSQL of the test's own, in a temporary folder: `postgresPid()` is the
 * PostgreSQL server under FerretDB, for a test that takes it away (FerretDB itself stays). None
 * where the machine has no PostgreSQL server programs.
 */
export async function startOwnPostgresDatabase(): Promise<(OwnDatabase & { postgresPid(): number }) | undefined> {
  const found = findPostgres();
  if (!found) return undefined;
  const config = loadConfig(process.env);
  const logger = createLogger('warn');
  const binary = await ensureFerretDbBinary(config.cacheDir, logger);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-own-pg-'));
  const lock = await lockDataDir(dataDir);
  const postgres = await startPostgres(path.join(dataDir, 'postgresql'), found.binDir, found.version, logger);
  const server = await startFerretDb(binary, { kind: 'postgresql', url: postgres.url, label: 'PostgreSQL of the test' }, dataDir, lock, logger);
  return {
    server,
    pid: () => server.pid!,
    postgresPid: () => postgres.pid,
    stop: async () => {
      await server.stop();
      await postgres.stop();
      await lock.release();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `action` and says how long it took, in milliseconds. */
export async function timed<T>(action: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await action();
  return { result, ms: performance.now() - started };
}
