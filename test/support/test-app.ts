import { type CommandStartedEvent } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import { type Authenticate } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { resources as serviceResources } from '../../src/resources/index.js';
import { type ResourceManifest } from '../../src/resources/manifest.js';
import { startService } from '../../src/service.js';
import { type Deps } from '../../src/deps.js';
import { createUserAccount } from '../../src/resources/users/user.commands.js';
import { flushQueryShapes, recordCommand } from './query-recorder.js';
import { type RoleName } from '../../src/auth/capabilities.js';

export const ADMIN_PASSWORD = 'admin-password-for-tests';

export function basic(username: string, password: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | (string | number)[]>;
  headers?: Record<string, string>;
  /** Sent as JSON unless `form` or `raw` is used. */
  json?: unknown;
  form?: Record<string, string>;
  raw?: { body: BodyInit; contentType?: string };
}

export interface TestApp {
  siteUrl: string;
  apiRoot: string;
  databaseName: string;
  /** Every log line the service wrote, parsed. */
  logs: Record<string, unknown>[];
  /** A request to `{site_url}/cms-json<route>`. */
  api(method: string, route: string, options?: RequestOptions): Promise<ApiResponse>;
  /** The running service's dependencies (database, clock, ids), for arranging test data. */
  deps: Deps;
  /**
   * A new user with `role` (or `null` for no role), created in the database; returns its id and the
   * HTTP Basic header to act as it with its account password.
   */
  asRole(role: RoleName | null, fields?: Record<string, string>): Promise<{ id: number; username: string; password: string; headers: Record<string, string> }>;
  /** The administrator created at first start (`CMS_ADMIN_USER` / `CMS_ADMIN_PASSWORD`). */
  admin: Record<string, string>;
  /** A request to any URL of the site. */
  site(method: string, pathAndQuery: string, options?: RequestOptions): Promise<ApiResponse>;
  stop(): Promise<void>;
}

export interface TestAppOptions {
  resources?: readonly ResourceManifest[];
  authenticate?: Authenticate;
  env?: Record<string, string>;
  /** A database server other than the run's (one a test may freeze or kill). */
  databaseUri?: string;
  /** Told every command the service sends to the database (as well as the run's query-shape record). */
  onCommand?: (event: CommandStartedEvent) => void;
  /** The service's clock, for a test that moves time. */
  clock?: () => Date;
}

/**
 * A second service on a test app's database, as after a restart: its start-up heals the change
 * log's projections. Silent; stop it when done.
 */
export async function startServiceOn(
  databaseName: string,
  options: { onCommand?: (event: CommandStartedEvent) => void; env?: Record<string, string> } = {},
): ReturnType<typeof startService> {
  const service = await startService({
    config: loadConfig({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...options.env }),
    logger: pino({ level: 'silent' }),
    resources: serviceResources,
    databaseUri: inject('mongodbUri'),
    databaseName,
    postgres: inject('postgres') ?? undefined,
    onCommand: (event) => {
      recordCommand(event);
      options.onCommand?.(event);
    },
  });
  return {
    ...service,
    stop: async () => {
      await service.stop();
      flushQueryShapes();
    },
  };
}

/**
 * Two processes' worth of the service on one database for a test file: a test app and a second
 * service on its database, started before the file's tests and stopped after them. `options`
 * shape the test app alone (a clock of its own, for a writer whose clock is off).
 */
export function twoServicesOnOneDatabase(options: TestAppOptions = {}): { readonly app: TestApp; readonly other: Awaited<ReturnType<typeof startServiceOn>> } {
  let app: TestApp | undefined;
  let other: Awaited<ReturnType<typeof startServiceOn>> | undefined;
  beforeAll(async () => {
    app = await createTestApp(options);
    other = await startServiceOn(app.databaseName);
  });
  afterAll(async () => {
    await other?.stop();
    await app?.stop();
  });
  return {
    get app() {
      return app!;
    },
    get other() {
      return other!;
    },
  };
}

