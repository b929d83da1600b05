import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECTION_WAIT_MS } from '../../src/resources/changes/changes.queries.js';
import { READ_BACK_TIMEOUTS } from '../../src/store/database/mongo.js';
import { startFaultProxy, type FaultProxy, type WireCommand } from '../support/fault-proxy.js';
import { startOwnDatabase, type OwnDatabase } from '../support/own-database.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

// The bound a request waits on the database (CMS_DATABASE_TIMEOUT_MS), kept short here.
const BOUND_MS = 1000;

const writesTo = (collection: string) => (command: WireCommand) => (command.name === 'insert' || command.name === 'update') && command.collection === collection;

/**
 * A failover between an append and its projection: the change log took the event, and the
 * database then refuses writes for a while (a primary stepping down), within the bound a write
 * waits for it. The item's read model must still reach the event once the database takes writes
 * again: the change feed delivers an event only once its item's read model holds it, so an event
 * left unprojected held every reader of the feed before it until the item's next write or a
 * restart.
 */
describe('an append whose projection meets a database refusing writes', () => {
  let database: OwnDatabase;
  let proxy: FaultProxy;
  let app: TestApp;
  beforeAll(async () => {
    database = await startOwnDatabase();
    const { hostname, port } = new URL(database.server.uri);
    proxy = await startFaultProxy({ host: hostname, port: Number(port) });
    app = await createTestApp({ databaseUri: proxy.uri, env: { CMS_DATABASE_TIMEOUT_MS: String(BOUND_MS) } });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await proxy?.close();
    await database?.stop();
  });

  /** From the next write to `collection` on (that one included), every write is refused for `ms`. */
  const refuseWritesFromNextTo = (collection: string, ms: number) => {
    const isWrite = writesTo(collection);
    let armed = true;
    const stop = proxy.slow((command) => {
      if (armed && isWrite(command)) {
        armed = false;
        proxy.refuseWrites(ms);
      }
      return false;
    }, 0);
    return stop;
  };

  const feedAfter = async (since: number) => {
    const answer = await app.api('GET', `/cms/v2/changes?since=${since}&limit=100`, { headers: app.admin });
    expect(answer.status).toBe(200);
    return answer.body as { changes: { item: number; seq: number; type: string; position: number }[]; last_position: number };
  };

  it('projects a create once the database takes writes again, so the item and the feed serve it', async () => {
    const before = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'before the step-down' } });
    expect(before.status).toBe(201);
    const { last_position: since } = await feedAfter(0);

    const stop = refuseWritesFromNextTo('posts', 2 * BOUND_MS);
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'projected after the step-down' } });
    stop();
    expect(created.status).toBe(201);

    // Well within the bound a write waits for the database (READ_BACK_TIMEOUTS timeouts).
    const within = { timeout: (READ_BACK_TIMEOUTS + 1) * BOUND_MS, interval: 200 };
    await expect.poll(async () => (await app.api('GET', `/cms/v2/posts/${created.body.id}`, { headers: app.admin })).status, within).toBe(200);
    await expect.poll(async () => (await feedAfter(since)).changes.map((change) => `${change.item}:${change.seq} ${change.type}`), within).toEqual([`${created.body.id}:1 created`]);
  }, 30_000);

  it('projects an update once the database takes writes again', async () => {
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'before an update' } });
    expect(created.status).toBe(201);
    const { last_position: since } = await feedAfter(0);

    const stop = refuseWritesFromNextTo('posts', 2 * BOUND_MS);
    const updated = await app.api('POST', `/cms/v2/posts/${created.body.id}`, { headers: app.admin, json: { title: 'updated across the step-down' } });
    stop();
    expect(updated.status).toBe(200);

    const within = { timeout: (READ_BACK_TIMEOUTS + 1) * BOUND_MS, interval: 200 };
    await expect.poll(async () => (await app.api('GET', `/cms/v2/posts/${created.body.id}?context=edit`, { headers: app.admin })).body.title?.raw, within).toBe('updated across the step-down');
    await expect.poll(async () => (await feedAfter(since)).changes.map((change) => `${change.item}:${change.seq} ${change.type}`), within).toEqual([`${created.body.id}:2 updated`]);
  }, 30_000);

  it('lets the feed catch up an item left unprojected by a database refusing writes past the bound', async () => {
    const { last_position: since } = await feedAfter(0);

    // Longer than a write waits for the database: the command gives the projection up.
    const refusedMs = (READ_BACK_TIMEOUTS + 1) * BOUND_MS;
    const refusedFrom = performance.now();
    const stop = refuseWritesFromNextTo('posts', refusedMs);
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'left unprojected' } });
    stop();
    expect(created.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, refusedFrom + refusedMs - performance.now())));
    expect((await app.api('GET', `/cms/v2/posts/${created.body.id}`, { headers: app.admin })).status).toBe(404);

    // No write to the item follows: the feed itself catches it up once it has waited long enough.
    const within = { timeout: PROJECTION_WAIT_MS + 5000, interval: 250 };
    await expect.poll(async () => (await feedAfter(since)).changes.map((change) => `${change.item}:${change.seq} ${change.type}`), within).toEqual([`${created.body.id}:1 created`]);
    expect((await app.api('GET', `/cms/v2/posts/${created.body.id}`, { headers: app.admin })).status).toBe(200);
  }, 40_000);
});
