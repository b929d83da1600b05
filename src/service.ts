import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { createApp, type AppOptions } from './app.js';
import { type Config } from './config.js';
import { type Logger } from './logger.js';
import { userAccounts } from './resources/users/index.js';
import { indexesOf, siteHooksOf, type GeneratedAdministrator, type ResourceManifest } from './resources/manifest.js';
import { ensureDeclaredIndexes } from './store/queries/index-bridge.js';
import { openStore, type Store, type StoreOptions } from './store/database/mongo.js';
import { type PostgresConnection } from './store/database/postgresql.js';
import { sequences } from './store/coordination/sequences.js';
import { asServiceWork } from './store/queries/service-work.js';
import { siteChanges } from './store/coordination/site-changes.js';
import { createAuthenticator } from './auth/authenticate.js';
import { loginThrottle } from './auth/login-throttle.js';
import { createSessions, type Sessions } from './auth/sessions.js';
import { type AccountLookup } from './auth/accounts.js';
import { type Deps } from './deps.js';
import { loadThemes, type Themes } from './themes/themes.js';
import { RETRY_AFTER_UNAVAILABLE, ServiceStarting } from './rest/errors.js';
import { answerClientError } from './rest/http/express-adapter.js';
import { ContentRenderer, renderThreadFile } from './lib/content-render.off-thread.js';

export interface RunningService {
  /** `http://HOST:PORT` */
  readonly siteUrl: string;
  readonly deps: Deps;
  /** The administrator this start created with a generated password, if it did. */
  readonly generatedAdministrator?: GeneratedAdministrator;
  /** Stops accepting, lets requests in flight finish (bounded), then closes the database connection. */
  stop(): Promise<void>;
}

export interface ServiceOptions extends AppOptions {
  config: Config;
  logger: Logger;
  resources: readonly ResourceManifest[];
  databaseUri: string;
  /** Overrides the database named by the URI (tests give each file its own). */
  databaseName?: string;
  /** Told every command sent to the database (see `StoreOptions.onCommand`). */
  onCommand?: StoreOptions['onCommand'];
  /** The themes, when the caller loaded them already; otherwise read from `config` here. */
  themes?: Themes;
  /** FerretDB's embedded PostgreSQL, when the database is that: the declared indexes get their bridge there. */
  postgres?: PostgresConnection;
  /** The service's clock; the system's unless a test moves time. */
  clock?: () => Date;
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, logger, resources } = options;
  const themes = options.themes ?? loadThemes(config);
  const store = await openServiceStore(options);
  const { server, siteUrl, serve } = await listenWhileStarting(config);
  const clock = options.clock ?? (() => new Date());
  const accounts = userAccounts(store.db);
  const sessions = createSessions(store.db, accounts, clock);
  const auth = configuredAuthenticator(store.db, config, accounts, sessions, clock);
  siteChanges(store.db).onChange(auth.forgetUsers, 'site');
  const renderer = new ContentRenderer({ threadFile: renderThreadFile(), cacheBytes: config.renderCacheBytes });
  // Any write may have erased words a kept render holds (a revision's, an item's): every one empties it.
  siteChanges(store.db).onChange(() => renderer.cache.clear());
  const deps: Deps = { config, store, logger, clock, siteUrl, ids: sequences(store.db), auth, sessions, themes, hooks: siteHooksOf(resources), renderer };
  let generatedAdministrator: GeneratedAdministrator | undefined;
  await asServiceWork('start-up', async () => {
    for (const resource of resources) generatedAdministrator ??= (await resource.seed?.(deps))?.generatedAdministrator;
  });
  let stopping = false;
  serve(createApp(deps, resources, { ...options, isStopping: () => stopping }));
  const background = resources.flatMap((resource) => (resource.background ? [resource.background(deps)] : []));

  return {
    siteUrl,
    deps,
    generatedAdministrator,
    stop: async () => {
      // Behind a load balancer: ready no more, and still serving until it has looked again.
      stopping = true;
      if (config.drainMs > 0) await new Promise((resolve) => setTimeout(resolve, config.drainMs));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections go idle once their request is answered; close them as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const deadline = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await Promise.all([closed, ...background.map((work) => work.stop())]);
      clearInterval(sweep);
      clearTimeout(deadline);
      await renderer.close();
      await store.close();
    },
  };
}

/** Opens the database, its declared indexes brought in line first. */
async function openServiceStore(options: ServiceOptions): Promise<Store> {
  const { config, logger, resources } = options;
  const store = await openStore(options.databaseUri, {
    databaseName: options.databaseName,
    timeoutMs: config.databaseTimeoutMs,
    onCommand: options.onCommand,
    postgres: options.postgres,
  });
  const bridge = await ensureDeclaredIndexes(store.db, indexesOf(resources), options.postgres);
  if (bridge.created.length || bridge.dropped.length) {
    logger.info({ created: bridge.created.length, dropped: bridge.dropped.length }, 'index bridge brought in line with the declared indexes');
  }
  return store;
}

/**
 * Listening comes first (with PORT=0 the site URL is known only then); until the app is
 * built (`serve`), requests get 503 in the error shape rather than waiting on a socket nobody answers.
 */
async function listenWhileStarting(config: Config): Promise<{ server: http.Server; siteUrl: string; serve(app: http.RequestListener): void }> {
  let app: http.RequestListener | undefined;
  const starting = JSON.stringify(new ServiceStarting({ retry_after: RETRY_AFTER_UNAVAILABLE }).toBody());
  const server = http.createServer((req, res) => {
    if (app) return app(req, res);
    res
      .writeHead(503, { 'Retry-After': String(RETRY_AFTER_UNAVAILABLE), 'Content-Type': 'application/json; charset=UTF-8' })
      .end(req.method === 'HEAD' ? undefined : starting);
  });
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    server,
    siteUrl: `http://${host}:${port}`,
    serve(built) {
      app = built;
    },
  };
}

/** The authenticator, with the login throttle as configured. */
function configuredAuthenticator(db: Store['db'], config: Config, accounts: AccountLookup, sessions: Sessions, clock: () => Date) {
  return createAuthenticator({
    db,
    accounts,
    clock,
    sessions,
    cacheMs: config.authCacheSeconds * 1000,
    throttle: loginThrottle(
      db,
      {
        maxFailures: config.loginMaxFailures,
        maxAddressFailures: config.loginMaxAddressFailures,
        windowSeconds: config.loginWindowSeconds,
        slowdownMs: config.loginSlowdownMs,
      },
      clock,
    ),
  });
}
