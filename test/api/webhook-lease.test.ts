import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { type Db } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServiceNodes, type ServiceNode as Node, type ServiceNodes } from '../support/service-nodes.js';
import { startReceiver, type Received, type WebhookReceiver } from '../support/webhook-receiver.js';
import { checkDeliveries } from '../faults/webhooks.js';
import { leaseMs, RENEW_EVERY_MS } from '../../src/resources/webhooks/webhook.lease.js';

// The delivery lease between real service processes on one database and one hostname, as
// containers with host networking run them: one delivers; a killed holder is taken over within
// the lease's bound, in per-item order with nothing lost; a holder paused past its term writes
// and sends nothing once it runs again; a live holder whose pid this machine lacks is not taken for dead.
const TIMEOUT_MS = 1000;
const LEASE_MS = leaseMs(TIMEOUT_MS);
/** How late after its term ran out a process may take over: a poll, a round, a claim, on a shared machine. */
const TAKEOVER_SLACK_MS = 4000;

let cluster: ServiceNodes;
let db: Db;
let receiver: WebhookReceiver;
/** The processes alive. */
let nodes: Node[] = [];
let endpoint: { id: string; position: number };


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const api = (node: Node, method: string, path: string, body?: object) => cluster.api(node, method, path, body);
const createPost = async (node: Node, title: string) => (await api(node, 'POST', '/cms/v2/posts', { title, status: 'draft' })).id as number;
const updatePost = (node: Node, id: number, title: string) => api(node, 'POST', `/cms/v2/posts/${id}`, { title });

/** The newest term of the lease, as the database holds it. */
const topTerm = async () => (await cluster.newestTerm('webhook_leases'))!;
/** The node holding the newest term. */
const holder = () => cluster.holder('webhook_leases');
/** The process each request came from, found while its connection was open. */
const senders = new Map<Received, number>();
const sender = (request: Received) => nodes.find((node) => node.pid === senders.get(request));

