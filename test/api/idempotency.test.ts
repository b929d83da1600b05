import { MongoClient, type Db } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { READ_BACK_TIMEOUTS } from '../../src/store/database/mongo.js';
import { STALE_CLAIM_MS } from '../../src/rest/http/idempotency.js';
import { startFaultProxy, type FaultProxy, type WireCommand } from '../support/fault-proxy.js';
import { startOwnDatabase, type OwnDatabase } from '../support/own-database.js';
import { createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';

// `Idempotency-Key` on writes (draft-ietf-httpapi-idempotency-key-header): the same key answers as
// the first request did and stores nothing new; another request with the key is refused.

const keyed = (key: string, headers: Record<string, string>) => ({ ...headers, 'Idempotency-Key': key });
let keys = 0;
const newKey = () => `key-${process.pid}-${++keys}-${Date.now()}`;

/** The created events of posts whose title is `title`, as the log holds them. */
const createdWithTitle = (db: Db, title: string) =>
  db.collection('events').countDocuments({ type: 'created', streamType: 'post', data: { $regex: JSON.stringify(title).slice(1, -1) } }, { comment: 'full-scan: a test counts' });

/** Ages every pending claim of a key past the bound, as if its request had stopped that long ago. */
const ageClaims = (db: Db) =>
  db.collection('idempotency_keys').updateMany({ state: 'pending' }, { $set: { aliveAt: new Date(Date.now() - 2 * STALE_CLAIM_MS) } }, { comment: 'full-scan: a test ages claims' });

const expectReplayOf = (first: ApiResponse, again: ApiResponse, { firstReplayed = false } = {}) => {
  expect(again.status).toBe(first.status);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(first.headers.get('idempotent-replayed')).toBe(firstReplayed ? 'true' : null);
  expect(again.body).toEqual(first.body);
  expect(again.headers.get('location')).toBe(first.headers.get('location'));
  expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
};

describe('Idempotency-Key', () => {
  let app: TestApp;
  let db: Db;
  beforeAll(async () => {
    app = await createTestApp();
    db = app.deps.store.db;
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('answers a create sent again with its key as the first time, and makes one post', async () => {
    const key = newKey();
    const json = { title: 'created once', status: 'publish' };
    const first = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expect(first.status).toBe(201);
    const again = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expectReplayOf(first, again);
    expect(again.body.id).toBe(first.body.id);
    // The `?rest_route=` form is the same route.
    const viaQuery = await app.site('POST', `/?rest_route=/cms/v2/posts`, { headers: keyed(key, app.admin), json });
    expectReplayOf(first, viaQuery);
    // A REST nonce is a credential, not part of the request: a retry may carry another.
    const withNonce = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json, query: { _wpnonce: 'another' } });
    expectReplayOf(first, withNonce);
    expect(await createdWithTitle(db, 'created once')).toBe(1);
  });

  it('refuses the key with another body (422), and changes nothing', async () => {
    const key = newKey();
    const first = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json: { title: 'first body' } });
    expect(first.status).toBe(201);
    const other = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json: { title: 'second body' } });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 'rest_idempotency_key_reused', data: { status: 422 } });
    const otherQuery = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json: { title: 'first body' }, query: { _fields: 'id' } });
    expect(otherQuery.status).toBe(422);
    expect(await createdWithTitle(db, 'second body')).toBe(0);
    expect(await createdWithTitle(db, 'first body')).toBe(1);
  });

  it("keeps each caller's keys apart: another user's same key runs its own request", async () => {
    const key = newKey();
    const [alice, bob] = [await app.asRole('author'), await app.asRole('author')];
    const json = { title: 'same key, two authors' };
    const ofAlice = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, alice.headers), json });
    const ofBob = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, bob.headers), json });
    expect([ofAlice.status, ofBob.status]).toEqual([201, 201]);
    expect(ofBob.headers.get('idempotent-replayed')).toBeNull();
    expect(ofBob.body.id).not.toBe(ofAlice.body.id);
    expect(ofAlice.body.author).toBe(alice.id);
    expect(ofBob.body.author).toBe(bob.id);
    // Anonymous callers are a scope of their own: refused as anonymous, not answered Alice's post.
    const anonymous = await app.api('POST', '/cms/v2/posts', { headers: { 'Idempotency-Key': key }, json });
    expect(anonymous.status).toBe(401);
    expect(await createdWithTitle(db, 'same key, two authors')).toBe(2);
  });

  it('lets one of two requests sent at once with a key run: the other is refused 409 or answered the same, never a second post', async () => {
    const key = newKey();
    const json = { title: 'sent twice at once' };
    const answers = await Promise.all([1, 2].map(() => app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json })));
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers) {
      if (answer.status === 409) expect(answer.body.code).toBe('rest_idempotency_key_in_flight');
      else expect(answer.body.id).toBe(created[0].body.id);
    }
    expect(await createdWithTitle(db, 'sent twice at once')).toBe(1);
  });

  it('replays an update as it was answered, without applying it again', async () => {
    const post = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'to be updated' } });
    const key = newKey();
    const update = await app.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: keyed(key, app.admin), json: { title: 'updated with a key' } });
    expect(update.status).toBe(200);
    const later = await app.api('PUT', `/cms/v2/posts/${post.body.id}`, { headers: app.admin, json: { title: 'updated after' } });
    expect(later.status).toBe(200);
    const again = await app.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: keyed(key, app.admin), json: { title: 'updated with a key' } });
    expectReplayOf(update, again);
    expect(again.body.title.raw).toBe('updated with a key');
    const now = await app.api('GET', `/cms/v2/posts/${post.body.id}`, { headers: app.admin, query: { context: 'edit' } });
    expect(now.body.title.raw).toBe('updated after');
    const events = await db.collection('events').find({ stream: post.body.id }).sort({ seq: 1 }).toArray();
    expect(events.map((event) => event.type)).toEqual(['created', 'updated', 'updated']);
    // The same key on another method of the route is another request.
    const deleted = await app.api('DELETE', `/cms/v2/posts/${post.body.id}`, { headers: keyed(key, app.admin) });
    expect(deleted.status).toBe(200);
    expect(deleted.body.status).toBe('trash');
  });

  it("tags each of several writes to one item at once with its own request's claim, so each is answered again from its own event", async () => {
    const post = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'written at once' } });
    const since = new Date(Date.now() - 1000);
    const writes = [1, 2, 3, 4].map((n) => ({ key: newKey(), json: { excerpt: `excerpt ${n}` } }));
    // One process runs an item's commands one after another, in the context of whichever request came first.
    const answers = await Promise.all(writes.map(({ key, json }) => app.api('PATCH', `/cms/v2/posts/${post.body.id}`, { headers: keyed(key, app.admin), json })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    await db.collection('idempotency_keys').updateMany({ createdAt: { $gte: since } }, { $set: { state: 'pending' }, $unset: { answer: '' } }, { comment: 'full-scan: a test' });
    await ageClaims(db);
    for (const { key, json } of writes) {
      const again = await app.api('PATCH', `/cms/v2/posts/${post.body.id}`, { headers: keyed(key, app.admin), json });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    }
    expect(await db.collection('events').countDocuments({ stream: post.body.id })).toBe(5);
  });

  it('replays an upload, whose body is read as it comes: its fingerprint is the headers that describe it', async () => {
    const { default: sharp } = await import('sharp');
    const pixel = (background: string) => sharp({ create: { width: 4, height: 4, channels: 3, background } }).png().toBuffer();
    const upload = (key: string, png: Buffer) =>
      app.api('POST', '/cms/v2/media', {
        raw: { body: new Uint8Array(png), contentType: 'image/png' },
        headers: { ...keyed(key, app.admin), 'Content-Disposition': 'attachment; filename="keyed.png"' },
      });
    const key = newKey();
    const mediaCount = async () => Number((await app.api('GET', '/cms/v2/media', { headers: app.admin })).headers.get('x-wp-total'));
    const before = await mediaCount();
    const png = await pixel('#ff0000');
    const first = await upload(key, png);
    expect(first.status).toBe(201);
    const again = await upload(key, png);
    expectReplayOf(first, again);
    const larger = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#00ff00' } }).png().toBuffer();
    expect((await upload(key, larger)).status).toBe(422);
    expect(await mediaCount()).toBe(before + 1);
  });

  it('records a refusal (4xx) like a success', async () => {
    const key = newKey();
    const json = { title: 'refused', status: 'no-such-status' };
    const first = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expect(first.status).toBe(400);
    const again = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expectReplayOf(first, again);
  });

  it('refuses an empty key or one longer than 255 characters (400), and ignores a key on a read', async () => {
    for (const key of ['', 'k'.repeat(256)]) {
      const refused = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json: { title: 'bad key' } });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'rest_idempotency_key_invalid', data: { status: 400 } });
    }
    expect(await createdWithTitle(db, 'bad key')).toBe(0);
    const read = await app.api('GET', '/cms/v2/posts', { headers: keyed('', app.admin) });
    expect(read.status).toBe(200);
    expect((await app.api('POST', '/cms/v2/posts', { headers: keyed('k'.repeat(255), app.admin), json: { title: 'longest key' } })).status).toBe(201);
  });

  it('runs a request released after a 5xx again once it stored nothing, one retry of several at once', async () => {
    const key = newKey();
    const json = { title: 'released, run again' };
    const since = new Date(Date.now() - 1000);
    const first = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expect(first.status).toBe(201);
    // As a 5xx leaves the key, with nothing stored: released, and no event carries the claim.
    await db.collection('events').updateMany({ stream: first.body.id }, { $unset: { claim: '' } });
    await db.collection('idempotency_keys').updateMany({ createdAt: { $gte: since } }, { $set: { state: 'released' }, $unset: { answer: '' } }, { comment: 'full-scan: a test' });
    const retries = await Promise.all([1, 2, 3].map(() => app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json })));
    const ran = retries.filter((retry) => retry.status === 201 && retry.headers.get('idempotent-replayed') === null);
    expect(ran.length).toBe(1);
    expect(ran[0].body.id).not.toBe(first.body.id);
    for (const retry of retries) {
      if (retry === ran[0]) continue;
      if (retry.status === 409) expect(retry.body.code).toBe('rest_idempotency_key_in_flight');
      else expect(retry.body.id).toBe(ran[0].body.id);
    }
    expect(await createdWithTitle(db, 'released, run again')).toBe(2);
    const again = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expectReplayOf(ran[0], again);
  });

  it('takes an expired record for absent: the key runs its request again after 24 hours', async () => {
    const key = newKey();
    const json = { title: 'expires' };
    const first = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expect(first.status).toBe(201);
    await db.collection('idempotency_keys').updateMany({}, { $set: { expiresAt: new Date(Date.now() - 1000) } }, { comment: 'full-scan: a test expires keys' });
    const later = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
  });
});

