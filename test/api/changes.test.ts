import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autosavePost, siteChanges, updatePost } from '../../src/resources/posts/post.commands.js';
import { postsProjection } from '../../src/resources/posts/post.projection.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { recordRetention } from '../../src/store/projections/change-feed.js';
import { catchUpStream } from '../../src/store/projections/projections.js';
import { givenPost, givenTitleChanges } from '../support/post-fixtures.js';
import { createTestApp, twoServicesOnOneDatabase, type TestApp } from '../support/test-app.js';

const services = twoServicesOnOneDatabase();
const app = (): TestApp => services.app;

/** The last position handed out so far: where a test's own changes start. */
const head = async () => (await changeLog(app().deps.store.db).firstFreePosition()) - 1;

async function changes(query: Record<string, string | number | (string | number)[]>, headers: Record<string, string> = app().admin) {
  return app().api('GET', '/cms/v2/changes', { query, headers });
}

describe('GET /changes', () => {
  it('pages through every change in position order, each page naming the last position it covers', async () => {
    const since = await head();
    const first = await givenPost(app().deps, { title: 'One' });
    const second = await givenPost(app().deps, { title: 'Two', type: 'page' });
    await updatePost(app().deps, first._id, siteChanges({ title: 'One, again' }), 1);

    const page = await changes({ since });
    expect(page.status).toBe(200);
    const listed = page.body.changes as Record<string, any>[];
    expect(listed.map((change) => [change.item, change.item_type, change.seq, change.type])).toEqual([
      [first._id, 'post', 1, 'created'],
      [second._id, 'page', 1, 'created'],
      [first._id, 'post', 2, 'updated'],
    ]);
    expect(listed.map((change) => change.position)).toEqual([since + 1, since + 2, since + 3]);
    expect(listed[2]).toMatchObject({ author: 1, fields: ['title'], redacted: [] });
    expect(page.body.last_position).toBe(since + 3);
    expect(page.headers.get('x-cms-last-position')).toBe(String(since + 3));

    // One position a page: the same changes, each page moving on by one.
    const walked: number[] = [];
    let cursor = since;
    for (let i = 0; i < 3; i++) {
      const one = await changes({ since: cursor, limit: 1 });
      walked.push(...one.body.changes.map((change: { position: number }) => change.position));
      expect(one.body.last_position).toBe(cursor + 1);
      cursor = one.body.last_position;
    }
    expect(walked).toEqual([since + 1, since + 2, since + 3]);
    const end = await changes({ since: cursor });
    expect(end.body).toEqual({ changes: [], last_position: cursor });
  });

  it('covers filtered changes too: a page with none left still moves the consumer on', async () => {
    const since = await head();
    const post = await givenPost(app().deps, { title: 'Only posts here' });
    await updatePost(app().deps, post._id, siteChanges({ title: 'Still a post' }), 1);

    const pages = await changes({ since, types: ['page'] });
    expect(pages.body).toEqual({ changes: [], last_position: since + 2 });
    const updates = await changes({ since, subtypes: ['updated'] });
    expect(updates.body.changes.map((change: { position: number }) => change.position)).toEqual([since + 2]);
    expect(updates.body.last_position).toBe(since + 2);
  });

  it('delivers an event only once its item reflects it: the page ends before one still being projected', async () => {
    const post = await givenPost(app().deps, { title: 'Projected' });
    const since = await head();
    await givenTitleChanges(app().deps, post._id, 2, { project: false });

    const waiting = await changes({ since, include: 'item' });
    expect(waiting.body).toEqual({ changes: [], last_position: since });

    await catchUpStream(app().deps.store.db, changeLog(app().deps.store.db), postsProjection, post._id);
    const delivered = await changes({ since, include: 'item' });
    expect(delivered.body.changes.map((change: { seq: number }) => change.seq)).toEqual([2, 3]);
    // Read right after, the item shows the change.
    expect(delivered.body.changes[1].object).toMatchObject({ id: post._id, title: { rendered: 'Title 3' } });
  });

  it('names the type of an item whose events were stored before they recorded it, from its first event', async () => {
    const since = await head();
    const page = await givenPost(app().deps, { title: 'Old page', type: 'page' });
    await updatePost(app().deps, page._id, siteChanges({ title: 'Old page, edited' }), 1);
    await app().deps.store.db.collection('events').updateMany({ stream: page._id }, { $unset: { streamType: '' } });
    const listed = await changes({ since, types: ['page'] });
    expect(listed.body.changes.map((change: Record<string, unknown>) => [change.item, change.item_type, change.seq])).toEqual([
      [page._id, 'page', 1],
      [page._id, 'page', 2],
    ]);
  });

  it('shows anonymous callers only public changes of public items, without content that was never public', async () => {
    const editor = await app().asRole('editor');
    const since = await head();
    const hidden = await givenPost(app().deps, { title: 'Never public', content: '<p>Secret plan.</p>' });
    const post = await givenPost(app().deps, { title: 'Draft first', content: '<p>Draft words.</p>' });
    await updatePost(app().deps, post._id, siteChanges({ status: 'publish', content: '<p>Public words.</p>', dateGmt: '2024-05-06T07:08:09' }), 1);
    await autosavePost(app().deps, post._id, { content: '<p>An editor\'s unsaved thoughts.</p>' }, editor.id);
    await updatePost(app().deps, post._id, siteChanges({ content: '<p>Public words, revised.</p>' }), 1);
    await updatePost(app().deps, post._id, siteChanges({ status: 'draft' }), 1);

    const anonymous = await changes({ since, include: 'diff' }, {});
    expect(anonymous.status).toBe(200);
    const seen = anonymous.body.changes as Record<string, any>[];
    expect(seen.map((change) => [change.item, change.seq, change.type])).toEqual([
      [post._id, 2, 'updated'],
      [post._id, 4, 'updated'],
      [post._id, 5, 'updated'],
    ]);
    expect(anonymous.body.last_position).toBe(since + 6);
    const text = JSON.stringify(anonymous.body);
    for (const secret of ['Secret plan', 'Draft words', 'unsaved thoughts', 'Never public']) expect(text).not.toContain(secret);
    // Published from a draft: the diff starts from nothing, not from the draft.
    expect(seen[0].diff.content.hunks[0].lines).toEqual(['+<p>Public words.</p>']);
    expect(seen[1].diff.content.hunks[0].lines).toEqual(['-<p>Public words.</p>', '+<p>Public words, revised.</p>']);
    // Withdrawn from the public: the change is shown, what it left is not.
    expect(seen[2].diff).toBeNull();

    // Whoever may edit the items sees every change, content included.
    const full = await changes({ since, include: 'diff' }, editor.headers);
    expect(full.body.changes.map((change: Record<string, any>) => [change.item, change.seq, change.type])).toEqual([
      [hidden._id, 1, 'created'],
      [post._id, 1, 'created'],
      [post._id, 2, 'updated'],
      [post._id, 3, 'autosaved'],
      [post._id, 4, 'updated'],
      [post._id, 5, 'updated'],
    ]);
    expect(full.body.changes[2].diff.content.hunks[0].lines).toEqual(['-<p>Draft words.</p>', '+<p>Public words.</p>']);
    // A contributor may edit none of them: public changes only, as anonymous callers.
    const contributor = await app().asRole('contributor');
    const limited = await changes({ since }, contributor.headers);
    expect(limited.body.changes.map((change: { seq: number }) => change.seq)).toEqual([2, 4, 5]);
  });

  it('answers include=item with the item as GET answers it, for the caller', async () => {
    const since = await head();
    const post = await givenPost(app().deps, { title: 'Shown', status: 'publish', dateGmt: '2024-05-06T07:08:09' });
    const page = await changes({ since, include: 'item' }, {});
    const object = page.body.changes[0].object;
    const direct = await app().api('GET', `/cms/v2/posts/${post._id}`);
    expect(object).toEqual(direct.body);
  });

  it('refuses bad parameters as every route does', async () => {
    const refusedQueries: Record<string, string | number | string[]>[] = [{ limit: 0 }, { limit: 501 }, { include: 'everything' }, { types: ['no_such_type'] }, { subtypes: ['exploded'] }, { since: -1 }, { feed: 'forever' }, { timeout: 25_001 }];
    for (const query of refusedQueries) {
      const refused = await changes(query);
      expect(refused.status, JSON.stringify(query)).toBe(400);
      expect(refused.body.code).toBe('rest_invalid_param');
      expect(Object.keys(refused.body.data.params)).toEqual(Object.keys(query));
    }
    const beyond = await changes({ since: (await head()) + 1000 });
    expect(beyond.status).toBe(400);
    expect(beyond.body).toMatchObject({ code: 'rest_invalid_param', data: { params: { since: expect.stringContaining('after the last position') } } });
  });

  it('answers a long poll when the next change comes, through the other process too', async () => {
    const since = await head();
    const started = performance.now();
    const polled = fetch(`${services.other.siteUrl}/cms-json/cms/v2/changes?since=${since}&feed=longpoll&timeout=20000`, { headers: app().admin });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const post = await app().api('POST', '/cms/v2/posts', { headers: app().admin, json: { title: 'Awaited' } });
    const answer = await polled;
    const body = (await answer.json()) as { changes: { item: number }[]; last_position: number };
    expect(body.changes.map((change) => change.item)).toEqual([post.body.id]);
    expect(performance.now() - started).toBeLessThan(10_000);

    // Nothing comes: an empty page at the timeout.
    const quiet = performance.now();
    const empty = await changes({ since: body.last_position, feed: 'longpoll', timeout: 400 });
    expect(empty.body).toEqual({ changes: [], last_position: body.last_position });
    expect(performance.now() - quiet).toBeGreaterThanOrEqual(390);
  });

  it('never answers a feed page from the response cache', async () => {
    const since = await head();
    const before = await changes({ since }, {});
    expect(before.body.changes).toEqual([]);
    // A write no request announced (a script's): a cached page would still be empty.
    await givenPost(app().deps, { title: 'Unannounced', status: 'publish', dateGmt: '2024-05-06T07:08:09' });
    const after = await changes({ since }, {});
    expect(after.body.changes).toHaveLength(1);
  });

  it('streams server-sent events with heartbeats, resuming after Last-Event-ID', async () => {
    const since = await head();
    const first = await givenPost(app().deps, { title: 'Streamed one' });
    const second = await givenPost(app().deps, { title: 'Streamed two' });
    const read = async (headers: Record<string, string>, until: (text: string) => boolean) => {
      const controller = new AbortController();
      const response = await fetch(`${app().apiRoot}/cms/v2/changes?since=${since}&heartbeat=1000`, { headers: { ...app().admin, Accept: 'text/event-stream', ...headers }, signal: controller.signal });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!until(text)) text += decoder.decode((await reader.read()).value, { stream: true });
      controller.abort();
      return text;
    };
    const text = await read({}, (sofar) => sofar.includes(': heartbeat'));
    const events = text.split('\n\n').filter((block) => block.startsWith('id:'));
    expect(events.map((block) => block.split('\n').slice(0, 2))).toEqual([
      [`id: ${since + 1}`, 'event: change'],
      [`id: ${since + 2}`, 'event: change'],
    ]);
    expect(JSON.parse(events[1].split('\n')[2].slice('data: '.length))).toMatchObject({ item: second._id, position: since + 2 });
    expect(text).toContain(`: heartbeat ${since + 2}`);

    const resumed = await read({ 'Last-Event-ID': String(since + 1) }, (sofar) => sofar.includes(': heartbeat'));
    expect(resumed).not.toContain(`id: ${since + 1}\n`);
    expect(resumed).toContain(`id: ${since + 2}\n`);
    expect(first._id).toBeLessThan(second._id);
  });

  it('answers 410 with the earliest position to a consumer behind what the log still holds', async () => {
    const earliest = (await head()) + 1;
    await givenPost(app().deps, { title: 'After the horizon' });
    await recordRetention(app().deps.store.db, earliest);
    const gone = await changes({ since: earliest - 2 });
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ code: 'cms_changes_gone', data: { status: 410, earliest_position: earliest } });
    const kept = await changes({ since: earliest - 1 });
    expect(kept.status).toBe(200);
    expect(kept.body.changes).toHaveLength(1);
  });
});

