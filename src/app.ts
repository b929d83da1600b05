import { type Express } from 'express';
import { type Deps } from './deps.js';
import { createHttpApp } from './rest/http/express-adapter.js';
import { IdempotentWrites } from './rest/http/idempotency.js';
import { LiveRequests } from './rest/http/live-requests.js';
import { ResponseCache } from './rest/http/response-cache.js';
import { siteChanges } from './store/coordination/site-changes.js';
import { batchRoutes } from './rest/batch.js';
import { discoveryRoutes } from './rest/index-routes.js';
import { type RestUser } from './rest/rest-request.js';
import { type Credentials } from './auth/authenticate.js';
import { RestServer } from './rest/rest-server.js';
import { projectionsOf, type ResourceManifest } from './resources/manifest.js';
import { changeLog } from './store/log/change-log.js';
import { readSiteIdentity } from './resources/settings/index.js';
import { mediaFileUrl } from './resources/media/index.js';
import { isDatabaseUp } from './store/database/mongo.js';
import { adminPageRouter } from './admin-page/admin-page.serve.js';
import { apiReferenceRouter } from './admin-page/api-reference.serve.js';
import { catchUpStream, projectionFaults } from './store/projections/projections.js';
import { adminRoutes } from './admin/index.js';

export const SITE_NAME = 'CMS';
/** A cached answer lives at most this long: what no write announces (a scheduled item's time) shows within it. */
export const CACHE_ENTRY_TTL_MS = 10_000;

export type Authenticate = (credentials: Credentials) => Promise<RestUser>;

export interface AppOptions {
  /** Resolves the caller; HTTP Basic against the users collection unless a test says otherwise. */
  authenticate?: Authenticate;
  /** Whether the process is stopping: `/readyz` then answers 503. */
  isStopping?: () => boolean;
}

/** The composition root: the REST server with every resource's routes, behind Express. */
export function createApp(deps: Deps, resources: readonly ResourceManifest[], options: AppOptions = {}): Express {
  const server = new RestServer<Deps>(deps);
  for (const resource of resources) server.register(resource.routes);
  server.register(batchRoutes(server));
  server.register(
    discoveryRoutes(server, async () => {
      const site = await readSiteIdentity(deps.store.db, deps.siteUrl, deps.clock());
      return {
        name: site.title,
        description: site.description,
        url: deps.siteUrl,
        home: deps.siteUrl,
        gmt_offset: site.gmt_offset,
        timezone_string: site.timezone_string,
        site_logo: site.site_logo,
        site_icon: site.site_icon,
        site_icon_url: await mediaFileUrl(deps.store.db, deps.siteUrl, Number(site.site_icon)),
      };
    }),
  );
  const { responseCacheBytes } = deps.config;
  const projections = projectionsOf(resources);
  const changes = siteChanges(deps.store.db);
  return createHttpApp({
    cache: responseCacheBytes > 0 ? new ResponseCache({ maxBytes: responseCacheBytes, entryTtlMs: CACHE_ENTRY_TTL_MS, changes }) : undefined,
    changes,
    server,
    siteRoutes: [
      adminRoutes(deps, { changes }),
      adminPageRouter(),
      apiReferenceRouter(),
      ...resources.flatMap((resource) => (resource.siteRoutes ? [resource.siteRoutes(deps)] : [])),
    ],
    siteUrl: deps.siteUrl,
    siteName: SITE_NAME,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    trustedProxies: deps.config.trustedProxies,
    anonymousBodyLimitBytes: deps.config.anonymousBodyLimitBytes,
    idempotency: new IdempotentWrites(deps.store.db, {
      clock: deps.clock,
      logger: deps.logger,
      catchUp: async ({ stream, streamType }) => {
        const projection = projections.forType(streamType);
        if (projection) await catchUpStream(deps.store.db, changeLog(deps.store.db), projection, stream);
      },
    }),
    liveRequests: new LiveRequests({ perClient: deps.config.liveRequestsPerClient, perProcess: deps.config.liveRequestsPerProcess }),
    logger: deps.logger,
    authenticate: options.authenticate ?? deps.auth.authenticate,
    isDatabaseUp: () => isDatabaseUp(deps.store.db),
    ...(options.isStopping ? { isStopping: options.isStopping } : {}),
    // Looked up only while the kept answer of whether there is any says so: a proxy asks every node
    // several times a second, and faults are rare.
    faults: async () =>
      (await projectionFaults.any(deps.store.db))
        ? (await projectionFaults.list(deps.store.db, 20)).map(({ stream, streamType, seq, error, at }) => ({ stream, streamType, seq, error, at }))
        : [],
  });
}
