import { type CommandStartedEvent } from 'mongodb';
import { describe, expect, inject, it } from 'vitest';
import { changeLog, POSITION_BLOCK, POSITIONS_CHECKPOINT, upgradePositions } from '../../src/store/log/change-log.js';
import { openStore } from '../../src/store/database/mongo.js';
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
  positionBlock?: number;
  data: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
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
    // A position left free by the racing writers (a lost race's void still on its way, a value
    // of the shared counter nobody filled) may rightly be taken by a new process. A reader by
    // position voids each gap it has waited out: once one has read the whole log, none is left,
    // and the new process must continue above the highest position, voids included.
    const log = changeLog(app.deps.store.db);
    // One such gap for certain: a position taken two past the head.
    const head = Math.max(...(await events().find({}).toArray()).map((row) => row.position ?? 0));
    await events().insertOne({ stream: 0, seq: -(head + 2), type: 'void', at: new Date(), actor: 0, data: 'null', position: head + 2 } as EventRow);
    for (let after = 0; ; ) {
      const page = await log.readPositions(after, 1000, { gapWaitMs: 100, outline: true });
      if (page.through <= after) break;
      after = page.through;
    }
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

describe('a reader by position', () => {
  // The service process's own clock is at its last append: a missing position just above it,
  // with a later one present, is what an append of another process still in flight leaves.
  const lastWrite = async (title: string) => {
    const { app } = services;
    const created = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title } });
    expect(created.status).toBe(201);
    const event = await events().findOne({ stream: created.body.id, seq: 1 });
    return { post: created.body.id as number, position: event!.position! };
  };
  const laterRow = (position: number): EventRow & { actor: number } => ({ stream: 0, seq: -position, type: 'void', at: new Date(), actor: 0, data: 'null', position });

  it('reads a prefix without gaps, and waits for a missing position that an append in flight then fills', async () => {
    const { app } = services;
    const log = changeLog(app.deps.store.db);
    const { post, position } = await lastWrite('Before a gap');
    await events().insertOne(laterRow(position + 2));

    const reading = log.readPositions(position - 1, 5, { gapWaitMs: 60_000 });
    await sleep(300);
    // Still waiting: the append in flight at `position + 1` commits now.
    const inFlight = { stream: post, streamType: 'post', seq: 2, type: 'updated', at: new Date(), actor: 1, data: JSON.stringify({ changes: { title: 'In flight' } }), position: position + 1 };
    await events().insertOne(inFlight);
    const read = await reading;
    expect(read.through).toBe(position + 2);
    expect(read.events.map((event) => [event.stream, event.seq, event.position])).toEqual([
      [post, 1, position],
      [post, 2, position + 1],
    ]);
  });

  it('abandons a missing position it has waited out, and an append arriving after that takes a later one, answered as stored', async () => {
    const { app } = services;
    const log = changeLog(app.deps.store.db);
    const { post, position } = await lastWrite('Before an abandoned gap');
    await events().insertOne(laterRow(position + 2));

    const stopped = await log.readPositions(position - 1, 5, { gapWaitMs: 0 });
    expect(stopped.through).toBe(position + 2);
    expect(stopped.events.map((event) => event.position)).toEqual([position]);
    const voided = await events().findOne({ position: position + 1 });
    expect(voided).toMatchObject({ stream: 0, seq: -(position + 1), type: 'void' });

    // The service's next append tries the abandoned position first, and goes above.
    const updated = await app.api('POST', `/cms/v2/posts/${post}`, { headers: app.admin, json: { title: 'Arrived late' } });
    expect(updated.status).toBe(200);
    expect(updated.body.title.raw).toBe('Arrived late');
    const stored = await events().findOne({ stream: post, seq: 2 });
    expect(stored!.position).toBe(position + 3);
    expect(JSON.parse(stored!.data).changes.title).toBe('Arrived late');
    const again = await log.readPositions(position - 1, 5, { gapWaitMs: 0 });
    expect(again.events.map((event) => [event.stream, event.seq])).toEqual([
      [post, 1],
      [post, 2],
    ]);
  });

  it('never finds an event appear below a position it has gone past, while two processes race to append', async () => {
    const { app, other } = services;
    const log = changeLog(app.deps.store.db);
    const sites = [app.siteUrl, other.siteUrl];
    const posts = await Promise.all(
      [0, 1, 2, 3].map(async (n) => (await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: `Watched ${n}`, status: 'publish' } })).body.id as number),
    );
    const start = Math.max(...(await events().find({}).toArray()).map((row) => row.position ?? 0));
    const seen = new Set<number>();
    let through = start;
    let writing = true;
    // A short wait, so that appends still in flight are abandoned and must go above.
    const reader = (async () => {
      while (writing) {
        const read = await log.readPositions(through, 16, { gapWaitMs: 20 });
        for (const event of read.events) seen.add(event.position!);
        if (read.through === through) await sleep(5);
        through = read.through;
      }
    })();
    const answers = await Promise.all(
      Array.from({ length: 128 }, (_, n) =>
        n % 8 < 2
          ? send(sites[n % 2], `/posts/${posts[n % 4]}`, app.admin, { title: `watched update ${n}` })
          : send(sites[(n >> 2) % 2], `/posts/${posts[n % 4]}/autosaves`, app.admin, { title: 'Watched', content: `watched autosave ${n}` }),
      ),
    );
    writing = false;
    await reader;
    expect(answers.every((answer) => answer.status < 300)).toBe(true);
    expect(through).toBeGreaterThan(start);
    const passed = (await itemEvents()).filter((row) => row.position! > start && row.position! <= through);
    expect(passed.map((row) => row.position!).sort((a, b) => a - b)).toEqual([...seen].sort((a, b) => a - b));
    expectOneClock(await itemEvents());
  });

  it('are taken by two processes writing by turns without either losing a race for one', async () => {
    const { app } = services;
    // What each process sent to the log: a (stream, seq) sent at more than one position lost the race for the first.
    const sent = [new Map<string, Set<number>>(), new Map<string, Set<number>>()];
    const recorder = (process: number) => (event: CommandStartedEvent) => {
      if (event.commandName !== 'insert' || event.command.insert !== 'events') return;
      for (const row of event.command.documents as EventRow[]) {
        if (row.stream === 0) continue;
        const key = `${row.stream}:${row.seq}`;
        sent[process].set(key, (sent[process].get(key) ?? new Set()).add(row.position!));
      }
    };
    const writers = [await startServiceOn(app.databaseName, { onCommand: recorder(0) }), await startServiceOn(app.databaseName, { onCommand: recorder(1) })];
    try {
      // Each its own post: an append goes above its item's previous event, wherever that was written.
      // Made one after the other too: two appends in flight at once may truly race for a position.
      const posts: number[] = [];
      for (const writer of writers) posts.push((await send(writer.siteUrl, '/posts', app.admin, { title: 'By turns', status: 'publish' })).body.id as number);
      for (let n = 0; n < 12; n++) {
        const answer = await send(writers[n % 2].siteUrl, `/posts/${posts[n % 2]}`, app.admin, { title: `By turns ${n}` });
        expect(answer.status).toBe(200);
      }
    } finally {
      await Promise.all(writers.map((writer) => writer.stop()));
    }
    const appends = sent.map((byKey) => [...byKey.values()]);
    expect(appends[1].length).toBeGreaterThanOrEqual(6);
    expect(appends.flat().filter((positions) => positions.size > 1)).toEqual([]);
    expectOneClock(await itemEvents());
  });

  it('are taken from the shared counter one run at a time by a process, so its concurrent appends never race each other', async () => {
    const { app } = services;
    const sent = new Map<string, Set<number>>();
    let counterTakes = 0;
    const recorder = (event: CommandStartedEvent) => {
      if (event.commandName === 'findAndModify' && event.command.findAndModify === 'counters') counterTakes++;
      if (event.commandName !== 'insert' || event.command.insert !== 'events') return;
      for (const row of event.command.documents as EventRow[]) {
        if (row.stream === 0) continue;
        const key = `${row.stream}:${row.seq}`;
        sent.set(key, (sent.get(key) ?? new Set()).add(row.position!));
      }
    };
    const writers = [await startServiceOn(app.databaseName, { onCommand: recorder }), await startServiceOn(app.databaseName)];
    try {
      const posts: number[] = [];
      for (let n = 0; n < 8; n++) posts.push((await send(writers[0].siteUrl, '/posts', app.admin, { title: `Concurrent ${n}`, status: 'publish' })).body.id as number);
      // The other process appends: the first learns that the log is shared, and takes positions from the counter.
      expect((await send(writers[1].siteUrl, `/posts/${posts[0]}`, app.admin, { title: 'Shared' })).status).toBe(200);
      expect((await send(writers[0].siteUrl, `/posts/${posts[1]}`, app.admin, { title: 'Learned' })).status).toBe(200);
      sent.clear();
      counterTakes = 0;
      const answers = await Promise.all(posts.map((post, n) => send(writers[0].siteUrl, `/posts/${post}`, app.admin, { title: `At once ${n}` })));
      expect(answers.map((answer) => answer.status)).toEqual(posts.map(() => 200));
    } finally {
      await Promise.all(writers.map((writer) => writer.stop()));
    }
    expect(counterTakes).toBeGreaterThan(0);
    expect(counterTakes).toBeLessThan(sent.size);
    expect([...sent.values()].filter((positions) => positions.size > 1)).toEqual([]);
    expectOneClock(await itemEvents());
  });

  it('are taken past a shared counter left far behind the log, with one lost race, and the counter raised past them', async () => {
    const { app } = services;
    const inserts = [0, 0];
    const recorder = (process: number) => (event: CommandStartedEvent) => {
      if (event.commandName === 'insert' && event.command.insert === 'events' && (event.command.documents as EventRow[]).some((row) => row.stream !== 0)) inserts[process]++;
    };
    const writers = [await startServiceOn(app.databaseName, { onCommand: recorder(0) }), await startServiceOn(app.databaseName, { onCommand: recorder(1) })];
    try {
      const posts: number[] = [];
      for (const writer of writers) posts.push((await send(writer.siteUrl, '/posts', app.admin, { title: 'Behind', status: 'publish' })).body.id as number);
      // Both see the other append (the log is shared), then the counter goes back, as after a bulk seed.
      for (let n = 0; n < 4; n++) expect((await send(writers[n % 2].siteUrl, `/posts/${posts[n % 2]}`, app.admin, { title: `Behind ${n}` })).status).toBe(200);
      await app.deps.store.db.collection<{ _id: string; last: number }>('counters').updateOne({ _id: 'position' }, { $set: { last: 1 } });
      inserts.fill(0);
      // New posts: nothing of theirs is above the counter's next position.
      for (let n = 0; n < 4; n++) expect((await send(writers[n % 2].siteUrl, '/posts', app.admin, { title: `Past ${n}` })).status).toBe(201);
    } finally {
      await Promise.all(writers.map((writer) => writer.stop()));
    }
    // Each append tries once more at most: the first free position is looked up, not walked to.
    expect(inserts[0] + inserts[1]).toBeLessThanOrEqual(4 + 2);
    const highest = Math.max(...(await events().find({}).toArray()).map((row) => row.position ?? 0));
    const counter = await app.deps.store.db.collection<{ _id: string; last: number }>('counters').findOne({ _id: 'position' });
    expect(counter!.last).toBeGreaterThanOrEqual(highest);
    expectOneClock(await itemEvents());
  });

  it('stops at a missing position with nothing after it: the end of the log', async () => {
    const { app } = services;
    const { position } = await lastWrite('At the end');
    const read = await changeLog(app.deps.store.db).readPositions(position - 1, 5, { gapWaitMs: 60_000 });
    expect(read.through).toBe(position);
    expect(await events().findOne({ position: position + 1 })).toBeNull();
  });
});

