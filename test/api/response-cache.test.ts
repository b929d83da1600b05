import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_SYNC_MS } from '../../src/app.js';
import { createTestApp, startServiceOn, type TestApp } from '../support/test-app.js';

// Two processes' worth of the service on one database: each keeps anonymous answers in memory,
// and a write through either reaches the other's within CACHE_SYNC_MS.
let app: TestApp;
let other: Awaited<ReturnType<typeof startServiceOn>>;

beforeAll(async () => {
  app = await createTestApp();
  other = await startServiceOn(app.databaseName);
});
afterAll(async () => {
  await other?.stop();
  await app?.stop();
});

const titleOn = async (siteUrl: string, id: number, headers: Record<string, string> = {}) => {
  const response = await fetch(`${siteUrl}/cms-json/cms/v2/posts/${id}?_fields=title`, { headers });
  return { status: response.status, etag: response.headers.get('etag'), title: response.status === 200 ? ((await response.json()) as { title: { rendered: string } }).title.rendered : '' };
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the anonymous response cache', () => {
  it('answers anonymous reads from memory, with an entity tag and 304 for a client that has it', async () => {
    const post = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Cached', status: 'publish' } });
    const first = await titleOn(other.siteUrl, post.body.id);
    expect(first).toMatchObject({ status: 200, title: 'Cached' });
    expect(first.etag).toBeTruthy();
    const conditional = await fetch(`${other.siteUrl}/cms-json/cms/v2/posts/${post.body.id}?_fields=title`, { headers: { 'If-None-Match': first.etag! } });
    expect(conditional.status).toBe(304);
    // Changed behind every process's back (no write announced it): the cached answer stands.
    await app.deps.store.db.collection('posts').updateOne({ _id: post.body.id }, { $set: { title: 'Changed unannounced' } });
    expect((await titleOn(other.siteUrl, post.body.id)).title).toBe('Cached');
    // A logged-in reader is never answered from the cache.
    expect((await titleOn(other.siteUrl, post.body.id, app.admin)).title).toBe('Changed unannounced');
  });

  it('shows a write at once in the process that made it, and in the other within the bound', async () => {
    const post = await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Before', status: 'publish' } });
    expect((await titleOn(app.siteUrl, post.body.id)).title).toBe('Before');
    expect((await titleOn(other.siteUrl, post.body.id)).title).toBe('Before');
    const list = await fetch(`${other.siteUrl}/cms-json/cms/v2/posts?_fields=id,title&per_page=100`);
    expect(((await list.json()) as { id: number }[]).map((item) => item.id)).toContain(post.body.id);

    const updated = await app.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: app.admin, json: { title: 'After' } });
    expect(updated.status).toBe(200);
    expect((await titleOn(app.siteUrl, post.body.id)).title).toBe('After');
    await pause(CACHE_SYNC_MS + 100);
    expect((await titleOn(other.siteUrl, post.body.id)).title).toBe('After');

    const deleted = await fetch(`${other.siteUrl}/cms-json/cms/v2/posts/${post.body.id}?force=true`, { method: 'DELETE', headers: app.admin });
    expect(deleted.status).toBe(200);
    expect((await titleOn(other.siteUrl, post.body.id)).status).toBe(404);
    await pause(CACHE_SYNC_MS + 100);
    expect((await titleOn(app.siteUrl, post.body.id)).status).toBe(404);
  });

  it('computes a burst of misses for one address once', async () => {
    const postReads: string[] = [];
    const counted = await startServiceOn(app.databaseName, {
      onCommand: (event) => {
        if (event.command[event.commandName] === 'posts') postReads.push(event.commandName);
      },
    });
    try {
      await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Burst', status: 'publish' } });
      const page = (query: string) => fetch(`${counted.siteUrl}/cms-json/cms/v2/posts?${query}`).then((response) => response.status);
      expect(await page('per_page=3')).toBe(200);
      const alone = postReads.length;
      postReads.length = 0;
      expect(await Promise.all(Array.from({ length: 16 }, () => page('per_page=4')))).toEqual(Array(16).fill(200));
      expect(alone).toBeGreaterThan(0);
      expect(postReads.length).toBeLessThanOrEqual(alone);
    } finally {
      await counted.stop();
    }
  });
});
