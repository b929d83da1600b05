// Creates every collection's indexes in the configured database (`npm run db:indexes`).
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { resources } from '../src/resources/index.js';
import { indexesOf } from '../src/resources/manifest.js';
import { startDatabaseServer } from '../src/store/database/database-server.js';
import { ensureDeclaredIndexes } from '../src/store/queries/index-bridge.js';
import { openStore } from '../src/store/database/mongo.js';

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel, config.logFormat);
const database = await startDatabaseServer({ ...config, logger });
try {
  const store = await openStore(database.uri);
  const indexes = indexesOf(resources);
  const bridge = await ensureDeclaredIndexes(store.db, indexes, database.postgres);
  logger.info({ database: database.description, indexes: indexes.length, bridge }, 'indexes created');
  await store.close();
} finally {
  await database.stop();
}
