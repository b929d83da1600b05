import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceNodes, type ServiceNode as Node, type ServiceNodes } from '../support/service-nodes.js';
import { SCHEDULER_LEASE_MS } from '../../src/resources/posts/post.scheduler.js';

// The scheduler between real service processes on one database: items scheduled a minute ahead
// (the least WordPress schedules rather than publishes at once) through either process are
// published within a second of their date, with no request reaching the posts routes (the change
// feed, which publishes nothing itself, and the database are watched); their history entry and
// feed change carry that moment. The holder of the scheduling lease is killed while they wait:
// the other process takes over within the lease and publishes them, and what was scheduled after
// the kill, on time. One flow, so that the minute's wait is waited once.
/** How late after its date an item may be published: the bound. */
const ON_TIME_MS = 1000;
/**
 * How far ahead an item is scheduled: as WordPress's `wp_insert_post` does, the service publishes
 * at once an item scheduled for less than a minute ahead.
 */
const AHEAD_MS = 62_000;
/** How late after the lease ran out a process may take over: a look, a claim, on a shared machine. */
const TAKEOVER_SLACK_MS = 4000;

let cluster: ServiceNodes;
const api = (node: Node, method: string, path: string, body?: object) => cluster.api(node, method, path, body);

/** A whole second at least `aheadMs` from now, and its `date_gmt`. */
function secondAhead(aheadMs: number): { at: number; dateGmt: string } {
  const at = Math.ceil((Date.now() + aheadMs) / 1000) * 1000;
  return { at, dateGmt: new Date(at).toISOString().slice(0, 19) };
}

/** Schedules an item of `type` (`posts`, `pages`) for `dateGmt` through `node`; its id. */
async function schedule(node: Node, type: string, title: string, dateGmt: string): Promise<number> {
  const created = await api(node, 'POST', `/cms/v2/${type}`, { title, status: 'future', date_gmt: dateGmt });
  expect(created.status).toBe('future');
  return created.id as number;
}

/** The last position of the change feed. */
async function feedHead(node: Node): Promise<number> {
  return (await api(node, 'GET', '/cms/v2/changes?since=0&limit=1')).last_position as number;
}

interface Change {
  item: number;
  type: string;
  seq: number;
  date_gmt: string;
  fields: string[];
}

/** The feed's changes after `since`, through `node`. */
async function changesSince(node: Node, since: number): Promise<Change[]> {
  return (await api(node, 'GET', `/cms/v2/changes?since=${since}&limit=500`)).changes as Change[];
}

/** Waits, reading only the change feed, for the change that publishes `id`. */
async function publicationIn(node: Node, since: number, id: number, timeoutMs: number): Promise<Change> {
  const published = async () => (await changesSince(node, since)).find((change) => change.item === id && change.type === 'updated' && change.fields.includes('status'));
  await expect.poll(published, { timeout: timeoutMs, interval: 100 }).toBeDefined();
  return (await published())!;
}

/** The event that published `id`, as the log holds it (its time to the millisecond). */
async function publishingEvent(id: number) {
  const events = await cluster.db.collection<{ stream: number; seq: number; at: Date; type: string }>('events').find({ stream: id }).sort({ seq: 1 }).toArray();
  expect(events.map((event) => event.type)).toEqual(['created', 'updated']);
  return events[1];
}

const statusOf = async (id: number) => (await cluster.db.collection<{ _id: number; status: string }>('posts').findOne({ _id: id }))?.status;

/** The process holding the scheduling lease. */
const holder = () => cluster.holder('scheduler_leases');

beforeAll(async () => {
  cluster = await startServiceNodes({ name: 'scheduler', password: 'scheduler-test-password', count: 2 });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('the scheduler', () => {
  it('publishes scheduled posts and pages within a second of their date, with no request to their routes, and is taken over when its holder is killed', async () => {
    const [first, second] = cluster.nodes;
    const since = await feedHead(first);
    const before = secondAhead(AHEAD_MS);
    const post = await schedule(first, 'posts', 'Scheduled post', before.dateGmt);
    const page = await schedule(second, 'pages', 'Scheduled page', before.dateGmt);
    // Only the feed is read from now on: it shows the items scheduled until their date.
    expect((await changesSince(second, since)).map((change) => [change.item, change.type])).toEqual([
      [post, 'created'],
      [page, 'created'],
    ]);
    expect([await statusOf(post), await statusOf(page)]).toEqual(['future', 'future']);

    const killed = await holder();
    const survivor = cluster.nodes.find((node) => node !== killed)!;
    killed.service.child.kill('SIGKILL');
    const killedAt = Date.now();
    await killed.service.exited;
    // Past the time the dead holder's term could last: only the survivor can publish it.
    const after = secondAhead(Math.max(AHEAD_MS, SCHEDULER_LEASE_MS + 2000));
    const scheduledAfterKill = await schedule(survivor, 'posts', 'Scheduled after the kill', after.dateGmt);
    await expect.poll(async () => (await cluster.newestTerm('scheduler_leases'))?.owner.split(':')[1], { timeout: SCHEDULER_LEASE_MS + TAKEOVER_SLACK_MS, interval: 100 }).toBe(String(survivor.pid));
    expect(Date.now() - killedAt).toBeLessThan(SCHEDULER_LEASE_MS + TAKEOVER_SLACK_MS);

    for (const [id, at] of [
      [post, before.at],
      [page, before.at],
      [scheduledAfterKill, after.at],
    ]) {
      const change = await publicationIn(survivor, since, id, at - Date.now() + ON_TIME_MS + 5000);
      const event = await publishingEvent(id);
      // The history entry carries the moment of publication, and the feed's change that same moment.
      expect(event.at.getTime()).toBeGreaterThanOrEqual(at);
      expect(event.at.getTime() - at).toBeLessThan(ON_TIME_MS);
      expect(change.date_gmt).toBe(event.at.toISOString().slice(0, 19));
      expect(await statusOf(id)).toBe('publish');
    }
  }, 150_000);
});