describe('the upgrade of a log stored before positions', () => {
  it('gives those events positions at start-up, above the rest, in (at, stream, seq) order, the same in two processes starting at once', async () => {
    const { app } = services;
    const [first, second] = await Promise.all(
      ['Old one', 'Old two'].map(async (title) => (await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title } })).body.id as number),
    );
    // Interleaved in time, so that time order is not stream order.
    for (const [post, title] of [[second, 'Two, revised'], [first, 'One, revised'], [second, 'Two, again']] as const) {
      expect((await app.api('POST', `/cms/v2/posts/${post}`, { headers: app.admin, json: { title } })).status).toBe(200);
    }
    await events().updateMany({ stream: { $in: [first, second] } }, { $unset: { position: '', positionBlock: '' } });
    await app.deps.store.db.collection<{ _id: string }>('checkpoints').deleteOne({ _id: POSITIONS_CHECKPOINT });
    const highest = Math.max(...(await events().find({}).toArray()).map((row) => row.position ?? 0));

    const started = await Promise.all([startServiceOn(app.databaseName), startServiceOn(app.databaseName)]);
    try {
      const upgraded = (await itemEvents()).filter((row) => row.stream === first || row.stream === second);
      upgraded.sort((a, b) => a.at.getTime() - b.at.getTime() || a.stream - b.stream || a.seq - b.seq);
      expect(upgraded.map((row) => row.position)).toEqual(upgraded.map((_, rank) => highest + 1 + rank));
      expect(upgraded.every((row) => row.positionBlock === Math.floor(row.position! / POSITION_BLOCK))).toBe(true);
      expect(upgraded.map((row) => row.stream)).not.toEqual([...upgraded].sort((a, b) => a.stream - b.stream || a.seq - b.seq).map((row) => row.stream));
      expectOneClock(await itemEvents());

      const created = await send(started[1].siteUrl, '/posts', app.admin, { title: 'After the upgrade' });
      expect(created.status).toBe(201);
      expect((await events().findOne({ stream: created.body.id, seq: 1 }))!.position).toBeGreaterThan(highest + upgraded.length);
      // Once per database: a later start finds the checkpoint and numbers nothing again.
      expect(await upgradePositions(app.deps.store.db)).toBe(0);
    } finally {
      await Promise.all(started.map((service) => service.stop()));
    }
  });
});

