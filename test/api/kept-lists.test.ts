import { describe, expect, it } from 'vitest';
import { postsProjection } from '../../src/resources/posts/post.projection.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { catchUpStream } from '../../src/store/projections/projections.js';
import { twoServicesOnOneDatabase } from '../support/test-app.js';

// The writing process's clock is five seconds behind the reading one's. Lists are answered from
// the list index each process keeps; nothing the other process's writes tell it may depend on a
// clock, or on a write landing within a margin.
const BEHIND_MS = 5000;
const services = twoServicesOnOneDatabase({ clock: () => new Date(Date.now() - BEHIND_MS) });

/** The other process's list of `type`, and its `X-WP-Total`. */
const listed = async (type: 'posts' | 'pages', query = '') => {
  const response = await fetch(`${services.other.siteUrl}/cms-json/cms/v2/${type}?per_page=100&context=edit&${query}`, { headers: services.app.admin });
  return { ids: ((await response.json()) as { id: number }[]).map((item) => item.id), total: Number(response.headers.get('X-WP-Total')) };
};

const write = async (route: string, json: unknown) => {
  const response = await services.app.api('POST', route, { headers: services.app.admin, json });
  expect(response.status).toBeLessThan(300);
  return response.body as { id: number };
};

/** Within a second of the write's answer, as a busy reader lists every 100 ms. */
const withinASecond = { timeout: 1000, interval: 100 };

describe("another process's writes, written by a clock five seconds behind", () => {
  for (const type of ['posts', 'pages'] as const) {
    it(`reach the ${type} list and its X-WP-Total within a second: arrival, change, removal`, async () => {
      // The reader has just looked, as a process serving lists always has.
      const before = await listed(type);
      const item = await write(`/cms/v2/${type}`, { title: 'Written behind', status: 'publish' });
      await expect.poll(() => listed(type), withinASecond).toEqual({ ids: expect.arrayContaining([item.id]), total: before.total + 1 });

      await listed(type);
      await write(`/cms/v2/${type}/${item.id}`, { status: 'draft' });
      await expect.poll(() => listed(type), withinASecond).toEqual({ ids: expect.not.arrayContaining([item.id]), total: before.total });
      expect((await listed(type, 'status=draft')).ids).toContain(item.id);

      await listed(type, 'status=draft');
      expect((await services.app.api('DELETE', `/cms/v2/${type}/${item.id}`, { headers: services.app.admin, query: { force: true } })).status).toBe(200);
      await expect.poll(async () => (await listed(type, 'status=draft')).ids, withinASecond).not.toContain(item.id);
    });
  }

  it('reach the list once their item is projected, when the other process read the event before', async () => {
    const item = await write('/cms/v2/posts', { title: 'Projected late', status: 'publish' });
    const before = await listed('posts');
    expect(before.ids).toContain(item.id);
    // A command that appended its event and has not yet written the item (a slow database, or a
    // crash that start-up heals): the other process reads the event with the item still behind it.
    const { db } = services.app.deps.store;
    const log = changeLog(db);
    await log.append({ stream: item.id, streamType: 'post', type: 'updated', at: new Date(), actor: 1, data: { changes: { status: 'draft' } } }, await log.countStream(item.id));
    // Past the quiet second, a list looks at the log whatever the change token says.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await listed('posts')).ids).toContain(item.id);
    await catchUpStream(db, log, postsProjection, item.id);
    // No change token announces the late write: the next look, within a second, reads the item again.
    await expect.poll(() => listed('posts'), { timeout: 2000, interval: 100 }).toEqual({ ids: expect.not.arrayContaining([item.id]), total: before.total - 1 });
  });
});
