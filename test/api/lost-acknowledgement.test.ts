import { MongoBulkWriteError, MongoClient, type Db } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, READ_BACK_TIMEOUTS } from '../../src/store/database/mongo.js';
import { startFaultProxy, type FaultProxy, type WireCommand } from '../support/fault-proxy.js';
import { startOwnDatabase, type OwnDatabase } from '../support/own-database.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

// The bound a request waits on the database (CMS_DATABASE_TIMEOUT_MS), kept short here.
const BOUND_MS = 1000;
/** What a write whose acknowledgement was lost waits for the database, at most. */
const READ_BACK_MS = READ_BACK_TIMEOUTS * BOUND_MS;

const appendToLog = (command: WireCommand) => command.name === 'insert' && command.collection === 'events';

/**
 * A failover as the service meets it: the database stores an append to the change log, its
 * acknowledgement is lost, and the database is away for a while (an election). The write is
 * answered from what it reads back once the database answers again, within the documented bound.
 */
describe('an append whose acknowledgement is lost while the database is away', () => {
  let database: OwnDatabase;
  let proxy: FaultProxy;
  let app: TestApp;
  let direct: MongoClient;
  let log: Db;
  beforeAll(async () => {
    database = await startOwnDatabase();
    const { hostname, port } = new URL(database.server.uri);
    proxy = await startFaultProxy({ host: hostname, port: Number(port) });
    app = await createTestApp({ databaseUri: proxy.uri, env: { CMS_DATABASE_TIMEOUT_MS: String(BOUND_MS) } });
    // The log as it is, seen past the proxy.
    direct = new MongoClient(database.server.uri);
    log = direct.db(app.databaseName);
  }, 120_000);
  afterEach(async () => {
    // The service answers again before the next test writes.
    await expect.poll(async () => (await app.site('GET', '/readyz')).status, { timeout: 10_000, interval: 100 }).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
    await direct?.close();
    await proxy?.close();
    await database?.stop();
  });

  it('takes a bulk write whose connection was lost for the database being away, not for a bug', async () => {
    // `insertMany` wraps the error of the command it sent (MongoBulkWriteError): a group commit's
    // append met a lost connection this way, and was answered 500 where the database away is a 503.
    const client = new MongoClient(proxy.uri, { serverSelectionTimeoutMS: BOUND_MS, retryWrites: false });
    try {
      void proxy.loseReplyTo((command) => command.name === 'insert' && command.collection === 'bulk_lost', { refuseForMs: 2 * BOUND_MS });
      const error = await client.db(app.databaseName).collection('bulk_lost').insertMany([{ n: 1 }, { n: 2 }]).then(() => undefined, (thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(MongoBulkWriteError);
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await client.close();
    }
  });

  const eventsOf = async (stream: number) => log.collection('events').find({ stream }).sort({ seq: 1 }).toArray();

  it('answers an update 200 once the database is back within the bound, stored once', async () => {
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'before the election' } });
    expect(created.status).toBe(201);

    const lost = proxy.loseReplyTo(appendToLog, { refuseForMs: 2 * BOUND_MS });
    const updated = await app.api('POST', `/cms/v2/posts/${created.body.id}`, { headers: app.admin, json: { title: 'during the election' } });
    await lost;
    expect(updated.status).toBe(200);
    expect(updated.body.title.rendered).toBe('during the election');
    expect((await eventsOf(created.body.id)).map((event) => event.type)).toEqual(['created', 'updated']);
  }, 30_000);

  it('answers a create 201 once the database is back within the bound, and makes one post', async () => {
    const createdBefore = await log.collection('events').countDocuments({ type: 'created' });
    const lost = proxy.loseReplyTo(appendToLog, { refuseForMs: 2 * BOUND_MS });
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'created during the election' } });
    await lost;
    expect(created.status).toBe(201);
    expect((await eventsOf(created.body.id)).map((event) => event.type)).toEqual(['created']);
    expect(await log.collection('events').countDocuments({ type: 'created' })).toBe(createdBefore + 1);
  }, 30_000);

  it('answers 503 when the database stays away past the bound; the write may be stored all the same', async () => {
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'before a long election' } });
    expect(created.status).toBe(201);

    const lost = proxy.loseReplyTo(appendToLog, { refuseForMs: READ_BACK_MS + 2 * BOUND_MS });
    const updated = await app.api('POST', `/cms/v2/posts/${created.body.id}`, { headers: app.admin, json: { title: 'during a long election' } });
    await lost;
    expect(updated.status).toBe(503);
    expect(updated.body.code).toBe('db_connect_fail');
    // The database stored it before the acknowledgement was lost: a 503 past the bound says
    // nothing was confirmed, not that nothing was stored. It is stored once, and the item serves it.
    expect((await eventsOf(created.body.id)).map((event) => event.type)).toEqual(['created', 'updated']);
    await expect.poll(async () => (await app.api('GET', `/cms/v2/posts/${created.body.id}`, { headers: app.admin })).status, { timeout: 10_000 }).toBe(200);
  }, 30_000);
});
