import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startDatabaseServer } from '../../src/store/database/database-server.js';
import { type PostgresConnection } from '../../src/store/database/postgresql.js';
import { checkQueryShapes } from './query-check.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongodbUri: string;
    /** The run's database is FerretDB on an embedded PostgreSQL: how to reach that (for the index bridge). */
    postgres: PostgresConnection | null;
    /** Where each test process writes the shapes of the queries its services sent. */
    queryShapesDir: string;
  }
}


/**
 * Resolves the database the way `npm start` does (`MONGODB_URI`, else an embedded mongod, else
 * FerretDB), but with its files in a fresh temporary folder, and stops it when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = loadConfig(process.env);
  const logger = createLogger(process.env.LOG_LEVEL ? config.logLevel : 'warn');
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-test-db-'));
  const database = await startDatabaseServer({ ...config, dataDir, logger });
  console.log(`tests use ${database.description}`);
  project.provide('mongodbUri', database.uri);
  project.provide('postgres', database.postgres ?? null);
  const queryShapesDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-query-shapes-'));
  project.provide('queryShapesDir', queryShapesDir);
  return async () => {
    await database.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
    const { rows, failures } = await checkQueryShapes(queryShapesDir, process.env.MONGODB_URI);
    await fs.rm(queryShapesDir, { recursive: true, force: true });
    console.log(`query shapes: ${rows.length}, served by an index ${rows.filter((row) => row.index).length}, on the embedded database at the cost of their answer ${rows.filter((row) => row.embedded).length} (npm run db:query-report)`);
    if (failures.length) {
      // Thrown from a teardown, an error is only printed: the exit code says the run failed.
      console.error(`FAILED: queries the declared indexes do not serve on MongoDB or on the embedded database:\n  ${failures.join('\n  ')}`);
      process.exitCode = 1;
    }
  };
}