/** The process among `pids` that holds the TCP connection whose local port is `port` (Linux's /proc). */
function pidOfConnection(port: number, pids: number[]): number | undefined {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const receiverPort = `:${Number(new URL(receiver.url).port).toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns[1]?.endsWith(hex) && columns[2]?.endsWith(receiverPort)) inodes.add(`socket:[${columns[9]}]`);
    }
  }
  return pids.find((pid) => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return inodes.has(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

/** Answers as `answer` says, noting which process sent each request. */
const answering = (answer: WebhookReceiver['answer']): WebhookReceiver['answer'] => (request) => {
  const pid = pidOfConnection(request.remotePort, nodes.map((node) => node.pid));
  if (pid !== undefined) senders.set(request, pid);
  return answer(request);
};
const ofItem = (id: number) => (request: Received) => request.json.data.item?.id === id;
const versions = (id: number) => receiver.received.filter(ofItem(id)).map((request) => request.json.data.version);

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.answer = answering(() => ({ status: 204 }));
  cluster = await startServiceNodes({
    name: 'webhook_lease',
    password: 'webhook-lease-test-password',
    count: 2,
    env: { CMS_WEBHOOKS_ALLOW_ADDRESSES: '127.0.0.1', CMS_WEBHOOKS_POLL_MS: '100', CMS_WEBHOOKS_TIMEOUT_MS: String(TIMEOUT_MS) },
  });
  db = cluster.db;
  nodes = [...cluster.nodes];
  const created = await api(nodes[0], 'POST', '/cms/v2/webhooks', { url: receiver.url });
  endpoint = { id: created.id as string, position: created.position as number };
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  await receiver?.close();
});

afterEach(() => {
  receiver.answer = answering(() => ({ status: 204 }));
});

describe('the webhook delivery lease, between processes on one hostname', () => {
  it('lets one process deliver, in per-item order', async () => {
    // Slow answers: a second deliverer would find pending deliveries to send at once.
    receiver.answer = answering(() => ({ status: 204, delayMs: 100 }));
    const posts = [await createPost(nodes[0], 'One'), await createPost(nodes[1], 'Two')];
    for (let version = 2; version <= 4; version++) {
      for (const [n, post] of posts.entries()) await updatePost(nodes[(version + n) % 2], post, `v${version}`);
    }
    for (const post of posts) await receiver.waitFor(ofItem(post), 4);
    await sleep(500);
    const delivering = await holder();
    for (const post of posts) expect(versions(post)).toEqual([1, 2, 3, 4]);
    expect(receiver.received.length).toBeGreaterThanOrEqual(8);
    expect(new Set(receiver.received.map((request) => senders.get(request)))).toEqual(new Set([delivering.pid]));
  }, 60_000);

  it('takes a live holder whose pid this machine lacks for alive, and takes over once it stops renewing', async () => {
    // Another machine's process with this hostname, whose pid is free here: it claims the next term and renews it.
    const exited = spawnSync(process.execPath, ['-e', '0']).pid;
    const leases = db.collection<{ _id: number; owner: string; renewed: Date; until: Date }>('webhook_leases');
    const databaseTime = async () => ((await db.admin().command({ hello: 1 })).localTime as Date).getTime();
    const term = (await topTerm())._id + 1;
    // `until`: the end of the term as the previous version of the lease kept it, so that the same test runs against it.
    await leases.insertOne({ _id: term, owner: `${os.hostname()}:${exited}:0ther`, renewed: new Date(await databaseTime()), until: new Date(Date.now() + 15_000) });
    const renewing = setInterval(() => {
      void leases.updateOne({ _id: term }, { $currentDate: { renewed: true }, $set: { until: new Date(Date.now() + 15_000) } });
    }, 1000);
    let post: number;
    try {
      // The processes' terms ended: each holder sees the later term when it next renews (at most
      // RENEW_EVERY_MS after its last renewal), and what it had in flight is over within the delivery
      // timeout. Waiting only the timeout let a holder that had renewed just before deliver the next post.
      await sleep(RENEW_EVERY_MS + TIMEOUT_MS + 1500);
      const before = receiver.received.length;
      post = await createPost(nodes[1], 'While another machine holds the lease');
      await sleep(LEASE_MS + 2000);
      expect(receiver.received.slice(before)).toEqual([]);
    } finally {
      clearInterval(renewing);
    }
    const stopped = performance.now();
    await receiver.waitFor(ofItem(post), 1, LEASE_MS + TAKEOVER_SLACK_MS + 5000);
    expect(performance.now() - stopped).toBeLessThan(LEASE_MS + TAKEOVER_SLACK_MS);
    expect((await topTerm())._id).toBeGreaterThan(term);
  }, 90_000);

  it('after the holder is killed, another takes over within the lease, in per-item order, losing nothing', async () => {
    receiver.answer = answering(() => ({ status: 204, delayMs: 50 }));
    const killed = await holder();
    const survivor = nodes.find((node) => node !== killed)!;
    const posts = [await createPost(survivor, 'Kill A'), await createPost(survivor, 'Kill B'), await createPost(survivor, 'Kill C')];
    for (const post of posts) await receiver.waitFor(ofItem(post));
    // Writes go on while the holder is killed, some of them queued or in flight there.
    const writing = (async () => {
      for (let version = 2; version <= 10; version++) {
        for (const post of posts) await updatePost(survivor, post, `v${version}`);
        await sleep(100);
      }
    })();
    await sleep(300);
    const before = receiver.received.length;
    killed.service.child.kill('SIGKILL');
    const killedAt = performance.now();
    await killed.service.exited;
    await writing;
    const takenOver = () => receiver.received.slice(before).some((request) => sender(request) === survivor);
    await expect.poll(takenOver, { timeout: LEASE_MS + TAKEOVER_SLACK_MS + 5000, interval: 50 }).toBe(true);
    expect(performance.now() - killedAt).toBeLessThan(LEASE_MS + TAKEOVER_SLACK_MS);
    const findings = await checkDeliveries(db, receiver, endpoint.position, 30_000);
    expect(findings.lost).toEqual([]);
    expect(findings.outOfOrder).toEqual([]);
    for (const post of posts) expect(versions(post).at(-1)).toBe(10);
    // The killed process is replaced, for the next test.
    nodes = [survivor, await cluster.start()];
  }, 120_000);

  it('a holder paused past its term records nothing and sends nothing once it runs again', async () => {
    const paused = await holder();
    const successor = nodes.find((node) => node !== paused)!;
    // The paused holder's request is answered while it is stopped: it reads the answer when it runs again.
    let held = true;
    receiver.answer = answering(() => (held ? ((held = false), { status: 200, delayMs: 500 }) : { status: 204 }));
    const post = await createPost(successor, 'Paused');
    await updatePost(successor, post, 'Paused, v2');
    const [first] = await receiver.waitFor(ofItem(post));
    process.kill(paused.pid, 'SIGSTOP');
    expect(sender(first)).toBe(paused);
    const stoppedAt = performance.now();
    // The successor takes over: version 1 again (its fate is unknown), then version 2, then a later one.
    await receiver.waitFor(ofItem(post), 3, LEASE_MS + TAKEOVER_SLACK_MS + 5000);
    expect(performance.now() - stoppedAt).toBeLessThan(LEASE_MS + TAKEOVER_SLACK_MS);
    await updatePost(successor, post, 'Paused, v3');
    await receiver.waitFor(ofItem(post), 4);
    const before = receiver.received.length;
    process.kill(paused.pid, 'SIGCONT');
    // Long enough for the paused process to read its answer, record it, and send what it had queued.
    await sleep(3000);
    expect(receiver.received.slice(before).map((request) => `${request.json.data.version} from ${sender(request)?.pid}`)).toEqual([]);
    expect(versions(post)).toEqual([1, 1, 2, 3]);
    expect(receiver.received.slice(-3).every((request) => sender(request) === successor)).toBe(true);
    // Every attempt on record is the successor's: none lasted the pause.
    const deliveries = db.collection<{ stream: number; state: string; log: { duration_ms: number }[] }>('webhook_deliveries');
    await expect.poll(async () => (await deliveries.find({ stream: post }).toArray()).map((delivery) => delivery.state)).toEqual(['delivered', 'delivered', 'delivered']);
    for (const delivery of await deliveries.find({ stream: post }).toArray()) for (const entry of delivery.log) expect(entry.duration_ms).toBeLessThan(TIMEOUT_MS);
    // Writes through it still work, and are delivered (by whichever process holds the lease).
    await updatePost(paused, post, 'Paused, v4');
    await receiver.waitFor(ofItem(post), 5);
    expect(versions(post)).toEqual([1, 1, 2, 3, 4]);
  }, 120_000);
});
