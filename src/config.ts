import net from 'node:net';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConnectionString } from 'mongodb-connection-string-url';
import { compile as compileTrustedProxies } from 'proxy-addr';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `auto`: readable lines on a terminal, JSON lines anywhere else. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Config {
  /** Address and port the HTTP server binds to. */
  readonly host: string;
  readonly port: number;
  /** External MongoDB; when absent an embedded server is started. */
  readonly mongodbUri: string | undefined;
  /** Where the embedded database keeps its files. */
  readonly dataDir: string;
  /** Where tools built on first use (the FerretDB binary) are kept between runs. */
  readonly cacheDir: string;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** Largest request body accepted, in bytes. */
  readonly bodyLimitBytes: number;
  /**
   * Largest body of a request that carries no credentials (`CMS_ANONYMOUS_BODY_LIMIT_BYTES`),
   * refused before it is read: an anonymous caller may not write anything large.
   */
  readonly anonymousBodyLimitBytes: number;
  /** Largest media file accepted by an upload (`CMS_MAX_UPLOAD_BYTES`), counted as it streams in. */
  readonly maxUploadBytes: number;
  /** How long a shutdown waits for requests in flight. */
  readonly shutdownTimeoutMs: number;
  /** How long a stopping process keeps serving while `/readyz` says it is stopping, before it stops listening (`CMS_DRAIN_MS`). */
  readonly drainMs: number;
  /** The administrator created on first start, when there are no users. */
  readonly adminUser: string;
  readonly adminPassword: string | undefined;
  /**
   * Failed logins allowed per address and account within the window, before that pair is refused
   * (429); beyond as many from all addresses together, the account's password checks are slowed.
   */
  readonly loginMaxFailures: number;
  /** Failed logins allowed per address over all accounts within the window (password spraying). */
  readonly loginMaxAddressFailures: number;
  readonly loginWindowSeconds: number;
  /** How far apart a slowed account's password checks are, from all addresses and processes together. */
  readonly loginSlowdownMs: number;
  /**
   * The proxies whose `X-Forwarded-For` names the client (`CMS_TRUSTED_PROXIES`), as Express's
   * `trust proxy` takes them: addresses, CIDR ranges and `loopback`/`linklocal`/`uniquelocal`, or a
   * number of hops; none (the peer's own address is the client's) when empty or 0.
   */
  readonly trustedProxies: readonly string[] | number;
  /** How long a verified account password is trusted without hashing it again. */
  readonly authCacheSeconds: number;
  /** How long one database round trip may take before a request answers 503. */
  readonly databaseTimeoutMs: number;
  /** Memory for cached anonymous GET answers (`CMS_RESPONSE_CACHE_BYTES`), counted at two bytes a character of their JSON; 0 keeps none. */
  readonly responseCacheBytes: number;
  /**
   * Memory for the rendered content of long items, by item version (`CMS_RENDER_CACHE_BYTES`),
   * counted at two bytes a character; 0 keeps none.
   */
  readonly renderCacheBytes: number;
  /** Service processes sharing the port (`CMS_WORKERS`); 1 serves from the main process itself. */
  readonly workers: number;
  /** Each worker's V8 old generation, in MiB (`CMS_WORKER_HEAP_MB`, `--max-old-space-size`); 0: V8's own limit. */
  readonly workerHeapMiB: number;
  /** The active theme (`CMS_THEME`): a folder name under `themesDir`. */
  readonly theme: string;
  /** Where theme folders live (`CMS_THEMES_DIR`); by default the package's own `themes/`. */
  readonly themesDir: string;
  /** Where plugin packages are installed from (`CMS_PLUGIN_DIRECTORY`); by default the package's own `plugin-directory/`. */
  readonly pluginDirectory: string;
  /**
   * `CMS_EVENT_LOOP_REPORT`: a file each process appends its event-loop delay to (one JSON line),
   * at exit and on SIGUSR2; for `npm run bench:event-loop`. Unset: nothing is measured.
   */
  readonly eventLoopReport: string | undefined;
  /**
   * Webhook targets allowed although their address is loopback, private, link-local or otherwise
   * not public (`CMS_WEBHOOKS_ALLOW_ADDRESSES`): addresses and CIDR ranges. Empty: none.
   */
  readonly webhooksAllowAddresses: readonly string[];
  /** How long one webhook delivery may take, connecting and answering (`CMS_WEBHOOKS_TIMEOUT_MS`). */
  readonly webhooksTimeoutMs: number;
  /** Webhook deliveries in flight at once, over every endpoint (`CMS_WEBHOOKS_CONCURRENCY`). */
  readonly webhooksConcurrency: number;
  /** How often the webhook deliverer looks for new events and due retries (`CMS_WEBHOOKS_POLL_MS`). */
  readonly webhooksPollMs: number;
  /** Live requests (the change feed's long polls and event streams) one client address may hold open in a process (`CMS_LIVE_REQUESTS_PER_CLIENT`). */
  readonly liveRequestsPerClient: number;
  /** Live requests one process holds open at once, from everyone (`CMS_LIVE_REQUESTS_PER_PROCESS`). */
  readonly liveRequestsPerProcess: number;
  /** How long an edit lock lasts after its holder last took or refreshed it (`CMS_LOCK_WINDOW_SECONDS`; WordPress's 150). */
  readonly lockWindowSeconds: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** Reads the environment once; the only reader of `process.env` is the caller passing it in. */
export function loadConfig(env: Env): Config {
  return Object.freeze({
    host: text(env, 'HOST', '127.0.0.1'),
    port: integer(env, 'PORT', 8080, 0, 65535),
    mongodbUri: databaseUri(env, 'MONGODB_URI', 'CMS_ALLOW_WEAK_WRITES'),
    dataDir: path.resolve(text(env, 'CMS_DATA_DIR', './data')),
    cacheDir: path.resolve(text(env, 'CMS_CACHE_DIR', defaultCacheDir(env))),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    logFormat: oneOf(env, 'LOG_FORMAT', 'auto', LOG_FORMATS),
    // MongoDB's largest document: a larger body could only be refused once parsed, as too large to store.
    bodyLimitBytes: integer(env, 'CMS_BODY_LIMIT_BYTES', 16 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    anonymousBodyLimitBytes: integer(env, 'CMS_ANONYMOUS_BODY_LIMIT_BYTES', 64 * 1024, 1, Number.MAX_SAFE_INTEGER),
    maxUploadBytes: integer(env, 'CMS_MAX_UPLOAD_BYTES', 1024 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    shutdownTimeoutMs: integer(env, 'CMS_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    drainMs: integer(env, 'CMS_DRAIN_MS', 0, 0, 600_000),
    adminUser: text(env, 'CMS_ADMIN_USER', 'admin'),
    adminPassword: env.CMS_ADMIN_PASSWORD || undefined,
    loginMaxFailures: integer(env, 'CMS_LOGIN_MAX_FAILURES', 10, 1, 1_000_000),
    loginMaxAddressFailures: integer(env, 'CMS_LOGIN_MAX_ADDRESS_FAILURES', 100, 1, 1_000_000),
    loginWindowSeconds: integer(env, 'CMS_LOGIN_WINDOW_SECONDS', 900, 1, 86_400 * 30),
    loginSlowdownMs: integer(env, 'CMS_LOGIN_SLOWDOWN_MS', 1000, 1, 60_000),
    trustedProxies: trustedProxies(env, 'CMS_TRUSTED_PROXIES'),
    authCacheSeconds: integer(env, 'CMS_AUTH_CACHE_SECONDS', 60, 0, 86_400),
    databaseTimeoutMs: integer(env, 'CMS_DATABASE_TIMEOUT_MS', namesReplicaSet(env.MONGODB_URI) ? REPLICA_SET_TIMEOUT_MS : 5000, 100, 600_000),
    responseCacheBytes: integer(env, 'CMS_RESPONSE_CACHE_BYTES', 32 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    renderCacheBytes: integer(env, 'CMS_RENDER_CACHE_BYTES', 16 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    workers: integer(env, 'CMS_WORKERS', os.availableParallelism(), 1, 256),
    workerHeapMiB: workerHeap(env, 'CMS_WORKER_HEAP_MB', 96),
    theme: text(env, 'CMS_THEME', 'cornerstone'),
    themesDir: path.resolve(text(env, 'CMS_THEMES_DIR', path.join(packageRoot(), 'themes'))),
    pluginDirectory: path.resolve(text(env, 'CMS_PLUGIN_DIRECTORY', path.join(packageRoot(), 'plugin-directory'))),
    eventLoopReport: env.CMS_EVENT_LOOP_REPORT?.trim() ? path.resolve(env.CMS_EVENT_LOOP_REPORT.trim()) : undefined,
    webhooksAllowAddresses: addressList(env, 'CMS_WEBHOOKS_ALLOW_ADDRESSES'),
    webhooksTimeoutMs: integer(env, 'CMS_WEBHOOKS_TIMEOUT_MS', 10_000, 100, 120_000),
    webhooksConcurrency: integer(env, 'CMS_WEBHOOKS_CONCURRENCY', 8, 1, 256),
    webhooksPollMs: integer(env, 'CMS_WEBHOOKS_POLL_MS', 1000, 10, 60_000),
    liveRequestsPerClient: integer(env, 'CMS_LIVE_REQUESTS_PER_CLIENT', 8, 1, 100_000),
    liveRequestsPerProcess: integer(env, 'CMS_LIVE_REQUESTS_PER_PROCESS', 200, 1, 100_000),
    lockWindowSeconds: integer(env, 'CMS_LOCK_WINDOW_SECONDS', 150, 1, 86_400),
  });
}

/** The folder of the installed package (the nearest one above this file with a package.json), whatever the working directory. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

function defaultCacheDir(env: Env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache'), 'cms-service');
}

function text(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim();
  return value ? value : fallback;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${raw}".`);
  }
  return Number(raw);
}

/**
 * The database's URI, refused when it asks for less than the service's promises need on a
 * replica set (see `DURABILITY` in src/store/database/mongo.ts): reads from a secondary, or of data a
 * failover may roll back, and, unless `allowName` says the operator accepts losing acknowledged
 * writes in a failover, a write concern below a majority.
 */
function databaseUri(env: Env, name: string, allowName: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let params: URLSearchParams;
  try {
    params = new ConnectionString(raw).searchParams;
  } catch (error) {
    throw new ConfigError(`${name} is not a MongoDB connection string: ${(error as Error).message}`);
  }
  const option = (key: string) => uriOption(params, key);
  const readPreference = option('readPreference');
  if (readPreference !== undefined && readPreference !== 'primary') {
    throw new ConfigError(`${name} asks for readPreference=${readPreference}: the service reads its own writes and the change log's order from the primary only; remove it.`);
  }
  const readConcern = option('readConcernLevel');
  if (readConcern !== undefined && readConcern !== 'majority') {
    throw new ConfigError(`${name} asks for readConcernLevel=${readConcern}: the service reads only what a majority holds (no change a failover rolls back is ever seen); remove it.`);
  }
  const w = option('w');
  if (w !== undefined && w !== 'majority' && env[allowName]?.trim() !== 'true') {
    throw new ConfigError(`${name} asks for w=${w}: a write answered as stored could be rolled back by a failover; remove it (the service writes with w=majority), or set ${allowName}=true to accept that.`);
  }
  return raw;
}

/**
 * A replica set's database is waited for longer by default: an election (up to about 12 s) is
 * then ridden out by requests in flight, slower rather than failed.
 */
const REPLICA_SET_TIMEOUT_MS = 15_000;

/** Whether a URI names a replica set: its `replicaSet`, or a DNS seed list (`mongodb+srv:`, always one). */
function namesReplicaSet(uri: string | undefined): boolean {
  if (!uri?.trim()) return false;
  const parsed = new ConnectionString(uri.trim());
  return parsed.isSRV || uriOption(parsed.searchParams, 'replicaSet') !== undefined;
}

/** A connection string's option: the driver reads their names whatever their case (`replicaset`, `W`). */
function uriOption(params: URLSearchParams, name: string): string | undefined {
  return [...params.entries()].find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
}

/** Below this a worker cannot hold a 16 MB body parsed, with the rest of its work. */
const MIN_WORKER_HEAP_MIB = 48;

function workerHeap(env: Env, name: string, fallback: number): number {
  const value = integer(env, name, fallback, 0, 1024 * 1024);
  if (value > 0 && value < MIN_WORKER_HEAP_MIB) throw new ConfigError(`${name} must be 0 (no cap) or at least ${MIN_WORKER_HEAP_MIB}, not "${value}".`);
  return value;
}

/**
 * A hop count, or a comma-separated list checked by proxy-addr, the parser Express itself uses
 * for `trust proxy` (so what is accepted here is exactly what Express trusts). Trusting every
 * peer (`true`) is not offered: any client could then name its own address.
 */
function trustedProxies(env: Env, name: string): readonly string[] | number {
  const raw = env[name]?.trim();
  if (!raw) return [];
  if (/^\d+$/.test(raw)) return integer(env, name, 0, 0, 100);
  const list = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  try {
    compileTrustedProxies(list);
  } catch (error) {
    throw new ConfigError(
      `${name} must be a number of proxy hops, or addresses and CIDR ranges (or loopback, linklocal, uniquelocal) separated by commas: ${(error as Error).message}.`,
    );
  }
  return Object.freeze(list);
}

/** Addresses and CIDR ranges separated by commas (`127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`). */
function addressList(env: Env, name: string): readonly string[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  const list = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of list) {
    const [address, prefix, ...rest] = entry.split('/');
    const family = net.isIP(address);
    const bits = family === 4 ? 32 : 128;
    if (!family || rest.length || (prefix !== undefined && (!/^\d+$/.test(prefix) || Number(prefix) > bits))) {
      throw new ConfigError(`${name} must be IP addresses or CIDR ranges separated by commas, not "${entry}".`);
    }
  }
  return Object.freeze(list);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!allowed.includes(raw as T)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, not "${raw}".`);
  }
  return raw as T;
}
