import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startDatabaseServer } from '../../src/store/database-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongodbUri: string;
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
  return async () => {
    await database.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
}