// The bound a request waits on the database (CMS_DATABASE_TIMEOUT_MS), kept short here.
const BOUND_MS = 1000;
const READ_BACK_MS = READ_BACK_TIMEOUTS * BOUND_MS;
const appendToLog = (command: WireCommand) => command.name === 'insert' && command.collection === 'events';

/**
 * A client that lost the answer retries with its key, across a failover: the create is stored
 * once whatever was lost (the append's acknowledgement, or the record of the answer).
 */
describe('Idempotency-Key when acknowledgements are lost', () => {
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
    direct = new MongoClient(database.server.uri);
    log = direct.db(app.databaseName);
  }, 120_000);
  afterEach(async () => {
    await expect.poll(async () => (await app.site('GET', '/readyz')).status, { timeout: 10_000, interval: 100 }).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
    await direct?.close();
    await proxy?.close();
    await database?.stop();
  });

  const createdCount = () => log.collection('events').countDocuments({ type: 'created' });

  it('answers a retry sent while the first create waits out the election 409, and once it is answered, its answer', async () => {
    const before = await createdCount();
    const key = newKey();
    const json = { title: 'retried during the election' };
    const lost = proxy.loseReplyTo(appendToLog, { refuseForMs: 2 * BOUND_MS });
    const first = app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    await lost;
    // The client gave up on the first answer and retries at once: the first is still in flight.
    const during = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expect([409, 503]).toContain(during.status);
    if (during.status === 409) expect(during.body.code).toBe('rest_idempotency_key_in_flight');
    const answered = await first;
    expect(answered.status).toBe(201);
    const again = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expectReplayOf(answered, again);
    expect(await createdCount()).toBe(before + 1);
  }, 30_000);

  it('answers a retry of a create answered 503 (stored all the same) from the post it stored, once', async () => {
    const before = await createdCount();
    const key = newKey();
    const json = { title: 'answered 503, stored' };
    const lost = proxy.loseReplyTo(appendToLog, { refuseForMs: READ_BACK_MS + 2 * BOUND_MS });
    const first = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    await lost;
    expect(first.status).toBe(503);
    await expect.poll(async () => (await app.site('GET', '/readyz')).status, { timeout: 10_000, interval: 100 }).toBe(200);
    expect(await createdCount()).toBe(before + 1);
    const stored = await log.collection('events').findOne({ type: 'created' }, { sort: { position: -1 } });
    // Whether the 503 reached the record (released) or not (left pending, then stale), the retry
    // finds the post the first request stored and answers it as created.
    await ageClaims(log);
    const retried = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expect(retried.body).toMatchObject({ id: stored!.stream });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.title.raw).toBe('answered 503, stored');
    expect(retried.headers.get('location')).toBe(`${app.apiRoot}/cms/v2/posts/${stored!.stream}`);
    const again = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expectReplayOf(retried, again, { firstReplayed: true });
    expect(await createdCount()).toBe(before + 1);
  }, 30_000);

  it('answers a retry from the stored item when the process died after the commit, before recording the answer', async () => {
    const before = await createdCount();
    const since = new Date(Date.now() - 1000);
    const createKey = newKey();
    const json = { title: 'answer never recorded' };
    const first = await app.api('POST', '/cms/v2/posts', { headers: keyed(createKey, app.admin), json });
    expect(first.status).toBe(201);
    const updateKey = newKey();
    const update = await app.api('PATCH', `/cms/v2/posts/${first.body.id}`, { headers: keyed(updateKey, app.admin), json: { title: 'updated, never recorded' } });
    expect(update.status).toBe(200);
    // What a process that died between the append and the record leaves: the claims pending, unanswered.
    const forgotten = await log.collection('idempotency_keys').updateMany({ createdAt: { $gte: since } }, { $set: { state: 'pending' }, $unset: { answer: '' } }, { comment: 'full-scan: a test' });
    expect(forgotten.modifiedCount).toBe(2);
    // Within the bound, the claim is taken for a request in flight.
    const early = await app.api('POST', '/cms/v2/posts', { headers: keyed(createKey, app.admin), json });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('rest_idempotency_key_in_flight');
    await ageClaims(log);
    const retried = await app.api('POST', '/cms/v2/posts', { headers: keyed(createKey, app.admin), json });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.id).toBe(first.body.id);
    expect(retried.headers.get('location')).toBe(first.headers.get('location'));
    // The item as it is now: the create's answer is not kept anywhere else.
    expect(retried.body.title.raw).toBe('updated, never recorded');
    const again = await app.api('POST', '/cms/v2/posts', { headers: keyed(createKey, app.admin), json });
    expectReplayOf(retried, again, { firstReplayed: true });
    const updatedAgain = await app.api('PATCH', `/cms/v2/posts/${first.body.id}`, { headers: keyed(updateKey, app.admin), json: { title: 'updated, never recorded' } });
    expect(updatedAgain.status).toBe(200);
    expect(updatedAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(updatedAgain.body).toEqual(update.body);
    expect(await createdCount()).toBe(before + 1);
    expect((await log.collection('events').find({ stream: first.body.id }).toArray()).map((event) => event.type)).toEqual(['created', 'updated']);
  }, 30_000);

  it('never runs a stale claim again that stored nothing: 409, the outcome cannot be told', async () => {
    const before = await createdCount();
    const key = newKey();
    const json = { title: 'stale claim, nothing stored' };
    // A request that claimed the key and stopped before storing anything, as a dead process leaves it.
    const since = new Date(Date.now() - 1000);
    const first = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expect(first.status).toBe(201);
    await log.collection('events').updateMany({ stream: first.body.id }, { $unset: { claim: '' } });
    await log.collection('idempotency_keys').updateMany({ state: 'done', createdAt: { $gte: since } }, { $set: { state: 'pending' }, $unset: { answer: '' } }, { comment: 'full-scan: a test' });
    await ageClaims(log);
    const retried = await app.api('POST', '/cms/v2/posts', { headers: keyed(key, app.admin), json });
    expect(retried.status).toBe(409);
    expect(retried.body.code).toBe('rest_idempotency_key_unresolved');
    expect(await createdCount()).toBe(before + 1);
  }, 30_000);
});
