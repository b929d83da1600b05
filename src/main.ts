import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from './config.js';
import { reportEventLoopDelay } from './event-loop-report.js';
import { ADMIN_PREFIX } from './admin/prefix.js';
import { API_REFERENCE_PATH } from './admin-page/api-reference.path.js';
import { createLogger, logsForPeople, type Logger } from './logger.js';
import { type GeneratedAdministrator } from './resources/manifest.js';
import { type ServiceOptions } from './service.js';
import { shutdownOnStopSignals, whenRequested, type Shutdown } from './shutdown.js';
import { DataDirInUseError } from './store/database/data-lock.js';
import { NoDatabaseError, startDatabaseServer } from './store/database/database-server.js';
import { EMBEDDED_POSTGRES_ENV, embeddedPostgresOf } from './store/database/postgresql.js';
import { announceReady, startWorkers, WorkerStartFailed } from './workers.js';
import { loadThemes, ThemeError, type Themes } from './themes/themes.js';

async function main(): Promise<void> {
  // First: a stop signal from now on stops the service in order, whatever is starting.
  const shutdown = shutdownOnStopSignals();
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Configuration error: ${error.message}`);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel, config.logFormat);
  const eventLoop = config.eventLoopReport ? reportEventLoopDelay(config.eventLoopReport, cluster.isWorker ? 'worker' : 'primary') : undefined;
  // A broken theme stops start-up before anything else is started, naming the file.
  let themes: Themes;
  try {
    themes = loadThemes(config);
  } catch (error) {
    if (!(error instanceof ThemeError)) throw error;
    console.error(`Theme error: ${error.message}`);
    process.exit(1);
  }
  if (cluster.isWorker) return serveAsWorker(config, logger, themes, shutdown, () => eventLoop?.serving());

  let database;
  try {
    database = await startDatabaseServer({ ...config, logger, shutdown });
  } catch (error) {
    if (!(error instanceof NoDatabaseError || error instanceof DataDirInUseError)) throw error;
    logger.fatal(error.message);
    process.exit(1);
  }
  logger.info({ database: database.description }, 'database ready');

  let service;
  try {
    const { postgres } = database;
    if (config.workers === 1) {
      service = await startServing({ config, logger, databaseUri: database.uri, themes, postgres });
    } else {
      // Each worker brings the index bridge in line as it starts, one after another (startWorkers).
      const env = { MONGODB_URI: database.uri, ...(postgres ? { [EMBEDDED_POSTGRES_ENV]: JSON.stringify(postgres) } : {}) };
      service = await startWorkers({ count: config.workers, env, maxOldSpaceMiB: config.workerHeapMiB }, logger, shutdown);
    }
  } catch (error) {
    await database.stop();
    // Workers that a stop signal reached while they started: a stop, not a failure.
    if (shutdown.signal.aborted) process.exit(0);
    if (!(error instanceof WorkerStartFailed)) throw error;
    logger.fatal(error.message);
    process.exit(1);
  }
  logger.info({ url: service.siteUrl, api: `${service.siteUrl}/cms-json/`, admin: `${service.siteUrl}${ADMIN_PREFIX}/`, workers: config.workers }, 'listening');
  if (logsForPeople(config.logFormat)) process.stdout.write(welcome(service.siteUrl, service.generatedAdministrator));
  eventLoop?.serving();

  stopWhenRequested(shutdown, logger, async () => {
    await service.stop();
    await database.stop();
  });
}

/** What a person who just ran `npm start` in a terminal needs to know, in plain words. */
function welcome(siteUrl: string, administrator: GeneratedAdministrator | undefined): string {
  const lines = [
    '',
    'The service is running.',
    `  Site:        ${siteUrl}/`,
    `  API root:    ${siteUrl}/cms-json/`,
    `  Reference:   ${siteUrl}${API_REFERENCE_PATH}/`,
    `  Admin page:  ${siteUrl}${ADMIN_PREFIX}/`,
  ];
  if (administrator) {
    lines.push(
      '',
      `An administrator was created: sign in as "${administrator.username}" with the password`,
      `  ${administrator.password}`,
      'It is shown only this once: keep it, or set CMS_ADMIN_PASSWORD before the first start.',
    );
  }
  lines.push('Stop with Ctrl+C.', '', '');
  return lines.join('\n');
}

/**
 * The service itself, loaded only by a process that serves: the primary of several workers only
 * starts the database and forks, and the resources' modules would more than double its memory.
 */
async function startServing(options: Omit<ServiceOptions, 'resources'>) {
  const [{ resources }, { startService }] = await Promise.all([import('./resources/index.js'), import('./service.js')]);
  return startService({ ...options, resources });
}

/** A process forked by `startWorkers`: the database is the primary's, given as MONGODB_URI. */
async function serveAsWorker(config: Config, logger: Logger, themes: Themes, shutdown: Shutdown, serving: () => void): Promise<void> {
  const postgres = embeddedPostgresOf(process.env);
  const service = await startServing({ config, logger, databaseUri: config.mongodbUri!, themes, postgres });
  serving();
  announceReady(service.siteUrl, service.generatedAdministrator);
  stopWhenRequested(shutdown, logger, () => service.stop());
}

/** Once the shutdown is requested (a signal, or a supervised process stopped): stops, then exits 0. */
function stopWhenRequested(shutdown: Shutdown, logger: Logger, stop: () => Promise<void>): void {
  whenRequested(shutdown, (reason) => {
    logger.info({ reason }, 'shutting down');
    void stop().then(() => {
      logger.info('stopped');
      process.exit(0);
    });
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
