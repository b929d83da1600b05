import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, startServiceOn, type TestApp } from '../support/test-app.js';
import { signatureValid, startReceiver, type Received, type WebhookReceiver } from '../support/webhook-receiver.js';
import { RETRY_DELAYS_MS } from '../../src/resources/webhooks/webhook.retry.js';
import { currentServiceWork } from '../../src/store/queries/service-work.js';

const ENV = { CMS_WEBHOOKS_ALLOW_ADDRESSES: '127.0.0.1', CMS_WEBHOOKS_POLL_MS: '50', CMS_WEBHOOKS_TIMEOUT_MS: '2000' };

let app: TestApp;
let receiver: WebhookReceiver;
/** How far the service's clock is ahead of the real one: retries come due when it moves. */
let ahead = 0;
const hooks: string[] = [];
/** The commands the deliverer sent, as `<command> <collection>`. */
const delivererCommands: string[] = [];

beforeAll(async () => {
  app = await createTestApp({
    env: ENV,
    clock: () => new Date(Date.now() + ahead),
    onCommand: (event) => {
      if (currentServiceWork() === 'webhooks') delivererCommands.push(`${event.commandName} ${String(event.command[event.commandName])}`);
    },
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});
afterEach(async () => {
  // Each test's endpoints go, so that the next test's receiver sees only its own.
  for (const id of hooks.splice(0)) await app.api('DELETE', `/cms/v2/webhooks/${id}`, { headers: app.admin, query: { force: true } });
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 204 });
});

async function createHook(fields: Record<string, unknown> = {}) {
  const response = await app.api('POST', '/cms/v2/webhooks', { headers: app.admin, json: { url: receiver.url, ...fields } });
  expect(response.status, response.text).toBe(201);
  hooks.push(response.body.id);
  return response.body as { id: string; secret: string; position: number };
}

