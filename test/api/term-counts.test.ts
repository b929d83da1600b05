import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SiteHooks } from '../../src/deps.js';
import { publishDue } from '../../src/resources/posts/post.side-effects.js';
import { healTermCounts } from '../../src/resources/terms/index.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

// A term's `count` is the number of published posts carrying it (WordPress's `_update_post_term_count`),
// kept by each write rather than counted: checked here against what the public post list finds.

let app: TestApp;
let category: number;
let tagA: number;
let tagB: number;

beforeAll(async () => {
  app = await createTestApp();
  const make = async (base: string, name: string) => (await app.api('POST', `/cms/v2/${base}`, { json: { name }, headers: app.admin })).body.id as number;
  category = await make('categories', 'Counted category');
  tagA = await make('tags', 'counted-a');
  tagB = await make('tags', 'counted-b');
});
afterAll(async () => {
  await app?.stop();
});

async function write(method: string, route: string, json?: Record<string, unknown>) {
  const response = await app.api(method, `/cms/v2${route}`, { json, headers: app.admin });
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  return response.body;
}

const createPost = async (json: Record<string, unknown>) => (await write('POST', '/posts', { title: 'Counted', ...json })).id as number;

/** Each term's `count`, and what the anonymous post list (published posts only) finds for it. */
async function counts(): Promise<{ kept: number[]; listed: number[] }> {
  const kept = [];
  const listed = [];
  for (const [base, filter, id] of [['categories', 'categories', category], ['tags', 'tags', tagA], ['tags', 'tags', tagB]] as const) {
    kept.push((await app.api('GET', `/cms/v2/${base}/${id}`)).body.count as number);
    listed.push(Number((await app.api('GET', '/cms/v2/posts', { query: { [filter]: id, per_page: 1 } })).headers.get('x-wp-total')));
  }
  return { kept, listed };
}

async function expectCounts(category: number, a: number, b: number) {
  const { kept, listed } = await counts();
  expect(listed, 'the published posts the list finds').toEqual([category, a, b]);
  expect(kept, 'the kept counts').toEqual([category, a, b]);
}

