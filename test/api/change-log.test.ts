import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../../src/resources/index.js';
import {
  autosavePost,
  deletePost,
  deleteRevision,
  restoreRevision,
  trashPost,
  updatePost,
} from '../../src/resources/posts/post.commands.js';
import { postsCollection, revisionsCollection, type PostDoc, type PostFields, type RevisionDoc } from '../../src/resources/posts/post.model.js';
import { projectionsOf } from '../../src/resources/manifest.js';
import { changeLog } from '../../src/store/change-log.js';
import { oweErasure } from '../../src/store/erasure.js';
import { healProjections, rebuildProjections } from '../../src/store/projections.js';
import { givenPost, postFields } from '../support/post-fixtures.js';
import { baseEnv } from '../support/service-process.js';
import { createTestApp, startServiceOn, type TestApp } from '../support/test-app.js';

let app: TestApp;
let users: number[];

beforeAll(async () => {
  app = await createTestApp();
  users = [1, (await app.asRole('editor')).id, (await app.asRole('author')).id, (await app.asRole('contributor')).id];
});
afterAll(() => app?.stop());

const db = () => app.deps.store.db;
const log = () => changeLog(db());

/** A small deterministic generator (mulberry32), so a failing sequence can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  return { next, pick };
}

/** Every event-sourced item and every revision, sorted, as whole documents. */
async function readModels(): Promise<{ posts: PostDoc[]; revisions: RevisionDoc[] }> {
  return {
    posts: await postsCollection(db()).find({ type: { $in: ['post', 'page', 'nav_menu_item'] } }).sort({ _id: 1 }).toArray(),
    revisions: await revisionsCollection(db()).find().sort({ _id: 1 }).toArray(),
  };
}