const createPost = async (title: string) => (await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title, status: 'draft' } })).body.id as number;
const updatePost = async (id: number, title: string) => expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { title } })).status).toBe(200);
const ofItem = (id: number) => (request: Received) => request.json.data.item?.id === id;
/** Waits until the service has recorded `attempts` attempts of a delivery: only then is its next one scheduled from the clock. */
const recorded = (hook: string, delivery: string, attempts: number) =>
  expect.poll(async () => (await app.api('GET', `/cms/v2/webhooks/${hook}/deliveries/${delivery}`, { headers: app.admin })).body.attempts).toBe(attempts);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('endpoints, /cms/v2/webhooks', () => {
  it('are for administrators only', async () => {
    const editor = await app.asRole('editor');
    expect((await app.api('GET', '/cms/v2/webhooks')).status).toBe(401);
    const refused = await app.api('POST', '/cms/v2/webhooks', { headers: editor.headers, json: { url: receiver.url } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('rest_cannot_manage_webhooks');
  });

  it('show the secret once, on creation, and never in a list or a read', async () => {
    const hook = await createHook({ events: ['post.*'] });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const read = await app.api('GET', `/cms/v2/webhooks/${hook.id}`, { headers: app.admin, query: { context: 'edit' } });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: hook.id, url: receiver.url, events: ['post.*'], active: true });
    expect(read.body.secret).toBeUndefined();
    const list = await app.api('GET', '/cms/v2/webhooks', { headers: app.admin, query: { context: 'edit' } });
    expect(list.body.map((item: { id: string }) => item.id)).toContain(hook.id);
    expect(list.text).not.toContain(hook.secret);
    expect(list.headers.get('x-wp-total')).toBe(String(list.body.length));
  });

  it.each([
    ['a loopback address not allowed', 'http://127.0.0.2/hook'],
    ['IPv6 loopback', 'http://[::1]/hook'],
    ['an IPv4-mapped private address', 'http://[::ffff:10.0.0.1]/hook'],
    ['link-local (cloud metadata)', 'http://169.254.169.254/latest'],
    ['the unspecified address', 'http://0.0.0.0/hook'],
    ['a private network', 'http://192.168.1.10/hook'],
    ['an IPv6 unique local address', 'http://[fd00::1]/hook'],
    ['IPv6 link-local', 'http://[fe80::1]/hook'],
    ['a name that does not resolve', 'http://nowhere.invalid./hook'],
    ['another scheme', 'ftp://127.0.0.1/hook'],
  ])('refuse a target on %s, storing nothing', async (_label, url) => {
    const before = (await app.api('GET', '/cms/v2/webhooks', { headers: app.admin })).body.length;
    const refused = await app.api('POST', '/cms/v2/webhooks', { headers: app.admin, json: { url } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.code).toBe('rest_invalid_param');
    expect(Object.keys(refused.body.data.params)).toEqual(['url']);
    expect((await app.api('GET', '/cms/v2/webhooks', { headers: app.admin })).body.length).toBe(before);
  });

  it('refuse an update to a refused target, changing nothing', async () => {
    const hook = await createHook();
    const refused = await app.api('POST', `/cms/v2/webhooks/${hook.id}`, { headers: app.admin, json: { url: 'http://10.1.2.3/', active: false } });
    expect(refused.status).toBe(400);
    const read = await app.api('GET', `/cms/v2/webhooks/${hook.id}`, { headers: app.admin });
    expect(read.body).toMatchObject({ url: receiver.url, active: true });
  });

  it('refuse bad event filters and a DELETE without force', async () => {
    const bad = await app.api('POST', '/cms/v2/webhooks', { headers: app.admin, json: { url: receiver.url, events: ['post.$gt'] } });
    expect(bad.status).toBe(400);
    const hook = await createHook();
    const unforced = await app.api('DELETE', `/cms/v2/webhooks/${hook.id}`, { headers: app.admin });
    expect(unforced.status).toBe(501);
    expect(unforced.body.code).toBe('rest_trash_not_supported');
    expect((await app.api('GET', `/cms/v2/webhooks/${hook.id}`, { headers: app.admin })).status).toBe(200);
    expect((await app.api('GET', '/cms/v2/webhooks/ep_0000000000000000', { headers: app.admin })).body.code).toBe('rest_webhook_invalid_id');
  });
});

describe('deliveries', () => {
  it('carry a thin payload signed as Standard Webhooks says, with the same webhook-id on every attempt', async () => {
    const hook = await createHook();
    let first = true;
    receiver.answer = () => {
      const status = first ? 500 : 200;
      first = false;
      return { status };
    };
    const post = await createPost('Signed');
    const [failed] = await receiver.waitFor(ofItem(post));
    await recorded(hook.id, failed.id, 1);
    ahead += RETRY_DELAYS_MS[0] * 1.3;
    const attempts = await receiver.waitFor(ofItem(post), 2);
    expect(attempts[1].id).toBe(failed.id);
    for (const request of attempts) expect(signatureValid(hook.secret, request)).toBe(true);
    expect(signatureValid(hook.secret, { ...attempts[0], body: attempts[0].body.replace('Signed', 'Forged') })).toBe(true);
    expect(signatureValid(hook.secret, { ...attempts[0], body: `${attempts[0].body} ` })).toBe(false);
    expect(attempts[0].json).toMatchObject({ type: 'post.created', data: { item: { id: post, type: 'post' }, version: 1 } });
    expect(attempts[0].json.data.position).toBeGreaterThan(hook.position);
    expect(attempts[0].body).not.toContain('Signed');
    expect(Number(attempts[0].timestamp)).toBeGreaterThan(Date.now() / 1000 - 60);
    const log = await app.api('GET', `/cms/v2/webhooks/${hook.id}/deliveries/${failed.id}`, { headers: app.admin });
    await expect.poll(async () => (await app.api('GET', `/cms/v2/webhooks/${hook.id}/deliveries/${failed.id}`, { headers: app.admin })).body.status).toBe('delivered');
    expect(log.body.log[0]).toMatchObject({ attempt: 1, status: 500 });
    expect(log.body.log[0].duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('of one item wait while an earlier one is retried; other items go on', async () => {
    const hook = await createHook();
    let failing = true;
    receiver.answer = () => ({ status: 503 });
    const held = await createPost('Held');
    await recorded(hook.id, (await receiver.waitFor(ofItem(held)))[0].id, 1);
    receiver.answer = (request) => ({ status: failing && request.json.data.item?.id === held ? 503 : 204 });
    const other = await createPost('Other');
    await receiver.waitFor(ofItem(other));
    await updatePost(held, 'Held, v2');
    await updatePost(other, 'Other, v2');
    await receiver.waitFor(ofItem(other), 2);
    await sleep(300);
    // Version 1 of the held item failed; version 2 is not sent before it.
    expect(receiver.received.filter(ofItem(held)).map((request) => request.json.data.version)).toEqual([1]);
    failing = false;
    ahead += RETRY_DELAYS_MS[0] * 1.3;
    const versions = (await receiver.waitFor(ofItem(held), 3)).map((request) => request.json.data.version);
    expect(versions).toEqual([1, 1, 2]);
  });

  it('honour Retry-After, and a 410 disables the endpoint', async () => {
    const hook = await createHook();
    receiver.answer = () => ({ status: 503, headers: { 'Retry-After': '7200' } });
    const post = await createPost('Later');
    const [request] = await receiver.waitFor(ofItem(post));
    await recorded(hook.id, request.id, 1);
    const read = await app.api('GET', `/cms/v2/webhooks/${hook.id}/deliveries/${request.id}`, { headers: app.admin });
    const due = Date.parse(`${read.body.next_attempt}Z`) - (Date.now() + ahead);
    expect(due).toBeGreaterThan(7000e3);

    receiver.answer = () => ({ status: 410 });
    ahead += 7300e3;
    await receiver.waitFor(ofItem(post), 2);
    await expect.poll(async () => (await app.api('GET', `/cms/v2/webhooks/${hook.id}`, { headers: app.admin })).body.active).toBe(false);
    const disabled = await app.api('GET', `/cms/v2/webhooks/${hook.id}`, { headers: app.admin });
    expect(disabled.body.disabled_reason).toMatch(/410/);
    await updatePost(post, 'Not sent');
    await sleep(400);
    expect(receiver.received.filter(ofItem(post))).toHaveLength(2);
  });

  it('go to the dead-letter list after about three days of retries, and can be redelivered', async () => {
    const hook = await createHook();
    receiver.answer = () => ({ status: 500 });
    const post = await createPost('Doomed');
    const [first] = await receiver.waitFor(ofItem(post));
    for (let attempt = 2; attempt <= RETRY_DELAYS_MS.length + 1; attempt++) {
      await recorded(hook.id, first.id, attempt - 1);
      ahead += RETRY_DELAYS_MS[attempt - 2] * 1.25;
      await receiver.waitFor(ofItem(post), attempt);
    }
    expect(RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0) / 3600e3).toBeGreaterThan(60);
    await expect.poll(async () => (await app.api('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { headers: app.admin, query: { status: 'failed' } })).body.length).toBe(1);
    const list = await app.api('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { headers: app.admin, query: { status: 'failed' } });
    expect(list.body[0]).toMatchObject({ id: first.id, status: 'failed', attempts: RETRY_DELAYS_MS.length + 1, next_attempt: null });
    ahead += 100 * 3600e3;
    await sleep(300);
    expect(receiver.received.filter(ofItem(post))).toHaveLength(RETRY_DELAYS_MS.length + 1);

    receiver.answer = () => ({ status: 200 });
    const redelivered = await app.api('POST', `/cms/v2/webhooks/${hook.id}/deliveries/${first.id}/redeliver`, { headers: app.admin });
    expect(redelivered.status).toBe(202);
    const again = await receiver.waitFor(ofItem(post), RETRY_DELAYS_MS.length + 2);
    expect(again.at(-1)!.id).toBe(first.id);
    await expect.poll(async () => (await app.api('GET', `/cms/v2/webhooks/${hook.id}/deliveries`, { headers: app.admin, query: { status: 'failed' } })).body.length).toBe(0);
  });

  it('are sent again from a position on by a replay, as new messages', async () => {
    const hook = await createHook();
    const post = await createPost('Replayed');
    await updatePost(post, 'Replayed, v2');
    const sent = await receiver.waitFor(ofItem(post), 2);
    const replay = await app.api('POST', `/cms/v2/webhooks/${hook.id}/replay`, { headers: app.admin, json: { position: sent[0].json.data.position } });
    expect(replay.status).toBe(202);
    const all = await receiver.waitFor(ofItem(post), 4);
    expect(all.map((request) => request.json.data.version)).toEqual([1, 2, 1, 2]);
    expect(new Set(all.map((request) => request.id)).size).toBe(4);
  });

  it('follow the endpoint filter', async () => {
    await createHook({ events: ['page.created'] });
    const post = await createPost('Not for this endpoint');
    const page = (await app.api('POST', '/cms/v2/pages', { headers: app.admin, json: { title: 'For it' } })).body.id as number;
    await app.api('POST', `/cms/v2/pages/${page}`, { headers: app.admin, json: { title: 'Updated: not for it' } });
    await receiver.waitFor(ofItem(page));
    await sleep(400);
    expect(receiver.received.map((request) => request.json.type)).toEqual(['page.created']);
    expect(receiver.received.filter(ofItem(post))).toHaveLength(0);
  });

  it('are signed with both secrets while a rotation keeps the old one', async () => {
    const hook = await createHook();
    const rotated = await app.api('POST', `/cms/v2/webhooks/${hook.id}/secret`, { headers: app.admin, json: { previous_valid_for: 3600 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const post = await createPost('Rotated');
    const [request] = await receiver.waitFor(ofItem(post));
    expect(request.signature.split(' ')).toHaveLength(2);
    expect(signatureValid(hook.secret, request)).toBe(true);
    expect(signatureValid(rotated.body.secret, request)).toBe(true);
    ahead += 3700e3;
    await updatePost(post, 'Rotated, later');
    const [, later] = await receiver.waitFor(ofItem(post), 2);
    expect(later.signature.split(' ')).toHaveLength(1);
    expect(signatureValid(hook.secret, later)).toBe(false);
    expect(signatureValid(rotated.body.secret, later)).toBe(true);
  });

  it('include a test ping, answered with what the endpoint said', async () => {
    const hook = await createHook();
    const ping = await app.api('POST', `/cms/v2/webhooks/${hook.id}/ping`, { headers: app.admin });
    expect(ping.status).toBe(200);
    expect(ping.body).toMatchObject({ type: 'webhook.ping', status: 'delivered', attempts: 1, log: [{ attempt: 1, status: 204 }] });
    const [request] = await receiver.waitFor((received) => received.json.type === 'webhook.ping');
    expect(request.id).toBe(ping.body.id);
    expect(signatureValid(hook.secret, request)).toBe(true);
    receiver.answer = () => ({ status: 500 });
    const failed = await app.api('POST', `/cms/v2/webhooks/${hook.id}/ping`, { headers: app.admin });
    expect(failed.body).toMatchObject({ status: 'failed', last_status: 500 });
  });
});

describe('the delivery lease', () => {
  it('lets one process deliver at a time, and another take over when it stops', async () => {
    const other = await startServiceOn(app.databaseName, { env: ENV });
    try {
      await createHook();
      // Slow answers: two processes delivering at once would both send what is pending.
      receiver.answer = () => ({ status: 204, delayMs: 150 });
      const post = await createPost('Leased');
      for (let version = 2; version <= 6; version++) await updatePost(post, `Leased, v${version}`);
      await receiver.waitFor(ofItem(post), 6);
      await sleep(300);
      expect(receiver.received.filter(ofItem(post)).map((request) => request.json.data.version)).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await other.stop();
    }
    const post = await createPost('After the other stopped');
    await receiver.waitFor(ofItem(post), 1, 30_000);
  }, 60_000);

  it("is timed by the database's clock: a holder whose own clock is an hour behind is not taken over while it renews", async () => {
    // The process behind claims the first term of a database of its own; then one with a true clock starts beside it.
    const behind = await createTestApp({ env: ENV, clock: () => new Date(Date.now() - 3600e3) });
    const leases = behind.deps.store.db.collection('webhook_leases');
    const other = await startServiceOn(behind.databaseName, { env: ENV });
    try {
      const hook = await behind.api('POST', '/cms/v2/webhooks', { headers: behind.admin, json: { url: receiver.url } });
      expect(hook.status).toBe(201);
      await expect.poll(() => leases.countDocuments(), { timeout: 10_000 }).toBe(1);
      receiver.answer = () => ({ status: 204, delayMs: 50 });
      const post = (await behind.api('POST', '/cms/v2/posts', { headers: behind.admin, json: { title: 'Skewed', status: 'draft' } })).body.id as number;
      // Longer than a term (the delivery timeout and 10 s), with changes all along.
      for (let version = 2; version <= 8; version++) {
        await sleep(2000);
        expect((await behind.api('POST', `/cms/v2/posts/${post}`, { headers: behind.admin, json: { title: `Skewed, v${version}` } })).status).toBe(200);
      }
      await receiver.waitFor(ofItem(post), 8);
      await sleep(300);
      expect(receiver.received.filter(ofItem(post)).map((request) => request.json.data.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(await leases.countDocuments()).toBe(1);
    } finally {
      await other.stop();
      await behind.stop();
    }
  }, 60_000);
});

describe('an idle deliverer', () => {
  it('reads nothing while no endpoint is active, and only the change token and its lease while nothing changes', async () => {
    // The endpoints of the tests before were deleted: a write, which the next round looks at.
    await sleep(300);
    delivererCommands.length = 0;
    await sleep(2000);
    expect(delivererCommands).toEqual([]);

    await createHook();
    const post = await createPost('Before the quiet');
    await receiver.waitFor(ofItem(post));
    // The queue is read again once, a second after the write that came with the delivery.
    await sleep(1500);
    delivererCommands.length = 0;
    await sleep(2000);
    // Each poll looks at the change token (one read by key); the term is renewed every few seconds.
    const tokenLooks = delivererCommands.filter((command) => command === 'find checkpoints').length;
    expect(tokenLooks).toBeGreaterThan(0);
    expect(delivererCommands.filter((command) => !['find checkpoints', 'find webhook_leases', 'update webhook_leases'].includes(command))).toEqual([]);
    expect(delivererCommands.length - tokenLooks).toBeLessThanOrEqual(4);

    // A change made through another process is heard of by that token, and delivered within a few
    // polls: written just after a round, it is delivered long before the next quiet round.
    const other = await startServiceOn(app.databaseName, { env: ENV });
    try {
      delivererCommands.length = 0;
      await expect.poll(() => delivererCommands.includes('find webhooks'), { timeout: 10_000, interval: 20 }).toBe(true);
      await sleep(300);
      const written = await fetch(`${other.siteUrl}/cms-json/cms/v2/posts`, {
        method: 'POST',
        headers: { ...app.admin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'Through the other process', status: 'draft' }),
      });
      expect(written.status).toBe(201);
      await receiver.waitFor(ofItem(((await written.json()) as { id: number }).id), 1, 2500);
    } finally {
      await other.stop();
    }
  });
});