describe('reading a page of positions', () => {
  /** The change log on a connection of its own, counting the reads of `events` by the field they name. */
  async function countedLog() {
    const reads = { byPosition: 0, byBlock: 0 };
    const store = await openStore(inject('mongodbUri'), {
      databaseName: services.app.databaseName,
      onCommand: (event: CommandStartedEvent) => {
        if (event.commandName !== 'find' || event.command.find !== 'events') return;
        if ('position' in event.command.filter) reads.byPosition++;
        if ('positionBlock' in event.command.filter) reads.byBlock++;
      },
    });
    return { log: changeLog(store.db), reads, close: () => store.close() };
  }

  it('reads past its first few positions a block at a time, and by key the events stored before blocks were kept', async () => {
    const { app } = services;
    const post = (await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Paged' } })).body.id as number;
    for (let n = 1; n <= 150; n++) expect((await app.api('POST', `/cms/v2/posts/${post}`, { headers: app.admin, json: { title: `Paged ${n}` } })).status).toBe(200);
    const rows = await events().find({ stream: post }).sort({ stream: 1, seq: 1 }).toArray();
    // Appends kept each position's block.
    expect(rows.every((row) => row.positionBlock === Math.floor(row.position! / POSITION_BLOCK))).toBe(true);
    const after = rows[0].position! - 1;
    const limit = rows.at(-1)!.position! - after;
    const expected = (await itemEvents()).filter((row) => row.position! > after).map((row) => [row.stream, row.seq, row.position]);

    const { log, reads, close } = await countedLog();
    try {
      const read = await log.readPositions(after, limit, { gapWaitMs: 0 });
      expect(read.through).toBe(after + limit);
      expect(read.events.map((event) => [event.stream, event.seq, event.position])).toEqual(expected);
      // Eight by key, then the blocks the rest falls in (and any gap by key).
      expect(reads.byPosition).toBeLessThan(20);
      expect(reads.byBlock).toBeLessThanOrEqual(Math.ceil(limit / POSITION_BLOCK) + 1);

      // The first half as a log stored before blocks: read by key, the same events.
      const stored = rows.slice(0, 75).map((row) => row.position!);
      await events().updateMany({ position: { $in: stored } }, { $unset: { positionBlock: '' } });
      const again = await log.readPositions(after, limit, { gapWaitMs: 0 });
      expect(again.events.map((event) => [event.stream, event.seq, event.position])).toEqual(expected);
      // And the whole page so: by key, in doubling runs, to its end.
      await events().updateMany({ position: { $gt: after } }, { $unset: { positionBlock: '' } });
      const old = await log.readPositions(after, limit, { gapWaitMs: 0 });
      expect(old.events.map((event) => [event.stream, event.seq, event.position])).toEqual(expected);
      expect(old.through).toBe(after + limit);
    } finally {
      await close();
    }
  });
});
