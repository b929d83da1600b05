import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { resources } from './resources/index.js';
import { startService } from './service.js';
import { DataDirInUseError } from './store/data-lock.js';
import { NoDatabaseError, startDatabaseServer } from './store/database-server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Configuration error: ${error.message}`);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel);

  let database;
  try {
    database = await startDatabaseServer({ ...config, logger });
  } catch (error) {
    if (!(error instanceof NoDatabaseError || error instanceof DataDirInUseError)) throw error;
    logger.fatal(error.message);
    process.exit(1);
  }
  logger.info({ database: database.description }, 'database ready');

  const service = await startService({ config, logger, resources, databaseUri: database.uri }).catch(async (error) => {
    await database.stop();
    throw error;
  });
  logger.info({ url: service.siteUrl, api: `${service.siteUrl}/cms-json/` }, 'listening');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await service.stop();
    await database.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