describe('GET /changes, read page after page by an anonymous consumer', () => {
  const publicPost = async (content: string) => {
    const created = await app().api('POST', '/cms/v2/posts', { headers: app().admin, json: { title: 'Paged', content, status: 'publish' } });
    expect(created.status).toBe(201);
    return created.body.id as number;
  };
  const update = async (id: number, content: string) => expect((await app().api('POST', `/cms/v2/posts/${id}`, { headers: app().admin, json: { content } })).status).toBe(200);
  const lines = (change: Record<string, any>) => change.diff.content.hunks.flatMap((hunk: { lines: string[] }) => hunk.lines);

  it('sees the same changes and diffs reading each as it comes as in one page read after', async () => {
    const since = await head();
    const followed: Record<string, any>[] = [];
    let cursor = since;
    const follow = async () => {
      const page = await changes({ since: cursor, include: 'diff' }, {});
      followed.push(...page.body.changes);
      cursor = page.body.last_position;
    };
    const id = await publicPost('<p>First.</p>');
    await follow();
    for (const words of ['Second', 'Third', 'Fourth']) {
      await update(id, `<p>${words}.</p>`);
      await follow();
    }

    const whole = (await changes({ since, include: 'diff' }, {})).body.changes as Record<string, any>[];
    expect(whole.map(lines)).toEqual([
      ['+<p>First.</p>'],
      ['-<p>First.</p>', '+<p>Second.</p>'],
      ['-<p>Second.</p>', '+<p>Third.</p>'],
      ['-<p>Third.</p>', '+<p>Fourth.</p>'],
    ]);
    expect(followed).toEqual(whole);
  });

  it('never diffs from content erased after an earlier page was read', async () => {
    const since = await head();
    const draft = await app().api('POST', '/cms/v2/posts', { headers: app().admin, json: { title: 'Paged', content: '<p>A draft.</p>' } });
    const id = draft.body.id as number;
    await app().api('POST', `/cms/v2/posts/${id}`, { headers: app().admin, json: { content: '<p>Soon erased.</p>', status: 'publish' } });
    const first = await changes({ since, include: 'diff' }, {});
    expect(first.body.changes.map(lines)).toEqual([['+<p>Soon erased.</p>']]);
    await update(id, '<p>Kept words.</p>');
    await update(id, '<p>Current words.</p>');
    // The revision holding the first content goes, and with it that content, from the log too.
    const revisions = (await app().api('GET', `/cms/v2/posts/${id}/revisions`, { headers: app().admin, query: { per_page: 100, context: 'edit' } })).body as { id: number; content: { raw: string } }[];
    const erased = revisions.find((revision) => revision.content.raw === '<p>Soon erased.</p>')!;
    expect((await app().api('DELETE', `/cms/v2/posts/${id}/revisions/${erased.id}`, { headers: app().admin, query: { force: true } })).status).toBe(200);

    const next = await changes({ since: first.body.last_position, limit: 1, include: 'diff' }, {});
    expect(next.body.changes).toHaveLength(1);
    expect(JSON.stringify(next.body)).not.toContain('Soon erased');
    expect(lines(next.body.changes[0])).toContain('+<p>Kept words.</p>');
  });
});