/**
 * Stands for a value a hook makes later (a test app started in `beforeAll`): every property read
 * goes to the value as it is then. Read before the hook ran, it says so.
 */
export function later<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const value = current();
      if (value === undefined) throw new Error(`${what} is not ready: use it inside a test or a hook`);
      return Reflect.get(value, key);
    },
  });
}

/**
 * The test app of a test file (or of one `describe`): started before its tests, stopped after
 * them. What it returns stands for the app, so a file holds it in a `const` rather than a
 * module-level `let` its tests would share.
 */
export function testAppForFile(options: TestAppOptions = {}): TestApp {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await createTestApp(options);
  });
  afterAll(async () => {
    await app?.stop();
  });
  return later('the test app', () => app);
}

/** A user `asRole` made: its id, name, password and the headers to act as it. */
export type Actor = Awaited<ReturnType<TestApp['asRole']>>;

/** Users of the enclosing `describe` (or file), one per role named, made before its tests. */
export function usersFor<R extends RoleName>(app: TestApp, roles: readonly R[]): Record<R, Actor> {
  let users: Record<R, Actor> | undefined;
  beforeAll(async () => {
    const made = {} as Record<R, Actor>;
    for (const role of roles) made[role] = await app.asRole(role);
    users = made;
  });
  return later('the users', () => users);
}

/** Starts the real service on an ephemeral port, with a database of its own on the run's server. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const databaseUri = options.databaseUri ?? inject('mongodbUri');
  const databaseName = `test_${randomBytes(6).toString('hex')}`;
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    CMS_ADMIN_USER: 'admin',
    CMS_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ...options.env,
  });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });
  const logger = pino({ level: config.logLevel }, sink);
  const service = await startService({
    config,
    logger,
    resources: options.resources ?? serviceResources,
    databaseUri,
    databaseName,
    // The run's embedded PostgreSQL, unless the test brings a database of its own.
    postgres: options.databaseUri ? undefined : (inject('postgres') ?? undefined),
    authenticate: options.authenticate,
    clock: options.clock,
    onCommand: (event) => {
      recordCommand(event);
      options.onCommand?.(event);
    },
  });

  const send = async (method: string, url: string, request: RequestOptions = {}): Promise<ApiResponse> => {
    const target = new URL(url);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (Array.isArray(value)) value.forEach((item) => target.searchParams.append(`${key}[]`, String(item)));
      else target.searchParams.append(key, String(value));
    }
    const headers: Record<string, string> = { ...request.headers };
    let body: BodyInit | undefined;
    if (request.json !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.form) {
      body = new URLSearchParams(request.form);
    } else if (request.raw) {
      if (request.raw.contentType) headers['Content-Type'] = request.raw.contentType;
      body = request.raw.body;
    }
    const response = await fetch(target, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if (/^application\/([\w.-]+\+)?json/.test(response.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  let userCount = 0;
  return {
    deps: service.deps,
    admin: basic('admin', ADMIN_PASSWORD),
    asRole: async (role, fields = {}) => {
      const username = fields.username ?? `${role ?? 'norole'}${++userCount}_${randomBytes(3).toString('hex')}`;
      const password = fields.password ?? `pw-${randomBytes(8).toString('hex')}`;
      const user = await createUserAccount(service.deps, {
        username,
        email: fields.email ?? `${username}@example.test`,
        password,
        roles: role ? [role] : [],
        ...(fields.name ? { name: fields.name } : {}),
      });
      return { id: user._id, username, password, headers: basic(username, password) };
    },
    siteUrl: service.siteUrl,
    apiRoot: `${service.siteUrl}/cms-json`,
    databaseName,
    logs,
    api: (method, route, request) => send(method, `${service.siteUrl}/cms-json${route}`, request),
    site: (method, pathAndQuery, request) => send(method, `${service.siteUrl}${pathAndQuery}`, request),
    stop: async () => {
      await service.stop();
      flushQueryShapes();
      const client = new MongoClient(databaseUri);
      await client.db(databaseName).dropDatabase();
      await client.close();
    },
  };
}
