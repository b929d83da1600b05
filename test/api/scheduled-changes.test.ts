import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

type Actor = Awaited<ReturnType<TestApp['asRole']>>;

let app: TestApp;
let editor: Actor;
let author: Actor;
let otherAuthor: Actor;
let contributor: Actor;
let receiver: WebhookReceiver;

beforeAll(async () => {
  // Webhooks may be delivered to the test's receiver, on this machine.
  app = await createTestApp({ env: { CMS_WEBHOOKS_ALLOW_ADDRESSES: '127.0.0.1', CMS_WEBHOOKS_POLL_MS: '50' } });
  receiver = await startReceiver();
  editor = await app.asRole('editor');
  author = await app.asRole('author');
  otherAuthor = await app.asRole('author');
  contributor = await app.asRole('contributor');
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

async function createItem(who: Actor, fields: Record<string, unknown> = {}, base = 'posts'): Promise<number> {
  const response = await app.api('POST', `/cms/v2/${base}`, { headers: who.headers, json: { title: 'Original', content: 'Original body', status: 'publish', ...fields } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id;
}

const changesOf = (id: number, base = 'posts') => `/cms/v2/${base}/${id}/scheduled-changes`;
const schedule = (who: Actor, id: number, json: Record<string, unknown>, base = 'posts') => app.api('POST', changesOf(id, base), { headers: who.headers, json });
const gmt = (ms: number) => new Date(ms).toISOString().slice(0, 19);

describe('scheduled changes', () => {
  it('is created with 201, Location and the fields it carries, and read back', async () => {
    const id = await createItem(author);
    const created = await schedule(author, id, { date_gmt: '2099-03-01T10:00:00', title: 'Later title', excerpt: 'Later excerpt' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      parent: id,
      type: 'post',
      author: author.id,
      date_gmt: '2099-03-01T10:00:00',
      status: 'pending',
      fields: { title: 'Later title', excerpt: 'Later excerpt' },
      applied_position: null,
      created_gmt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
    });
    expect(created.headers.get('location')).toBe(`${app.apiRoot}${changesOf(id)}/${created.body.id}`);
    const read = await app.api('GET', `${changesOf(id)}/${created.body.id}`, { headers: author.headers, query: { context: 'edit' } });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    // Nothing changes the item until its time.
    expect((await app.api('GET', `/cms/v2/posts/${id}`, { headers: author.headers, query: { context: 'edit' } })).body.title.raw).toBe('Original');
  });

  it("lists an item's pending changes soonest first, with their fields in edit context only", async () => {
    const id = await createItem(author);
    const late = await schedule(author, id, { date_gmt: '2099-05-01T00:00:00', content: 'Late' });
    const soon = await schedule(author, id, { date_gmt: '2099-04-01T00:00:00', content: 'Soon' });
    const other = await createItem(author);
    await schedule(author, other, { date_gmt: '2099-04-01T00:00:00', content: 'Other item' });
    const view = await app.api('GET', changesOf(id), { headers: author.headers });
    expect(view.status).toBe(200);
    expect(view.headers.get('x-wp-total')).toBe('2');
    expect(view.body.map((change: { id: number }) => change.id)).toEqual([soon.body.id, late.body.id]);
    expect(view.body[0].fields).toBeUndefined();
    const edit = await app.api('GET', changesOf(id), { headers: author.headers, query: { context: 'edit' } });
    expect(edit.body.map((change: { fields: unknown }) => change.fields)).toEqual([{ content: 'Soon' }, { content: 'Late' }]);
    // Who may not edit the item does not see its changes.
    expect((await app.api('GET', changesOf(id), { headers: otherAuthor.headers })).status).toBe(403);
  });

  it('previews the item as it will read once applied, storing nothing', async () => {
    const id = await createItem(author, { excerpt: 'Kept excerpt' });
    const created = await schedule(author, id, { date_gmt: '2099-03-01T10:00:00', title: 'Previewed title' });
    const preview = await app.api('GET', `${changesOf(id)}/${created.body.id}`, { headers: author.headers, query: { preview: 1, context: 'edit' } });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ id, title: { raw: 'Previewed title' }, excerpt: { raw: 'Kept excerpt' }, content: { raw: 'Original body' }, status: 'publish' });
    const item = await app.api('GET', `/cms/v2/posts/${id}`, { headers: author.headers, query: { context: 'edit' } });
    expect(item.body.title.raw).toBe('Original');
    // In view context the preview is filtered as the item is.
    const viewed = await app.api('GET', `${changesOf(id)}/${created.body.id}`, { headers: author.headers, query: { preview: 1 } });
    expect(viewed.body.title).toEqual({ rendered: 'Previewed title' });
  });

  it('is rescheduled and edited, its fields merged, with If-Match honoured', async () => {
    const id = await createItem(author);
    const created = await schedule(author, id, { date_gmt: '2099-03-01T10:00:00', title: 'First', excerpt: 'Kept' });
    const path = `${changesOf(id)}/${created.body.id}`;
    const etag = created.headers.get('etag')!;
    const edited = await app.api('POST', path, { headers: { ...author.headers, 'If-Match': etag }, json: { date_gmt: '2099-06-01T08:30:00', title: 'Second' } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toMatchObject({ date_gmt: '2099-06-01T08:30:00', fields: { title: 'Second', excerpt: 'Kept' } });
    expect(edited.headers.get('etag')).not.toBe(etag);
    const stale = await app.api('POST', path, { headers: { ...author.headers, 'If-Match': etag }, json: { title: 'Third' } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('rest_precondition_failed');
    expect((await app.api('GET', path, { headers: author.headers, query: { context: 'edit' } })).body.fields.title).toBe('Second');
    // Another author may not touch it; an editor may.
    expect((await app.api('POST', path, { headers: otherAuthor.headers, json: { title: 'Theirs' } })).status).toBe(403);
    const byEditor = await app.api('POST', path, { headers: editor.headers, json: { title: 'Editor' } });
    expect(byEditor.status).toBe(200);
    // Applied as an update by whoever last scheduled it.
    expect(byEditor.body.author).toBe(editor.id);
  });

  it('is cancelled, and then gone', async () => {
    const id = await createItem(author);
    const created = await schedule(author, id, { date_gmt: '2099-03-01T10:00:00', title: 'Never' });
    const path = `${changesOf(id)}/${created.body.id}`;
    const cancelled = await app.api('DELETE', path, { headers: author.headers });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ deleted: true, previous: { id: created.body.id, status: 'pending' } });
    const read = await app.api('GET', path, { headers: author.headers });
    expect({ status: read.status, body: read.body }).toEqual({
      status: 404,
      body: { code: 'rest_scheduled_change_invalid_id', message: 'Invalid scheduled change ID.', data: { status: 404 } },
    });
    expect((await app.api('GET', changesOf(id), { headers: author.headers })).body).toEqual([]);
  });

  it("refuses a contributor's scheduled publication exactly as the update refuses it", async () => {
    const id = await createItem(contributor, { status: 'draft' });
    const scheduled = await schedule(contributor, id, { date_gmt: '2099-03-01T10:00:00', status: 'publish' });
    const updated = await app.api('POST', `/cms/v2/posts/${id}`, { headers: contributor.headers, json: { status: 'publish' } });
    expect(updated.status).toBe(403);
    expect(updated.body.code).toBe('rest_cannot_publish');
    expect({ status: scheduled.status, body: scheduled.body }).toEqual({ status: updated.status, body: updated.body });
    // What the contributor may do, they may schedule.
    expect((await schedule(contributor, id, { date_gmt: '2099-03-01T10:00:00', title: 'Fine' })).status).toBe(201);
    // Someone who may not edit the item is refused as the update refuses them.
    const stranger = await schedule(otherAuthor, await createItem(author), { date_gmt: '2099-03-01T10:00:00', title: 'No' });
    expect(stranger.status).toBe(403);
    expect(stranger.body.code).toBe('rest_cannot_edit');
  });

  it('refuses bad values as the update does, and a date_gmt that is not ahead', async () => {
    const id = await createItem(author);
    const bad = { status: 'nonsense', comment_status: 'maybe' };
    const scheduled = await schedule(author, id, { date_gmt: '2099-03-01T10:00:00', ...bad });
    const updated = await app.api('POST', `/cms/v2/posts/${id}`, { headers: author.headers, json: bad });
    expect(updated.status).toBe(400);
    expect({ status: scheduled.status, body: scheduled.body }).toEqual({ status: updated.status, body: updated.body });

    // What only the update's input policy checks (the named author exists) is refused alike too.
    const noSuchAuthor = await schedule(author, id, { date_gmt: '2099-03-01T10:00:00', author: 987_654 });
    const updatedAuthor = await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { author: 987_654 } });
    expect(updatedAuthor.status).toBe(400);
    expect((await schedule(editor, id, { date_gmt: '2099-03-01T10:00:00', author: 987_654 })).body).toEqual(updatedAuthor.body);
    expect(noSuchAuthor.status).toBe(403);

    const past = await schedule(author, id, { date_gmt: gmt(Date.now() - 60_000), title: 'Too late' });
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { date_gmt: 'date_gmt must be in the future.' } } });
    const missing = await schedule(author, id, { title: 'When?' });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('rest_missing_callback_param');
    const notADate = await schedule(author, id, { date_gmt: 'tomorrow', title: 'When?' });
    expect(notADate.status).toBe(400);
    expect((await app.api('GET', changesOf(id), { headers: author.headers })).body).toEqual([]);
  });

  it('lists pending changes across items between dates for editors only', async () => {
    const post = await createItem(author);
    const page = await createItem(editor, {}, 'pages');
    const inside = await schedule(author, post, { date_gmt: '2098-07-02T00:00:00', title: 'In' });
    const pageChange = await schedule(editor, page, { date_gmt: '2098-07-03T00:00:00', title: 'Page' }, 'pages');
    await schedule(author, post, { date_gmt: '2098-08-01T00:00:00', title: 'Out' });
    const listed = await app.api('GET', '/cms/v2/scheduled-changes', { headers: editor.headers, query: { after: '2098-07-01T00:00:00', before: '2098-07-31T00:00:00' } });
    expect(listed.status).toBe(200);
    expect(listed.body.map((change: { id: number; type: string }) => [change.id, change.type])).toEqual([
      [inside.body.id, 'post'],
      [pageChange.body.id, 'page'],
    ]);
    expect((await app.api('GET', '/cms/v2/scheduled-changes', { headers: author.headers })).status).toBe(403);
    expect((await app.api('GET', '/cms/v2/scheduled-changes')).status).toBe(401);
  });

  it('is described in the OpenAPI document, for posts and pages and across items', async () => {
    const paths = Object.keys((await app.api('GET', '/openapi.json')).body.paths);
    for (const base of ['posts', 'pages']) {
      expect(paths).toContain(`/cms/v2/${base}/{id}/scheduled-changes`);
      expect(paths).toContain(`/cms/v2/${base}/{id}/scheduled-changes/{sid}`);
    }
    expect(paths).toContain('/cms/v2/scheduled-changes');
  });

  it('is applied at its time by the scheduler, with no request, as an update by its author recorded in the history', async () => {
    const id = await createItem(author, { excerpt: 'Kept excerpt' });
    // Changed since it was scheduled: the change sets only what it carries, on the item as it is then.
    const created = await schedule(author, id, { date_gmt: gmt(Date.now() + 2500), title: 'Applied title', content: 'Applied body' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sid = created.body.id;
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: editor.headers, json: { excerpt: 'Edited meanwhile' } })).status).toBe(200);

    // Only the database is watched from now on.
    const db = app.deps.store.db;
    const stored = () => db.collection<{ _id: number; title: string; content: string; excerpt: string }>('posts').findOne({ _id: id });
    await expect.poll(async () => (await stored())?.title, { timeout: 10_000, interval: 100 }).toBe('Applied title');
    expect(await stored()).toMatchObject({ content: 'Applied body', excerpt: 'Edited meanwhile' });
    const events = await db.collection<{ stream: number; type: string; actor: number; data: string }>('events').find({ stream: id }).sort({ seq: 1 }).toArray();
    expect(events.at(-1)).toMatchObject({ type: 'updated', actor: author.id });
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ scheduled: { change: sid, scheduledBy: author.id, changedMeanwhile: [] }, changes: { title: 'Applied title', content: 'Applied body' } });
    await expect.poll(async () => (await db.collection('scheduled_changes').findOne({ _id: sid as never }))?.state, { timeout: 5000 }).toBe('applied');

    const read = await app.api('GET', `${changesOf(id)}/${sid}`, { headers: author.headers });
    expect(read.body).toMatchObject({ status: 'applied', applied_position: expect.any(Number) });
    expect((await app.api('GET', changesOf(id), { headers: author.headers })).body).toEqual([]);
    expect((await app.api('DELETE', `${changesOf(id)}/${sid}`, { headers: author.headers })).body.code).toBe('rest_scheduled_change_done');
    const history = await app.api('GET', `/cms/v2/posts/${id}/history`, { headers: author.headers });
    expect(history.status).toBe(200);
    expect(history.body.at(-1)).toMatchObject({ type: 'updated', author: author.id });

    // What a process that stopped between the update and its mark leaves: the change still
    // pending. The next turn finds the update stored, and only marks it.
    const applied = await db.collection('scheduled_changes').findOne({ _id: sid as never });
    await db.collection('scheduled_changes').updateOne({ _id: sid as never }, { $set: { state: 'pending' }, $unset: { appliedPosition: '', appliedSeq: '' } });
    // A write elsewhere has the scheduler look again.
    await createItem(author);
    await expect.poll(async () => (await db.collection('scheduled_changes').findOne({ _id: sid as never }))?.state, { timeout: 10_000, interval: 100 }).toBe('applied');
    expect(await db.collection('scheduled_changes').findOne({ _id: sid as never })).toMatchObject({ appliedPosition: applied!.appliedPosition, appliedSeq: applied!.appliedSeq });
    expect(await db.collection('events').countDocuments({ stream: id })).toBe(events.length);
  }, 40_000);

  it('is recorded in the history, the feed and webhooks as scheduled: the change, who scheduled it, and which of its fields had changed meanwhile', async () => {
    const hook = await app.api('POST', '/cms/v2/webhooks', { headers: app.admin, json: { url: receiver.url, events: ['post.updated'] } });
    expect(hook.status, hook.text).toBe(201);
    const id = await createItem(author);
    const other = await createItem(author);
    const at = gmt(Date.now() + 3000);
    const created = await schedule(author, id, { date_gmt: at, title: 'Scheduled title', content: 'Scheduled body' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sid = created.body.id;
    // Edited by someone else since: the title (which the change carries) and the excerpt (which it does not).
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: editor.headers, json: { title: 'Edited meanwhile', excerpt: 'Edited excerpt' } })).status).toBe(200);
    // A change whose fields are edited after the item's title was: based on the item as it then is.
    const otherSid = (await schedule(author, other, { date_gmt: at, title: 'Other scheduled', content: 'Other body' })).body.id;
    expect((await app.api('POST', `/cms/v2/posts/${other}`, { headers: editor.headers, json: { title: 'Other edited' } })).status).toBe(200);
    expect((await app.api('POST', `${changesOf(other)}/${otherSid}`, { headers: author.headers, json: { content: 'Other body, edited' } })).status).toBe(200);

    const state = (item: number, change: number) => app.api('GET', `${changesOf(item)}/${change}`, { headers: author.headers }).then((read) => read.body.status);
    await expect.poll(() => state(id, sid), { timeout: 10_000, interval: 100 }).toBe('applied');
    await expect.poll(() => state(other, otherSid), { timeout: 10_000, interval: 100 }).toBe('applied');
    // Applied on top of the item as it was: only the fields the change carries.
    const item = (await app.api('GET', `/cms/v2/posts/${id}`, { headers: author.headers, query: { context: 'edit' } })).body;
    expect([item.title.raw, item.content.raw, item.excerpt.raw]).toEqual(['Scheduled title', 'Scheduled body', 'Edited excerpt']);

    const scheduled = { id: sid, scheduled_by: author.id, changed_meanwhile: ['title'] };
    const history = (await app.api('GET', `/cms/v2/posts/${id}/history`, { headers: author.headers })).body;
    expect(history.map((entry: { type: string; author: number; scheduled_change?: unknown }) => [entry.type, entry.author, entry.scheduled_change])).toEqual([
      ['created', author.id, undefined],
      ['updated', editor.id, undefined],
      ['updated', author.id, scheduled],
    ]);
    expect(history.at(-1).fields).toEqual(['title', 'content']);
    const otherEntry = (await app.api('GET', `/cms/v2/posts/${other}/history`, { headers: author.headers })).body.at(-1);
    expect(otherEntry.scheduled_change).toEqual({ id: otherSid, scheduled_by: author.id, changed_meanwhile: [] });

    const feed = await app.api('GET', '/cms/v2/changes', { headers: app.admin, query: { since: history[0].position - 1, subtypes: ['updated'] } });
    expect(feed.status).toBe(200);
    const ofItem = feed.body.changes.filter((change: { item: number }) => change.item === id);
    expect(ofItem.map((change: { author: number; scheduled_change?: unknown }) => [change.author, change.scheduled_change])).toEqual([
      [editor.id, undefined],
      [author.id, scheduled],
    ]);

    const [delivered] = await receiver.waitFor((request) => request.json.data.item?.id === id && request.json.data.version === history.at(-1).seq);
    expect(delivered.json).toMatchObject({ type: 'post.updated', data: { position: history.at(-1).position, scheduled_change: scheduled } });
    const [editDelivered] = await receiver.waitFor((request) => request.json.data.item?.id === id && request.json.data.version === history.at(-2).seq);
    expect(editDelivered.json.data.scheduled_change).toBeUndefined();
    await app.api('DELETE', `/cms/v2/webhooks/${hook.body.id}`, { headers: app.admin, query: { force: true } });
  }, 40_000);
});
