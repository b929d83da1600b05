import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { resources } from './resources/index.js';
import { startService } from './service.js';
import { DataDirInUseError } from './store/data-lock.js';
import { NoDatabaseError, startDatabaseServer } from './store/database-server.js';
import { announceReady, startWorkers, WorkerStartFailed } from './workers.js';
import { loadThemes, ThemeError, type Themes } from './themes/themes.js';

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
  // A broken theme stops start-up before anything else is started, naming the file.
  let themes: Themes;
  try {
    themes = loadThemes(config);
  } catch (error) {
    if (!(error instanceof ThemeError)) throw error;
    console.error(`Theme error: ${error.message}`);
    process.exit(1);
  }
  if (cluster.isWorker) return serveAsWorker(config, logger, themes);

  let database;
  try {
    database = await startDatabaseServer({ ...config, logger });
  } catch (error) {
    if (!(error instanceof NoDatabaseError || error instanceof DataDirInUseError)) throw error;
    logger.fatal(error.message);
    process.exit(1);
  }
  logger.info({ database: database.description }, 'database ready');

  let service;
  try {
    service =
      config.workers === 1
        ? await startService({ config, logger, resources, databaseUri: database.uri, themes })
        : await startWorkers(config.workers, { MONGODB_URI: database.uri }, logger);
  } catch (error) {
    await database.stop();
    if (!(error instanceof WorkerStartFailed)) throw error;
    logger.fatal(error.message);
    process.exit(1);
  }
  logger.info({ url: service.siteUrl, api: `${service.siteUrl}/cms-json/`, workers: config.workers }, 'listening');

  onStopSignal(logger, async () => {
    await service.stop();
    await database.stop();
  });
}

/** A process forked by `startWorkers`: the database is the primary's, given as MONGODB_URI. */
async function serveAsWorker(config: Config, logger: Logger, themes: Themes): Promise<void> {
  const service = await startService({ config, logger, resources, databaseUri: config.mongodbUri!, themes });
  announceReady(service.siteUrl);
  onStopSignal(logger, () => service.stop());
}

function onStopSignal(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await stop();
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
