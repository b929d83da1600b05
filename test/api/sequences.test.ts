import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { sequences } from '../../src/store/sequences.js';

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

  it('never hand the same id to two processes claiming at once, and a starting process continues after the last claim', async () => {
    // Each `sequences` remembers its own last claim, as each service process does.
    const [first, second] = [sequences(app.deps.store.db), sequences(app.deps.store.db)];
    const claimed = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? first : second).next('term')));
    expect(new Set(claimed).size).toBe(120);
    const highest = Math.max(...claimed);
    expect(await sequences(app.deps.store.db).next('term')).toBe(highest + 1);
  });

  it('give concurrently created posts distinct ids over HTTP', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: `Concurrent ${i}` } })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(20);
  });
});
