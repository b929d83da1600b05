import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
let author: Awaited<ReturnType<TestApp['asRole']>>;
let contributor: Awaited<ReturnType<TestApp['asRole']>>;

beforeAll(async () => {
  app = await createTestApp();
  author = await app.asRole('author');
  contributor = await app.asRole('contributor');
});
afterAll(async () => {
  await app?.stop();
});

const create = (json: Record<string, unknown>, headers = app.admin, type = 'posts') => app.api('POST', `/cms/v2/${type}`, { headers, json });

describe('date parameters', () => {
  it('refuses dates that do not exist, as WordPress does (rest_invalid_date)', async () => {
    const impossible: Record<string, string>[] = [{ before: '2020-13-45T99:99:99' }, { after: '2021-02-30T10:00:00' }, { modified_before: '2020-01-01T24:00:00' }];
    for (const query of impossible) {
      const response = await app.api('GET', '/cms/v2/posts', { query });
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, details: { [Object.keys(query)[0]]: { code: 'rest_invalid_date' } } } });
    }
    const body = await create({ title: 'Bad date', date: '2020-13-45T99:99:99' });
    expect(body.status).toBe(400);
    expect(body.body.data.details.date.code).toBe('rest_invalid_date');
  });

  it('compares after and before as instants, honouring an offset', async () => {
    const timezone = await app.api('POST', '/cms/v2/settings', { headers: app.admin, json: { timezone: 'Asia/Kolkata' } });
    expect(timezone.status).toBe(200);
    try {
      const post = await create({ title: 'At ten GMT', status: 'publish', date_gmt: '2020-06-01T10:00:00' });
      expect(post.body.date).toBe('2020-06-01T15:30:00');
      const ids = async (query: Record<string, string>) =>
        ((await app.api('GET', '/cms/v2/posts', { query: { ...query, per_page: '100' } })).body as { id: number }[]).map((item) => item.id);
      // 12:30+05:00 is 07:30Z: the post (10:00Z) is after it, though its wall-clock hour reads earlier.
      expect(await ids({ after: '2020-06-01T12:30:00+05:00' })).toContain(post.body.id);
      expect(await ids({ after: '2020-06-01T10:00:01Z' })).not.toContain(post.body.id);
      expect(await ids({ before: '2020-06-01T10:00:01Z' })).toContain(post.body.id);
      expect(await ids({ before: '2020-06-01T15:00:00+05:00' })).not.toContain(post.body.id);
      // Without an offset the value is site time, as the `date` column is.
      expect(await ids({ after: '2020-06-01T15:29:59' })).toContain(post.body.id);
      expect(await ids({ after: '2020-06-01T15:30:00' })).not.toContain(post.body.id);
    } finally {
      await app.api('POST', '/cms/v2/settings', { headers: app.admin, json: { timezone: null } });
    }
  });
});

describe('sticky', () => {
  it('lets whoever may publish make a post sticky, and refuses contributors', async () => {
    const byAuthor = await create({ title: 'Author sticky', status: 'publish', sticky: true }, author.headers);
    expect(byAuthor.status).toBe(201);
    expect(byAuthor.body.sticky).toBe(true);
    const unstuck = await app.api('POST', `/cms/v2/posts/${byAuthor.body.id}`, { headers: author.headers, json: { sticky: false } });
    expect(unstuck.body.sticky).toBe(false);

    const byContributor = await create({ title: 'Contributor sticky', status: 'pending', sticky: true }, contributor.headers);
    expect(byContributor.status).toBe(403);
    expect(byContributor.body.code).toBe('rest_cannot_assign_sticky');
  });
});

describe('meta', () => {
  it('keeps only registered post meta, each checked against its schema', async () => {
    const post = await create({ title: 'With meta', meta: { footnotes: '[{"id":"1","content":"Note"}]', secret_flag: 'x', __proto__: { polluted: 1 } } });
    expect(post.status).toBe(201);
    expect(post.body.meta).toEqual({ footnotes: '[{"id":"1","content":"Note"}]' });
    const read = await app.api('GET', `/cms/v2/posts/${post.body.id}`, { headers: app.admin, query: { context: 'edit' } });
    expect(read.body.meta).toEqual({ footnotes: '[{"id":"1","content":"Note"}]' });

    const wrongType = await app.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: app.admin, json: { meta: { footnotes: { not: 'a string' } } } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.code).toBe('rest_invalid_param');

    const cleared = await app.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: app.admin, json: { meta: { footnotes: null } } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.meta).toEqual({ footnotes: '' });
    const page = await create({ title: 'Page meta', meta: { other: 1 } }, app.admin, 'pages');
    expect(page.body.meta).toEqual({ footnotes: '' });
  });

  it('drops unregistered term and user meta, and keeps users\' registered preferences', async () => {
    const tag = await create({ name: 'Meta tag', meta: { colour: 'red' } }, app.admin, 'tags');
    expect(tag.status).toBe(201);
    expect(tag.body.meta).toEqual({});

    const me = await app.api('POST', '/cms/v2/users/me', {
      headers: app.admin,
      json: { meta: { persisted_preferences: { core: { fixedToolbar: true }, _modified: '2024-01-01T00:00:00Z' }, favourite: 'blue' } },
    });
    expect(me.status).toBe(200);
    const edit = await app.api('GET', '/cms/v2/users/me', { headers: app.admin, query: { context: 'edit' } });
    expect(edit.body.meta).toEqual({ persisted_preferences: { core: { fixedToolbar: true }, _modified: '2024-01-01T00:00:00Z' } });
    // Shown in the edit context only, as WordPress registers it.
    const view = await app.api('GET', '/cms/v2/users/me', { headers: app.admin });
    expect(view.body.meta).toEqual({});
  });
});
