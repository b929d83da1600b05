import { describe, expect, it } from 'vitest';
import { startServiceOn, twoServicesOnOneDatabase } from '../support/test-app.js';

// One clock: every event holds a position, unique across the log, rising with each stream's
// seqs, kept across restarts; a reader by position sees only a prefix without gaps.
const services = twoServicesOnOneDatabase();

interface EventRow {
  stream: number;
  seq: number;
  type: string;
  at: Date;
  position?: number;
  data: string;
}

const events = () => services.app.deps.store.db.collection<EventRow>('events');
const itemEvents = () => events().find({ stream: { $gt: 0 } }).sort({ stream: 1, seq: 1 }).toArray();

const send = async (siteUrl: string, route: string, headers: Record<string, string>, json: unknown) => {
  const response = await fetch(`${siteUrl}/cms-json/cms/v2${route}`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as any };
};

/** Every stream's positions rise with its seqs, and no two events share one. */
function expectOneClock(rows: EventRow[]) {
  expect(rows.every((row) => Number.isInteger(row.position) && row.position! > 0)).toBe(true);
  expect(new Set(rows.map((row) => row.position)).size).toBe(rows.length);
  const byStream = new Map<number, EventRow[]>();
  for (const row of rows) byStream.set(row.stream, [...(byStream.get(row.stream) ?? []), row]);
  for (const stream of byStream.values()) {
    const positions = stream.map((row) => row.position!);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  }
}

describe('positions of new events', () => {
  it('are unique and rise with each stream under racing writers in two processes', async () => {
    const { app, other } = services;
    const sites = [app.siteUrl, other.siteUrl];
    const posts = await Promise.all(
      [0, 1, 2].map(async (n) => (await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: `Racing ${n}`, status: 'publish' } })).body.id as number),
    );
    const answers = await Promise.all(
      Array.from({ length: 48 }, (_, n) => {
        const post = posts[n % 3];
        return n % 4 === 0
          ? send(sites[n % 2], `/posts/${post}`, app.admin, { title: `update ${n}` })
          : send(sites[n % 2], `/posts/${post}/autosaves`, app.admin, { title: 'Racing', content: `autosave ${n}` });
      }),
    );
    expect(answers.every((answer) => answer.status < 300)).toBe(true);
    const rows = await itemEvents();
    expect(rows.filter((row) => posts.includes(row.stream)).length).toBeGreaterThanOrEqual(3 + 12);
    expectOneClock(rows);

    // Writes one after another, through either process, each above the one before.
    let previous = Math.max(...rows.map((row) => row.position!));
    for (let n = 0; n < 6; n++) {
      const answer = await send(sites[n % 2], `/posts/${posts[0]}`, app.admin, { title: `in turn ${n}` });
      expect(answer.status).toBe(200);
      const [last] = await events().find({ stream: posts[0] }).sort({ stream: 1, seq: -1 }).limit(1).toArray();
      expect(last.position).toBeGreaterThan(previous);
      previous = last.position!;
    }
  });

  it('are kept across a restart, and a new process continues above them', async () => {
    const { app } = services;
    const before = await itemEvents();
    // Voids included: a position reserved by an append that lost its race is voided by its process.
    const highest = Math.max(...(await events().find({}).toArray()).map((row) => row.position ?? 0));
    const restarted = await startServiceOn(app.databaseName);
    try {
      const created = await send(restarted.siteUrl, '/posts', app.admin, { title: 'After the restart' });
      expect(created.status).toBe(201);
      const after = await itemEvents();
      expect(after.filter((row) => row.stream !== created.body.id)).toEqual(before);
      const [event] = after.filter((row) => row.stream === created.body.id);
      expect(event.position).toBe(highest + 1);
    } finally {
      await restarted.stop();
    }
  });
});
