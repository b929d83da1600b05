import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { resources } from '../../src/resources/index.js';
import { startService } from '../../src/service.js';
import { freePort } from '../../src/store/database/wire-server.js';
import { isDatabaseUnavailable } from '../../src/store/database/mongo.js';
import { startOwnDatabase, startOwnPostgresDatabase, timed, type OwnDatabase } from '../support/own-database.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

// The bound a request may wait on the database (CMS_DATABASE_TIMEOUT_MS), kept short here.
const BOUND_MS = 2000;
// What a 503 may take beyond the bound: a request makes a few round trips, on a busy machine.
const MARGIN_MS = 4000;

const unavailable = {
  code: 'db_connect_fail',
  message: 'Error establishing a database connection.',
  data: { status: 503, retry_after: 1 },
};

describe('a database that stops answering', () => {
  let database: OwnDatabase;
  let app: TestApp;
  beforeAll(async () => {
    database = await startOwnDatabase();
    app = await createTestApp({ databaseUri: database.server.uri, env: { CMS_DATABASE_TIMEOUT_MS: String(BOUND_MS) } });
  }, 120_000);
  afterEach(() => {
    process.kill(database.pid(), 'SIGCONT');
  });
  afterAll(async () => {
    await app?.stop();
    await database?.stop();
  });

  it('is a 503 in the error shape within the bound while frozen, /readyz says so within 2 s while /healthz still answers, and all recover when it thaws', async () => {
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'before the freeze' } });
    expect(created.status).toBe(201);

    process.kill(database.pid(), 'SIGSTOP');
    const [read, anonymous, health, live] = await Promise.all([
      timed(() => app.api('GET', `/cms/v2/posts/${created.body.id}`, { headers: app.admin })),
      timed(() => app.api('GET', '/cms/v2/posts')),
      timed(() => app.site('GET', '/readyz')),
      timed(() => app.site('GET', '/healthz')),
    ]);
    for (const { result, ms } of [read, anonymous]) {
      expect(result.status).toBe(503);
      expect(result.body).toEqual(unavailable);
      expect(result.headers.get('retry-after')).toBe('1');
      expect(ms).toBeLessThan(BOUND_MS + MARGIN_MS);
    }
    expect(health.result.status).toBe(503);
    expect(health.result.body).toMatchObject({ database: 'down' });
    expect(health.ms).toBeLessThan(2000 + 500);
    expect(live.result.status).toBe(200);

    process.kill(database.pid(), 'SIGCONT');
    const again = await app.api('GET', `/cms/v2/posts/${created.body.id}`, { headers: app.admin, query: { context: 'edit' } });
    expect(again.status).toBe(200);
    expect(again.body.title.raw).toBe('before the freeze');
    expect((await app.site('GET', '/readyz')).status).toBe(200);
  }, 60_000);
});

// FerretDB answers a command its PostgreSQL could not run with code 1 and PostgreSQL's words
// ("terminating connection due to unexpected postmaster exit (SQLSTATE 57P01)", "failed to
// connect"): the server under it crashed, or a failover is under way. That is the database being
// away, not a fault of the request.
describe('a PostgreSQL that goes away under FerretDB', () => {
  let database: Awaited<ReturnType<typeof startOwnPostgresDatabase>>;
  let app: TestApp;
  beforeAll(async () => {
    database = await startOwnPostgresDatabase();
    if (database) app = await createTestApp({ databaseUri: database.server.uri, env: { CMS_DATABASE_TIMEOUT_MS: String(BOUND_MS) } });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await database?.stop();
  });

  it('answers 503 in the error shape (never 500) until it is back, and every write answered 2xx is stored once', async (context) => {
    if (!database) return context.skip();
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'before the crash' } });
    expect(created.status).toBe(201);
    process.kill(database.postgresPid(), 'SIGKILL');
    const answers: { status: number; code?: string; title: string }[] = [];
    // Writes sent while PostgreSQL is down and while it recovers (its supervisor starts it again).
    for (let round = 0; round < 40 && !(answers.some((a) => a.status === 503) && answers.at(-1)?.status === 200); round++) {
      const title = `during the crash ${round}`;
      const answer = await app.api('POST', `/cms/v2/posts/${created.body.id}`, { headers: app.admin, json: { title } });
      answers.push({ status: answer.status, code: answer.body?.code, title });
      if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
    expect(answers.some((a) => a.status === 503 && a.code === 'db_connect_fail'), JSON.stringify(answers)).toBe(true);
    expect(answers.at(-1)?.status).toBe(200);
    const revisions = await app.api('GET', `/cms/v2/posts/${created.body.id}/revisions`, { headers: app.admin, query: { per_page: 100, context: 'edit' } });
    const titles = (revisions.body as { title: { raw: string } }[]).map((revision) => revision.title.raw);
    for (const answer of answers.filter((a) => a.status === 200)) expect(titles.filter((title) => title === answer.title)).toHaveLength(1);
  }, 120_000);
});

describe('id claims queued behind a frozen database', () => {
  let database: OwnDatabase;
  let app: TestApp;
  beforeAll(async () => {
    database = await startOwnDatabase();
    app = await createTestApp({ databaseUri: database.server.uri, env: { CMS_DATABASE_TIMEOUT_MS: String(BOUND_MS) } });
  }, 120_000);
  afterAll(async () => {
    process.kill(database.pid(), 'SIGCONT');
    await app?.stop();
    await database?.stop();
  });

  it('id claims queued behind one the database does not answer fail with it, and later ones are tried afresh', async () => {
    // Claims are made one at a time in a process; the first one meets the frozen database.
    const ids = app.deps.ids;
    process.kill(database.pid(), 'SIGSTOP');
    const claims = await Promise.all(
      Array.from({ length: 6 }, () => timed(() => ids.next('content').then(() => 'claimed', (error: Error) => (isDatabaseUnavailable(error) ? 'unavailable' : error.name)))),
    );
    process.kill(database.pid(), 'SIGCONT');
    for (const { result, ms } of claims) {
      expect(result).toBe('unavailable');
      expect(ms).toBeLessThan(BOUND_MS + MARGIN_MS);
    }
    expect(await ids.next('content')).toBeGreaterThan(0);
  }, 60_000);
});

describe('a service still starting', () => {
  it('answers every route with a JSON 503 in the error shape until it serves', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const port = await freePort();
    const config = loadConfig({ HOST: '127.0.0.1', PORT: String(port), CMS_ADMIN_PASSWORD: 'x', LOG_LEVEL: 'silent' });
    const { inject } = await import('vitest');
    const starting = startService({
      config,
      logger: createLogger('silent'),
      resources: [...resources, { routes: [], seed: () => gate }],
      databaseUri: inject('mongodbUri'),
      databaseName: `test_starting_${port}`,
    });
    const response = await waitForAnswer(`http://127.0.0.1:${port}/cms-json/cms/v2/posts`);
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['retry-after']).toBe('1');
    expect(JSON.parse(response.body)).toEqual({
      code: 'maintenance',
      message: 'Briefly unavailable for scheduled maintenance. Check back in a minute.',
      data: { status: 503, retry_after: 1 },
    });
    release();
    const service = await starting;
    expect((await fetch(`${service.siteUrl}/cms-json/cms/v2/posts`)).status).toBe(200);
    await service.deps.store.db.dropDatabase();
    await service.stop();
  }, 60_000);
});

/** GETs `url` until something listens there. */
async function waitForAnswer(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  for (;;) {
    try {
      return await new Promise((resolve, reject) => {
        http
          .get(url, (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
          })
          .on('error', reject);
      });
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
