import { type CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStore } from '../../src/store/database/mongo.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sequences } from '../../src/store/coordination/sequences.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('id sequences', () => {
  it('never hand the same id to concurrent callers', async () => {
    const ids = await Promise.all(Array.from({ length: 300 }, () => app.deps.ids.next('content')));
    expect(new Set(ids).size).toBe(300);
    expect(Math.max(...ids) - Math.min(...ids)).toBe(299);
  });

  it('keep sequences apart and honour reservations', async () => {
    const user = await app.deps.ids.next('user');
    await app.deps.ids.reserve('term', 5000);
    expect(await app.deps.ids.next('term')).toBe(5001);
    expect(await app.deps.ids.next('user')).toBe(user + 1);
  });

  it('never hand the same id to two processes claiming at once, claim blocks once they race, and a starting process continues after the last claim', async () => {
    // Two connections, each with its own `sequences`, as two service processes have.
    const inserts = [0, 0];
    const stores = await Promise.all(
      [0, 1].map((process) =>
        openStore(inject('mongodbUri'), {
          databaseName: app.databaseName,
          onCommand: (event: CommandStartedEvent) => {
            if (event.commandName === 'insert' && event.command.insert === 'id_claims') inserts[process]++;
          },
        }),
      ),
    );
    try {
      const [first, second] = stores.map((store) => sequences(store.db));
      const claimed = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? first : second).next('user')));
      expect(new Set(claimed).size).toBe(120);
      // Claiming by turns, each would try the id the other just took: one id per insert would be
      // at least 40 inserts. Once they have raced, each insert claims a block.
      await first.next('user');
      await second.next('user');
      await first.next('user');
      inserts.fill(0);
      const byTurns: number[] = [];
      for (let n = 0; n < 40; n++) byTurns.push(await (n % 2 ? first : second).next('user'));
      expect(new Set([...claimed, ...byTurns]).size).toBe(160);
      expect(inserts[0] + inserts[1]).toBeLessThan(30);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const claims = await app.deps.store.db.collection<{ _id: string }>('id_claims').find({ _id: { $regex: '^user:' } }).toArray();
    const highestClaim = Math.max(...claims.map((claim) => Number(claim._id.slice('user:'.length))));
    expect(await sequences(app.deps.store.db).next('user')).toBe(highestClaim + 1);
  });

  it('give concurrently created posts distinct ids over HTTP', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: `Concurrent ${i}` } })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(20);
  });
});