describe('term counts', () => {
  it('stay exact through create, publish, unpublish, trash, untrash, delete and reassignment', async () => {
    await expectCounts(0, 0, 0);
    const first = await createPost({ categories: [category], tags: [tagA] });
    await expectCounts(0, 0, 0);
    await write('POST', `/posts/${first}`, { status: 'publish' });
    await expectCounts(1, 1, 0);
    const second = await createPost({ status: 'publish', categories: [category], tags: [tagA, tagB] });
    await expectCounts(2, 2, 1);
    await write('POST', `/posts/${second}`, { status: 'draft' });
    await expectCounts(1, 1, 0);
    await write('POST', `/posts/${second}`, { status: 'private' });
    await expectCounts(1, 1, 0);
    await write('POST', `/posts/${second}`, { status: 'publish' });
    await expectCounts(2, 2, 1);
    await write('DELETE', `/posts/${first}`);
    await expectCounts(1, 1, 1);
    await write('POST', `/posts/${first}`, { status: 'publish' });
    await expectCounts(2, 2, 1);
    await write('POST', `/posts/${first}`, { categories: [category], tags: [tagB] });
    await expectCounts(2, 1, 2);
    await write('POST', `/posts/${second}`, { categories: [1], tags: [] });
    await expectCounts(1, 0, 1);
    await write('POST', `/posts/${first}`, { title: 'Retitled, terms as they were' });
    await expectCounts(1, 0, 1);
    await write('DELETE', `/posts/${first}?force=true`);
    await expectCounts(0, 0, 0);
    await write('DELETE', `/posts/${second}?force=true`);
    await expectCounts(0, 0, 0);
  });

  it('stay exact through concurrent writes to the same terms', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => createPost({ status: i % 3 === 0 ? 'draft' : 'publish', categories: [category], tags: [tagA] })));
    await expectCounts(8, 8, 0);
    // Every post at once: half move from tag A to tag B, the drafts are published, one post is written twice at once.
    await Promise.all([
      ...ids.map((id, i) => write('POST', `/posts/${id}`, i % 2 === 0 ? { categories: [category], tags: [tagB] } : { status: 'publish' })),
      write('POST', `/posts/${ids[1]}`, { categories: [category], tags: [tagA, tagB] }),
    ]);
    const { kept, listed } = await counts();
    expect(kept).toEqual(listed);
    expect(listed[0]).toBe(10);
    await Promise.all(ids.map((id) => write('DELETE', `/posts/${id}`)));
    await expectCounts(0, 0, 0);
  });

  it('count a write once however often its counting runs, and heal one whose counting was lost', async () => {
    const id = await createPost({ status: 'publish', categories: [category], tags: [tagA, tagB] });
    await expectCounts(1, 1, 1);
    // Counting run again for the same write, and several times at once, changes nothing.
    const write1 = { before: null, after: { _id: id, type: 'post', status: 'publish', parent: 0, author: 1, terms: { category: [category], post_tag: [tagA, tagB] } } };
    await Promise.all([1, 2, 3].map(() => app.deps.hooks.afterPostWrite(app.deps, write1)));
    await expectCounts(1, 1, 1);

    // A write committed whose counting never ran (a crash between the two): the heal finds it.
    const hooks = app.deps.hooks as { -readonly [K in keyof SiteHooks]: SiteHooks[K] };
    const afterPostWrite = hooks.afterPostWrite;
    hooks.afterPostWrite = async () => {};
    try {
      await write('POST', `/posts/${id}`, { status: 'draft' });
    } finally {
      hooks.afterPostWrite = afterPostWrite;
    }
    expect((await counts()).kept).toEqual([1, 1, 1]);
    expect(await healTermCounts(app.deps)).toBe(3);
    await expectCounts(0, 0, 0);
    expect(await healTermCounts(app.deps)).toBe(0);
    await write('DELETE', `/posts/${id}?force=true`);
    await expectCounts(0, 0, 0);
  });
  // Write paths other than a request's create, update or delete: the kernel follows every
  // committed command with the counting, so none of them has to remember it.
  it('follow an item restored as it was at a point, with its terms then', async () => {
    const id = await createPost({ status: 'publish', categories: [category], tags: [tagA] });
    const [{ position }] = await app.deps.store.db.collection<{ position: number }>('events').find({ stream: id, position: { $exists: true } }).sort({ position: -1 }).limit(1).toArray();
    await write('POST', `/posts/${id}`, { tags: [tagB] });
    await expectCounts(1, 0, 1);
    await write('POST', `/posts/${id}/restore?as_of_position=${position}`);
    await expectCounts(1, 1, 0);
    await write('DELETE', `/posts/${id}?force=true`);
    await expectCounts(0, 0, 0);
  });

  it('follow a scheduled post published when its time comes, with no write of it asked', async () => {
    // WordPress publishes at once what is dated under a minute ahead: two minutes, and the scheduler's clock moved past them.
    const due = new Date(Date.now() + 120_000).toISOString().slice(0, 19);
    const scheduled = await write('POST', '/posts', { title: 'Counted when due', status: 'publish', date_gmt: due, categories: [category], tags: [tagB] });
    expect(scheduled.status).toBe('future');
    await expectCounts(0, 0, 0);
    expect(await publishDue({ ...app.deps, clock: () => new Date(Date.now() + 180_000) })).toBe(1);
    await expectCounts(1, 0, 1);
    await write('DELETE', `/posts/${scheduled.id}?force=true`);
    await expectCounts(0, 0, 0);
  });
  it('are healed after a write whose hooks threw: the write is answered as made, and the failure logged', async () => {
    const id = await createPost({ status: 'publish', categories: [category], tags: [tagA] });
    await expectCounts(1, 1, 0);
    const hooks = app.deps.hooks as { -readonly [K in keyof SiteHooks]: SiteHooks[K] };
    const afterPostWrite = hooks.afterPostWrite;
    hooks.afterPostWrite = async () => {
      throw new Error('a hook that fails');
    };
    try {
      const answer = await app.api('POST', `/cms/v2/posts/${id}`, { json: { status: 'draft' }, headers: app.admin });
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('draft');
    } finally {
      hooks.afterPostWrite = afterPostWrite;
    }
    expect(app.logs.some((line) => line.msg === 'what follows a committed write failed; the write stands')).toBe(true);
    expect(await healTermCounts(app.deps)).toBe(2);
    await expectCounts(0, 0, 0);
    await write('DELETE', `/posts/${id}?force=true`);
  });
});