describe('the change log and its projections', () => {
  it('rebuilds exactly the same posts and revisions from a long random history', { timeout: 180_000 }, async () => {
    const rng = random(20240506);
    const titles = ['Hello', 'Hello world', 'Goodbye', 'A title', '  Hello  ', 'Notes'];
    const contents = ['<p>One.</p>', '<p>Two.</p>', '<p>Three.</p>', '<p>One.</p>\r\n', ''];
    const statuses = ['draft', 'publish', 'pending', 'private'];
    const items: number[] = [];
    const live = async () => {
      const docs = await postsCollection(db()).find({ _id: { $in: items } }, { projection: { _id: 1 } }).toArray();
      return docs.map((doc) => doc._id);
    };
    const done: Record<string, number> = {};

    for (let step = 0; step < 300; step++) {
      const alive = await live();
      const roll = rng.next();
      const actor = rng.pick(users);
      const id = alive.length ? rng.pick(alive) : 0;
      const doc = id ? (await postsCollection(db()).findOne({ _id: id }))! : null;
      const revisions = id ? await revisionsCollection(db()).find({ parent: id }).sort({ _id: 1 }).toArray() : [];
      let operation: string;
      if (!doc || roll < 0.14) {
        operation = 'create';
        const type = rng.pick(['post', 'page']);
        const created = await givenPost(
          app.deps,
          { type, author: actor, title: rng.pick(titles), content: rng.pick(contents), status: rng.pick(statuses), meta: { n: step } },
          actor,
        );
        items.push(created._id);
      } else if (roll < 0.5) {
        operation = 'update';
        const changes: Partial<PostFields> = {};
        if (rng.next() < 0.6) changes.title = rng.pick(titles);
        if (rng.next() < 0.5) changes.content = rng.pick(contents);
        if (rng.next() < 0.2) changes.excerpt = rng.pick(['', 'Short.', 'Longer excerpt.']);
        if (rng.next() < 0.2 && doc.status !== 'trash') changes.status = rng.pick(statuses);
        if (rng.next() < 0.2) changes.meta = { n: step, list: [step, { 'a.b': '$x' }] };
        if (rng.next() < 0.2 && doc.type === 'post') changes.terms = { category: [1], post_tag: [step] };
        await updatePost(app.deps, id, changes, actor);
      } else if (roll < 0.65) {
        operation = 'autosave';
        await autosavePost(app.deps, id, { title: rng.pick(titles), ...(rng.next() < 0.5 ? { content: rng.pick(contents) } : {}) }, actor);
      } else if (roll < 0.72) {
        operation = doc.status === 'trash' ? 'untrash' : 'trash';
        if (doc.status === 'trash') {
          await updatePost(
            app.deps,
            id,
            (current) => ({ status: current.trashedFrom ?? 'draft', trashedFrom: null, slug: current.slug.replace(/__trashed$/, '') }),
            actor,
            { type: 'untrashed' },
          );
        } else {
          await trashPost(app.deps, id, actor);
        }
      } else if (roll < 0.82 && revisions.some((revision) => revision.kind === 'revision')) {
        operation = 'restore';
        await restoreRevision(app.deps, id, rng.pick(revisions.filter((revision) => revision.kind === 'revision')), actor);
      } else if (roll < 0.93 && revisions.length) {
        operation = 'delete revision';
        await deleteRevision(app.deps, id, rng.pick(revisions), actor);
      } else if (roll >= 0.93) {
        operation = 'delete';
        await deletePost(app.deps, id, actor);
      } else {
        operation = 'update';
        await updatePost(app.deps, id, { content: `<p>Step ${step}.</p>` }, actor);
      }
      done[operation] = (done[operation] ?? 0) + 1;
    }
    for (const operation of ['create', 'update', 'autosave', 'trash', 'untrash', 'restore', 'delete revision', 'delete']) {
      expect(done[operation], operation).toBeGreaterThan(0);
    }

    const before = await readModels();
    expect(before.posts.length).toBeGreaterThan(5);
    expect(before.revisions.some((revision) => revision.kind === 'autosave')).toBe(true);
    expect(before.revisions.some((revision) => revision.kind === 'revision')).toBe(true);
    let total = 0;
    for (const id of items) total += await log().countStream(id);

    const replayed = await rebuildProjections(db(), log(), projectionsOf(resources));
    expect(replayed).toBe(total);
    const after = await readModels();
    expect(after.posts).toEqual(before.posts);
    expect(after.revisions).toEqual(before.revisions);
  });

  it('leaves no trace of a deleted revision\'s own content, nor of an item deleted for good', async () => {
    const mark = () => `unique-${randomBytes(6).toString('hex')}`;
    const revisionTitle = mark();
    const revisionContent = mark();
    const post = await givenPost(app.deps, { title: 'Shared title', content: '<p>Shared content.</p>', status: 'publish' });
    await updatePost(app.deps, post._id, { title: revisionTitle, content: revisionContent }, 1);
    await updatePost(app.deps, post._id, { title: 'Shared title again', content: '<p>Shared content.</p>' }, 1);
    const revision = (await revisionsCollection(db()).findOne({ parent: post._id, title: revisionTitle }))!;
    await deleteRevision(app.deps, post._id, revision, 1);

    const secrets = { title: mark(), content: mark(), excerpt: mark(), password: mark(), meta: mark(), later: mark(), autosave: mark() };
    const doomed = await givenPost(app.deps, {
      title: secrets.title,
      content: secrets.content,
      excerpt: secrets.excerpt,
      password: secrets.password,
      meta: { note: secrets.meta },
      status: 'publish',
      slug: 'doomed',
    });
    await updatePost(app.deps, doomed._id, { title: secrets.later }, 1);
    await autosavePost(app.deps, doomed._id, { content: secrets.autosave }, users[1]);
    await trashPost(app.deps, doomed._id, 1);
    await deletePost(app.deps, doomed._id, 1);

    const everything: string[] = [];
    for (const { name } of await db().listCollections({}, { nameOnly: true }).toArray()) {
      for await (const document of db().collection(name).find()) everything.push(JSON.stringify(document));
    }
    const dump = everything.join('\n');
    for (const secret of [revisionTitle, revisionContent, ...Object.values(secrets)]) expect(dump).not.toContain(secret);

    // The log keeps who, when and what kind, and says what was erased.
    const kept = await log().readStream(post._id);
    expect(kept.map((event) => event.type)).toEqual(['created', 'updated', 'updated', 'revision_deleted']);
    expect(kept[1].redacted?.sort()).toEqual(['content', 'title']);
    expect(kept[0].redacted).toBeUndefined();
    expect((await postsCollection(db()).findOne({ _id: post._id }))!.title).toBe('Shared title again');
    const gone = await log().readStream(doomed._id);
    expect(gone.map((event) => [event.type, event.actor])).toEqual([
      ['created', 1],
      ['updated', 1],
      ['autosaved', users[1]],
      ['trashed', 1],
      ['deleted', 1],
    ]);
    expect(gone[0].redacted?.sort()).toEqual(['content', 'excerpt', 'meta', 'password', 'title']);
  });

  it('heals at start-up what a crash left unprojected', async () => {
    const at = () => app.deps.clock();
    const behind = await givenPost(app.deps, { title: 'Before the crash' });
    await log().append({ stream: behind._id, streamType: 'post', type: 'updated', at: at(), actor: 1, data: { changes: { title: 'After the crash' } } }, behind.version);
    // Stored before events named their stream's type: the created event's fields say it is a page.
    const unborn = await app.deps.ids.next('content');
    const legacy = { stream: unborn, seq: 1, type: 'created', at: at(), actor: 1, data: JSON.stringify({ fields: postFields({ type: 'page', title: 'Never projected' }) }) };
    await db().collection('events').insertOne(legacy);
    const undead = await givenPost(app.deps, { title: 'Deleted, but the projection missed it' });
    await log().append({ stream: undead._id, streamType: 'post', type: 'deleted', at: at(), actor: 1, data: {} }, undead.version);
    const posts = postsCollection(db());
    expect((await posts.findOne({ _id: behind._id }))!.title).toBe('Before the crash');
    expect(await posts.findOne({ _id: unborn })).toBeNull();

    // A second service on the same database: its start-up heals the change log's projections.
    await (await startServiceOn(app.databaseName)).stop();

    expect(await posts.findOne({ _id: behind._id })).toMatchObject({ title: 'After the crash', version: 2, changeSeq: 2 });
    expect(await posts.findOne({ _id: unborn })).toMatchObject({ type: 'page', title: 'Never projected', version: 1 });
    expect(await posts.findOne({ _id: undead._id })).toBeNull();
    // Healed means caught up: nothing is left to apply, by the hook or by hand.
    expect(await healProjections(db(), log(), projectionsOf(resources))).toBe(0);
    for (const resource of resources) await resource.seed?.(app.deps);
    expect(await posts.findOne({ _id: behind._id })).toMatchObject({ version: 2 });
  });

  it('heals from a checkpoint: a start looks only at streams appended to since the last start began, less a margin', async () => {
    const recent = await givenPost(app.deps, { title: 'Recent' });
    const old = await givenPost(app.deps, { title: 'Old' });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await log().append({ stream: recent._id, streamType: 'post', type: 'updated', at: app.deps.clock(), actor: 1, data: { changes: { title: 'Recent, healed' } } }, recent.version);
    // Stamped long before the last start: a checkpointed heal does not read it (a full one would).
    await log().append({ stream: old._id, streamType: 'post', type: 'updated', at: anHourAgo, actor: 1, data: { changes: { title: 'Old, healed' } } }, old.version);

    await (await startServiceOn(app.databaseName)).stop();
    const posts = postsCollection(db());
    expect((await posts.findOne({ _id: recent._id }))!.title).toBe('Recent, healed');
    expect((await posts.findOne({ _id: old._id }))!.title).toBe('Old');

    // Without a checkpoint (a first start), every stream is looked at.
    await db().collection('checkpoints').deleteMany({});
    await (await startServiceOn(app.databaseName)).stop();
    expect((await posts.findOne({ _id: old._id }))!.title).toBe('Old, healed');
  });

  it('finishes at start-up an erasure a crash interrupted, and drops one whose event never came', async () => {
    const at = () => app.deps.clock();
    const secret = `words-${randomBytes(6).toString('hex')}`;
    const doomed = await givenPost(app.deps, { title: `Title ${secret}`, content: `Content ${secret}` });
    await updatePost(app.deps, doomed._id, { content: `Revised ${secret}` }, 1);
    const version = (await postsCollection(db()).findOne({ _id: doomed._id }))!.version;
    // As a force delete leaves it when the process dies after its append, before its erasure.
    const plan = { contentFields: ['title', 'content', 'excerpt'], blank: () => '' };
    const owed = await oweErasure(db(), { ...plan, stream: doomed._id, seq: version + 1, erasure: 'all' });
    await log().append({ stream: doomed._id, streamType: 'post', type: 'deleted', at: at(), actor: 1, data: {}, erasure: owed }, version);
    // Erasures owed by commands that died before their append (or lost the race for the seq to
    // another's event): recent ones are kept (another process may be appending), old ones dropped.
    const bystander = await givenPost(app.deps, { title: 'Bystander' });
    const recent = await oweErasure(db(), { ...plan, stream: bystander._id, seq: 2, erasure: 'all' });
    const old = await oweErasure(db(), { ...plan, stream: bystander._id, seq: 3, erasure: 'all' });
    const rival = await oweErasure(db(), { ...plan, stream: doomed._id, seq: version + 1, erasure: { title: ['never appended'] } });
    await db().collection('owed_erasures').updateMany({ _id: { $in: [old, rival] } as never }, { $set: { at: new Date(Date.now() - 120_000) } });
    expect(JSON.stringify(await log().readStream(doomed._id))).toContain(secret);

    await (await startServiceOn(app.databaseName)).stop();

    const events = await log().readStream(doomed._id);
    expect(events.map((event) => event.type)).toEqual(['created', 'updated', 'deleted']);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(events[0].redacted?.sort()).toEqual(['content', 'title']);
    expect(await db().collection('owed_erasures').find({}, { projection: { _id: 1 } }).toArray()).toEqual([{ _id: recent }]);
    expect((await postsCollection(db()).findOne({ _id: bystander._id }))!.title).toBe('Bystander');
    await db().collection('owed_erasures').deleteMany({});
  });

  it('lands concurrent updates of one item as consecutive events, losing none', async () => {
    const post = await givenPost(app.deps, { title: 'Contended' });
    const titles = ['First writer', 'Second writer', 'Third writer', 'Fourth writer'];
    await Promise.all(titles.map((title, index) => updatePost(app.deps, post._id, { title }, users[index])));

    const events = await log().readStream<{ changes: { title: string } }>(post._id);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    const updates = events.slice(1);
    expect(updates.map((event) => event.data.changes.title).sort()).toEqual([...titles].sort());
    for (const event of updates) expect(event.actor).toBe(users[titles.indexOf(event.data.changes.title)]);
    const doc = (await postsCollection(db()).findOne({ _id: post._id }))!;
    expect(doc).toMatchObject({ version: 5, changeSeq: 5, title: updates[3].data.changes.title });
    expect(doc.revisionCount).toBe(await revisionsCollection(db()).countDocuments({ parent: post._id }));
  });

  it('npm run projections:rebuild replays the log into the same read models and reports counts', async () => {
    const post = await givenPost(app.deps, { title: 'Rebuilt' });
    await updatePost(app.deps, post._id, { title: 'Rebuilt, revised' }, 1);
    await autosavePost(app.deps, post._id, { title: 'Rebuilt, autosaved' }, users[1]);
    const before = await readModels();
    const uri = new ConnectionString(inject('mongodbUri'));
    uri.pathname = `/${app.databaseName}`;
    // The built script (the test command builds first), as the npm script runs it.
    const result = spawnSync(process.execPath, ['dist/scripts/projections-rebuild.js'], { env: baseEnv({ MONGODB_URI: uri.toString() }), encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const revisions = before.revisions.filter((revision) => revision.kind === 'revision').length;
    const autosaves = before.revisions.length - revisions;
    expect(result.stdout).toMatch(new RegExp(`^Replayed \\d+ events in [\\d.]+s: ${before.posts.length} items, ${revisions} revisions, ${autosaves} autosaves\\.\n$`));
    expect(await readModels()).toEqual(before);
  });
});