describe('GET /changes, live requests held open', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ env: { CMS_LIVE_REQUESTS_PER_CLIENT: '2', CMS_LIVE_REQUESTS_PER_PROCESS: '3', CMS_TRUSTED_PROXIES: 'loopback' } });
  });
  afterAll(() => limited?.stop());

  const open = (from: string) => {
    const controller = new AbortController();
    const response = fetch(`${limited.apiRoot}/cms/v2/changes?since=0&heartbeat=1000`, { headers: { Accept: 'text/event-stream', 'X-Forwarded-For': from }, signal: controller.signal });
    return { response, close: () => controller.abort() };
  };

  it('holds at most so many open for one client, and for everyone, refusing the next until one closes', async () => {
    const first = open('203.0.113.1');
    const second = open('203.0.113.1');
    expect((await first.response).status).toBe(200);
    expect((await second.response).status).toBe(200);

    const third = await limited.api('GET', '/cms/v2/changes', { query: { since: 0, feed: 'longpoll', timeout: 1000 }, headers: { 'X-Forwarded-For': '203.0.113.1' } });
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'rest_too_many_live_requests', data: { status: 429, retry_after: 5 } });
    expect(third.headers.get('retry-after')).toBe('5');
    // Other requests of that client are not live ones: they are served.
    expect((await limited.api('GET', '/cms/v2/posts', { headers: { 'X-Forwarded-For': '203.0.113.1' } })).status).toBe(200);

    const another = open('203.0.113.2');
    expect((await another.response).status).toBe(200);
    const full = await limited.api('GET', '/cms/v2/changes', { query: { since: 0 }, headers: { 'X-Forwarded-For': '203.0.113.3' } });
    expect(full.status).toBe(503);
    expect(full.body).toMatchObject({ code: 'rest_live_requests_full', data: { status: 503 } });

    first.close();
    await expect.poll(async () => (await limited.api('GET', '/cms/v2/changes', { query: { since: 0 }, headers: { 'X-Forwarded-For': '203.0.113.1' } })).status).toBe(200);
    second.close();
    another.close();
  });
});
