import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/resources/index.js';
import { projectionsOf } from '../../src/resources/manifest.js';
import { giveTemplatesStreams } from '../../src/resources/templates/template.history.js';
import { changeLog } from '../../src/store/log/change-log.js';
import { rebuildProjections } from '../../src/store/projections/projections.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

type Headers = Record<string, string>;
type Json = Record<string, any>;

let app: TestApp;
let adminId: number;
let editor: Headers;

beforeAll(async () => {
  app = await createTestApp();
  adminId = (await app.api('GET', '/cms/v2/users/me', { headers: app.admin })).body.id;
  editor = (await app.asRole('editor')).headers;
});
afterAll(async () => {
  await app?.stop();
});

const get = (route: string, query?: Json, headers: Headers = app.admin) => app.api('GET', `/cms/v2${route}`, { headers, query });
const post = (route: string, json: unknown, headers: Headers = app.admin) => app.api('POST', `/cms/v2${route}`, { headers, json });
const del = (route: string, query?: Json, headers: Headers = app.admin) => app.api('DELETE', `/cms/v2${route}`, { headers, query });

/** A template of the site's own with two updates: a revision each (the first update always makes one). */
async function templateWithRevisions(base: 'templates' | 'template-parts', slug: string): Promise<{ id: string; cmsId: number }> {
  const created = await post(`/${base}`, { slug, title: 'First title', content: 'first content', description: 'first description' });
  expect(created.status, created.text).toBe(201);
  expect((await post(`/${base}/${created.body.id}`, { content: 'second content' })).status).toBe(200);
  expect((await post(`/${base}/${created.body.id}`, { title: 'Third title', content: 'third content' })).status).toBe(200);
  return { id: created.body.id, cmsId: created.body.cms_id };
}

describe('template revisions', () => {
  it('lists, reads and deletes the revisions of a template, named by its theme//slug id', async () => {
    const { id, cmsId } = await templateWithRevisions('templates', 'with-revisions');
    const list = await get(`/templates/${id}/revisions`, { context: 'edit' });
    expect(list.status, list.text).toBe(200);
    expect(list.headers.get('x-wp-total')).toBe('2');
    expect(list.body.map((revision: Json) => revision.content.raw)).toEqual(['third content', 'second content']);
    const [newest, older] = list.body;
    expect(newest).toMatchObject({ parent: id, author: adminId, title: { raw: 'Third title' }, description: 'first description' });
    expect(Number.isInteger(newest.id)).toBe(true);
    expect(newest.id).not.toBe(cmsId);
    expect(newest.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(newest._links.parent[0].href).toBe(`${app.apiRoot}/cms/v2/templates/${id}`);

    const one = await get(`/templates/${id}/revisions/${older.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: older.id, parent: id, title: { raw: 'First title' }, content: { raw: 'second content' } });
    // A client may collapse the double slash, as for the template itself.
    expect((await get(`/templates/${id.replace('//', '/')}/revisions/${older.id}`)).body.id).toBe(older.id);

    expect((await del(`/templates/${id}/revisions/${older.id}`)).status).toBe(501);
    const deleted = await del(`/templates/${id}/revisions/${older.id}`, { force: true });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id: older.id, parent: id } });
    expect((await get(`/templates/${id}/revisions/${older.id}`)).status).toBe(404);
    expect((await get(`/templates/${id}/revisions`)).headers.get('x-wp-total')).toBe('1');
    // Its words went from the log too: no other revision or the template holds them.
    const events = await changeLog(app.deps.store.db).readStream(cmsId);
    expect(JSON.stringify(events)).not.toContain('second content');
  });

  it('makes a revision only when the title, content or description change after the first', async () => {
    const { id } = await templateWithRevisions('templates', 'revision-rules');
    expect((await post(`/templates/${id}`, { status: 'draft' })).status).toBe(200);
    expect((await get(`/templates/${id}/revisions`)).headers.get('x-wp-total')).toBe('2');
    expect((await post(`/templates/${id}`, { description: 'new description' })).status).toBe(200);
    expect((await get(`/templates/${id}/revisions`)).headers.get('x-wp-total')).toBe('3');
  });

  it('restores a revision, recording the restore as a new revision, and diffs revisions', async () => {
    const { id } = await templateWithRevisions('templates', 'restorable');
    const [newest, older] = (await get(`/templates/${id}/revisions`)).body;
    const diff = await get(`/templates/${id}/revisions/${newest.id}/diff`);
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body).toMatchObject({ from: older.id, to: newest.id, fields: { title: { changed: true }, content: { changed: true }, description: { changed: false } } });
    const against = await get(`/templates/${id}/revisions/${newest.id}/diff`, { against: older.id });
    expect(against.body.from).toBe(older.id);

    const restored = await post(`/templates/${id}/revisions/${older.id}/restore`, {});
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ id, source: 'custom', title: { raw: 'First title' }, content: { raw: 'second content' } });
    expect((await get(`/templates/${id}`)).body.content.raw).toBe('second content');
    const after = await get(`/templates/${id}/revisions`);
    expect(after.headers.get('x-wp-total')).toBe('3');
    expect(after.body[0].content.raw).toBe('second content');
  });

  it('keeps the revisions of a customized theme template until it reverts to the file', async () => {
    expect((await post('/templates/cornerstone//404', { content: 'custom 404' })).status).toBe(200);
    expect((await post('/templates/cornerstone//404', { content: 'custom 404, again' })).status).toBe(200);
    const list = await get('/templates/cornerstone//404/revisions');
    expect(list.status).toBe(200);
    expect(list.body.map((revision: Json) => revision.content.raw)).toEqual(['custom 404, again']);
    expect((await post('/templates/cornerstone//404', { source: 'theme' })).body.source).toBe('theme');
    const reverted = await get('/templates/cornerstone//404/revisions');
    expect(reverted.status).toBe(404);
    expect(reverted.body.code).toBe('rest_post_invalid_parent');
    // A new customization starts a new history.
    const again = await post('/templates/cornerstone//404', { content: 'custom 404, anew' });
    expect(again.status).toBe(200);
    expect((await get('/templates/cornerstone//404/history')).body.map((entry: Json) => entry.type)).toEqual(['created']);
  });

  it('serves template parts over /template-parts alike', async () => {
    const { id } = await templateWithRevisions('template-parts', 'part-with-revisions');
    const list = await get(`/template-parts/${id}/revisions`);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    expect(list.body[0]._links.parent[0].href).toBe(`${app.apiRoot}/cms/v2/template-parts/${id}`);
    const restored = await post(`/template-parts/${id}/revisions/${list.body[1].id}/restore`, {});
    expect(restored.body).toMatchObject({ id, type: 'cms_template_part', content: { raw: 'second content' } });
    // A part is not found among templates.
    expect((await get(`/templates/${id}/revisions`)).status).toBe(404);
  });
});

describe('template autosaves', () => {
  it('saves the caller’s one autosave of a template, leaving the template as it is', async () => {
    const { id, cmsId } = await templateWithRevisions('templates', 'autosaved');
    const saved = await post(`/templates/${id}/autosaves`, { content: 'autosaved content' });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ parent: id, content: { raw: 'autosaved content' }, title: { raw: 'Third title' } });
    const again = await post(`/templates/${id}/autosaves`, { content: 'autosaved again' });
    expect(again.body.id).toBe(saved.body.id);
    expect((await get(`/templates/${id}`)).body.content.raw).toBe('third content');

    const listed = await get(`/templates/${id}/autosaves`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((autosave: Json) => autosave.content.raw)).toEqual(['autosaved again']);
    const one = await get(`/templates/${id}/autosaves/${saved.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: saved.body.id, parent: id, content: { raw: 'autosaved again' } });
    // Revisions list autosaves too, as WordPress's do.
    expect((await get(`/templates/${id}/revisions`)).headers.get('x-wp-total')).toBe('3');
    const history = await get(`/templates/${id}/history`);
    expect(history.body.at(-1)).toMatchObject({ type: 'autosaved', revision: saved.body.id });
    expect(cmsId).toBeGreaterThan(0);
  });

  it('answers 404 for a template without an autosave', async () => {
    const { id } = await templateWithRevisions('templates', 'never-autosaved');
    const none = await get(`/templates/${id}/autosaves/1`);
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('rest_post_no_autosave');
  });
});

describe('template history', () => {
  it('lists every change of a template oldest first, with the fields each set', async () => {
    const { id, cmsId } = await templateWithRevisions('templates', 'with-history');
    await del(`/templates/${id}`);
    const history = await get(`/templates/${id}/history`);
    expect(history.status, history.text).toBe(200);
    expect(history.body.map((entry: Json) => entry.type)).toEqual(['created', 'updated', 'updated', 'trashed']);
    expect(history.body[0].fields).toEqual(expect.arrayContaining(['theme', 'type', 'slug', 'title', 'content', 'description', 'origin']));
    expect(history.body[1].fields).toEqual(['content']);
    expect(history.body[3].fields).toEqual(['status', 'trashed_from']);
    expect(history.body[0]._links.up[0].href).toBe(`${app.apiRoot}/cms/v2/templates/${id}`);
    expect(history.body[1]._links['wp:revision'][0].href).toMatch(new RegExp(`/cms/v2/templates/${id}/revisions/\\d+$`));
    const events = await changeLog(app.deps.store.db).readStream(cmsId);
    expect(events.map((event) => event.streamType)).toEqual(['cms_template', 'cms_template', 'cms_template', 'cms_template']);
  });

  it('shows a template’s changes in the change feed to those who manage templates, with its diff, and to no one else', async () => {
    const since = (await get('/changes', { since: 0, limit: 1 })).headers.get('x-cms-last-position') ?? '0';
    const { id, cmsId } = await templateWithRevisions('templates', 'in-the-feed');
    const feed = await get('/changes', { since: 0, types: ['cms_template'], include: 'diff', limit: 500 });
    expect(feed.status, feed.text).toBe(200);
    const ofTemplate = feed.body.changes.filter((change: Json) => change.item === cmsId);
    expect(ofTemplate.map((change: Json) => [change.item_type, change.type])).toEqual([
      ['cms_template', 'created'],
      ['cms_template', 'updated'],
      ['cms_template', 'updated'],
    ]);
    expect(ofTemplate[1].diff.content.changed).toBe(true);
    const withItem = await get('/changes', { since: 0, types: ['cms_template'], include: 'item', limit: 500 });
    expect(withItem.body.changes.find((change: Json) => change.item === cmsId).object).toMatchObject({ id, content: { raw: 'third content' } });
    const anonymous = await app.api('GET', '/cms/v2/changes', { query: { since, types: ['cms_template'] } });
    expect(anonymous.body.changes.filter((change: Json) => change.item === cmsId)).toEqual([]);
  });

  it('rebuilds the same templates and revisions from the log', async () => {
    await templateWithRevisions('template-parts', 'rebuilt-part');
    const { id } = await templateWithRevisions('templates', 'rebuilt');
    await post(`/templates/${id}/autosaves`, { title: 'autosaved title' });
    const db = app.deps.store.db;
    const live = async () => ({
      templates: await db.collection('templates').find({}).sort({ _id: 1 }).toArray(),
      revisions: await db.collection('revisions').find({}).sort({ _id: 1 }).toArray(),
    });
    const before = await live();
    expect(before.templates.length).toBeGreaterThan(2);
    await rebuildProjections(db, changeLog(db), projectionsOf(resources));
    expect(await live()).toEqual(before);
  });

  it('gives a template stored before templates kept a change log its stream, and keeps serving it', async () => {
    const db = app.deps.store.db;
    const _id = await app.deps.ids.next('content');
    const modified = new Date('2024-02-03T04:05:06Z');
    await db.collection('templates').insertOne({ _id, theme: 'cornerstone', type: 'cms_template', slug: 'from-before', status: 'publish', author: adminId, modified, title: 'From before', description: '', content: 'old content', origin: null } as never);
    await db.collection('checkpoints').deleteOne({ _id: 'template_streams' } as never);
    expect(await giveTemplatesStreams(app.deps)).toBe(1);
    expect(await giveTemplatesStreams(app.deps)).toBe(0);

    const read = await get('/templates/cornerstone//from-before');
    expect(read.body).toMatchObject({ cms_id: _id, title: { raw: 'From before' }, content: { raw: 'old content' }, modified: expect.any(String) });
    const updated = await post('/templates/cornerstone//from-before', { content: 'new content' });
    expect(updated.body).toMatchObject({ cms_id: _id, content: { raw: 'new content' } });
    const history = await get('/templates/cornerstone//from-before/history');
    expect(history.body.map((entry: Json) => [entry.type, entry.date_gmt])).toEqual([
      ['created', '2024-02-03T04:05:06'],
      ['updated', expect.any(String)],
    ]);
    // Its key is held: a new template by that slug takes the next one.
    expect((await post('/templates', { slug: 'from-before' })).body.id).toBe('cornerstone//from-before-2');
  });
});

describe('who may read and change a template’s history', () => {
  it('asks for edit_theme_options, and answers 404 for unknown templates and theme files first', async () => {
    const { id } = await templateWithRevisions('templates', 'guarded');
    const revision = (await get(`/templates/${id}/revisions`)).body[0].id;
    const routes: [string, string, unknown?][] = [
      ['GET', `/templates/${id}/revisions`],
      ['GET', `/templates/${id}/revisions/${revision}`],
      ['GET', `/templates/${id}/revisions/${revision}/diff`],
      ['POST', `/templates/${id}/revisions/${revision}/restore`, {}],
      ['DELETE', `/templates/${id}/revisions/${revision}?force=true`],
      ['GET', `/templates/${id}/autosaves`],
      ['POST', `/templates/${id}/autosaves`, { content: 'not mine' }],
      ['GET', `/templates/${id}/history`],
    ];
    for (const [method, route, json] of routes) {
      const anonymous = await app.api(method, `/cms/v2${route}`, { json });
      expect(anonymous.status, `${method} ${route}`).toBe(401);
      const refused = await app.api(method, `/cms/v2${route}`, { json, headers: editor });
      expect(refused.status, `${method} ${route}`).toBe(403);
    }
    expect((await get(`/templates/${id}/revisions`)).headers.get('x-wp-total')).toBe('2');
    expect((await get(`/templates/${id}`)).body.content.raw).toBe('third content');

    for (const unknown of ['cornerstone//nothing-here', 'othertheme//index', 'cornerstone//index']) {
      for (const route of [`/templates/${unknown}/revisions`, `/templates/${unknown}/revisions/${revision}`, `/templates/${unknown}/history`, `/templates/${unknown}/autosaves`]) {
        const response = await get(route, undefined, editor);
        expect(response.status, route).toBe(404);
      }
    }
    // A revision of another template is not this one's.
    const other = await templateWithRevisions('templates', 'guarded-other');
    const mismatch = await get(`/templates/${other.id}/revisions/${revision}`);
    expect(mismatch.status).toBe(404);
    expect(mismatch.body.code).toBe('rest_revision_parent_id_mismatch');
  });

  it('refuses hostile ids without reaching a template', async () => {
    for (const hostile of ['cornerstone//..%252F..%252Fpackage', '..//index', 'cornerstone//%2E%2E', 'index', 'cornerstone//a%252Fb', '%252E%252E//index']) {
      for (const route of [`/templates/${hostile}/revisions`, `/templates/${hostile}/history`, `/templates/${hostile}/autosaves`]) {
        const response = await get(route);
        expect(response.status, route).toBe(404);
        expect(['rest_post_invalid_parent', 'rest_template_not_found', 'rest_no_route', 'rest_post_invalid_id'], route).toContain(response.body.code);
      }
    }
    const posted = await post('/templates/..%252F..//index/autosaves', { content: 'x' });
    expect(posted.status).toBe(404);
  });
});

describe('template entity tags', () => {
  const withTag = (tag: string) => ({ ...app.admin, 'If-Match': tag });

  it('tags a customized template with its version, refuses a stale If-Match with 412, and tags no theme file', async () => {
    const created = await post('/templates', { slug: 'tagged', title: 'Tagged', content: 'first' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const first = created.headers.get('etag');
    expect(first).toMatch(/^"\d+"$/);
    const read = await get(`/templates/${id}`);
    expect(read.headers.get('etag')).toBe(first);

    const updated = await app.api('POST', `/cms/v2/templates/${id}`, { headers: withTag(first!), json: { content: 'second' } });
    expect(updated.status, updated.text).toBe(200);
    const second = updated.headers.get('etag');
    expect(second).toMatch(/^"\d+"$/);
    expect(second).not.toBe(first);

    const stale = await app.api('POST', `/cms/v2/templates/${id}`, { headers: withTag(first!), json: { content: 'lost update' } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('rest_precondition_failed');
    const trashStale = await app.api('DELETE', `/cms/v2/templates/${id}`, { headers: withTag(first!) });
    expect(trashStale.status).toBe(412);
    const deleteStale = await app.api('DELETE', `/cms/v2/templates/${id}`, { headers: withTag(first!), query: { force: true } });
    expect(deleteStale.status).toBe(412);
    const unchanged = await get(`/templates/${id}`, { context: 'edit' });
    expect(unchanged.body).toMatchObject({ status: 'publish', content: { raw: 'second' } });
    expect((await get(`/templates/${id}/history`)).body.map((entry: Json) => entry.type)).toEqual(['created', 'updated']);

    const trashed = await app.api('DELETE', `/cms/v2/templates/${id}`, { headers: withTag(second!) });
    expect(trashed.status, trashed.text).toBe(200);
    expect(trashed.headers.get('etag')).not.toBe(second);

    // A theme file has no tag: only `*` names it, and its first customization answers with one.
    const file = await get('/templates/cornerstone//search');
    expect(file.status).toBe(200);
    expect(file.headers.get('etag')).toBeNull();
    const guessed = await app.api('POST', '/cms/v2/templates/cornerstone//search', { headers: withTag('"1"'), json: { content: 'custom search' } });
    expect(guessed.status).toBe(412);
    expect((await get('/templates/cornerstone//search', { context: 'edit' })).body.source).toBe('theme');
    const customized = await app.api('POST', '/cms/v2/templates/cornerstone//search', { headers: withTag('*'), json: { content: 'custom search' } });
    expect(customized.status, customized.text).toBe(200);
    expect(customized.headers.get('etag')).toMatch(/^"\d+"$/);
    const reverted = await app.api('POST', '/cms/v2/templates/cornerstone//search', { headers: withTag('"0"'), json: { source: 'theme' } });
    expect(reverted.status).toBe(412);
  });
});

describe('a template as of a point', () => {
  it('reads a template as it stood at a position or time, to those who manage templates', async () => {
    const { id } = await templateWithRevisions('templates', 'as-of');
    const history = (await get(`/templates/${id}/history`)).body as Json[];
    expect(history.map((entry) => entry.type)).toEqual(['created', 'updated', 'updated']);
    const [created, , latest] = history.map((entry) => entry.position as number);

    const then = await get(`/templates/${id}`, { as_of_position: created, context: 'edit' });
    expect(then.status, then.text).toBe(200);
    expect(then.body).toMatchObject({ id, title: { raw: 'First title' }, content: { raw: 'first content' } });
    expect(then.headers.get('x-cms-as-of-position')).toBe(String(created));
    expect(then.headers.get('cache-control')).toContain('immutable');
    const now = await get(`/templates/${id}`, { as_of_position: latest, context: 'edit' });
    expect(now.body).toMatchObject({ title: { raw: 'Third title' }, content: { raw: 'third content' } });
    // A time names the last position at or before it.
    const byTime = await get(`/templates/${id}`, { as_of: new Date().toISOString(), context: 'edit' });
    expect(byTime.body.content.raw).toBe('third content');

    expect((await get(`/templates/${id}`, { as_of_position: created - 1 })).body.code).toBe('rest_template_not_found');
    expect((await get('/templates/cornerstone//archive', { as_of_position: created })).body.code).toBe('rest_template_not_found');
    expect((await get(`/templates/${id}`, { as_of_position: created }, editor)).status).toBe(403);
    // The live read of the same template is still readable by the editor.
    expect((await get(`/templates/${id}`, undefined, editor)).status).toBe(200);
    expect((await get(`/templates/${id}`, { as_of_position: 10 ** 12 })).body.code).toBe('rest_invalid_param');
  });
});
