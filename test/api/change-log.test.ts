import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resources } from '../../src/resources/index.js';
import { postsCollection, revisionsCollection, type PostDoc, type RevisionDoc } from '../../src/resources/posts/post.model.js';
import { projectionsOf } from '../../src/resources/manifest.js';
import { atPosition, changeLog, eventBlock } from '../../src/store/log/change-log.js';
import { oweErasure } from '../../src/store/log/erasure.js';
import { healProjections, rebuildProjections } from '../../src/store/projections/projections.js';
import { autosaveItem, autosavesOf, createItem, deleteItem, deleteRevisionOf, restoreRevisionOf, revisionsOf, updateItem, type Headers } from '../support/http-posts.js';
import { postFields } from '../support/post-fixtures.js';
import { baseEnv } from '../support/service-process.js';
import { createTestApp, startServiceOn, type TestApp } from '../support/test-app.js';

let app: TestApp;
let users: number[];
/** The administrator and editors: users who may write any item. */
let writers: { id: number; headers: Headers }[];

beforeAll(async () => {
  app = await createTestApp();
  const editors = [await app.asRole('editor'), await app.asRole('editor'), await app.asRole('editor')];
  users = [1, editors[0].id, (await app.asRole('author')).id, (await app.asRole('contributor')).id];
  writers = [{ id: 1, headers: app.admin }, ...editors];
});
afterAll(() => app?.stop());

const db = () => app.deps.store.db;
const log = () => changeLog(db());
const checkpoints = () => db().collection<{ _id: string; at: Date; position?: number }>('checkpoints');

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
    const tags = await Promise.all(['one', 'two', 'three'].map(async (name) => (await app.api('POST', '/cms/v2/tags', { headers: app.admin, json: { name } })).body.id as number));
    const items: number[] = [];
    const live = async () => {
      const docs = await postsCollection(db()).find({ _id: { $in: items } }, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray();
      return docs.map((doc) => doc._id);
    };
    const done: Record<string, number> = {};

    for (let step = 0; step < 300; step++) {
      const alive = await live();
      const roll = rng.next();
      const writer = rng.pick(writers);
      const id = alive.length ? rng.pick(alive) : 0;
      const doc = id ? (await postsCollection(db()).findOne({ _id: id }))! : null;
      const as = { type: doc?.type as 'post' | 'page', headers: writer.headers };
      const revisions = id ? await revisionsOf(app, id, as.type) : [];
      const autosaves = id ? await autosavesOf(app, id, as.type) : [];
      let operation: string;
      if (!doc || roll < 0.14) {
        operation = 'create';
        const created = await createItem(
          app,
          { author: rng.pick(users), title: rng.pick(titles), content: rng.pick(contents), status: rng.pick(statuses), meta: { footnotes: `n ${step}` } },
          { type: rng.pick(['post', 'page'] as const), headers: writer.headers },
        );
        items.push(created.id);
      } else if (roll < 0.5) {
        operation = 'update';
        const changes: Record<string, unknown> = {};
        if (rng.next() < 0.6) changes.title = rng.pick(titles);
        if (rng.next() < 0.5) changes.content = rng.pick(contents);
        if (rng.next() < 0.2) changes.excerpt = rng.pick(['', 'Short.', 'Longer excerpt.']);
        if (rng.next() < 0.2 && doc.status !== 'trash') changes.status = rng.pick(statuses);
        if (rng.next() < 0.2) changes.meta = { footnotes: `[{"id":"${step}","content":"a.b $x"}]` };
        if (rng.next() < 0.2 && doc.type === 'post') changes.tags = [rng.pick(tags)];
        await updateItem(app, id, changes, as);
      } else if (roll < 0.65) {
        operation = 'autosave';
        await autosaveItem(app, id, { title: rng.pick(titles), ...(rng.next() < 0.5 ? { content: rng.pick(contents) } : {}) }, writer.headers, as.type);
      } else if (roll < 0.72) {
        operation = doc.status === 'trash' ? 'untrash' : 'trash';
        if (doc.status === 'trash') await updateItem(app, id, { status: doc.trashedFrom ?? 'draft' }, as);
        else await deleteItem(app, id, as);
      } else if (roll < 0.82 && revisions.length) {
        operation = 'restore';
        await restoreRevisionOf(app, id, rng.pick(revisions).id, as);
      } else if (roll < 0.93 && revisions.length + autosaves.length) {
        operation = 'delete revision';
        await deleteRevisionOf(app, id, rng.pick([...revisions, ...autosaves]).id, as);
      } else if (roll >= 0.93) {
        operation = 'delete';
        await deleteItem(app, id, { ...as, force: true });
      } else {
        operation = 'update';
        await updateItem(app, id, { content: `<p>Step ${step}.</p>` }, as);
      }
      done[operation] = (done[operation] ?? 0) + 1;
    }
    for (const operation of ['create', 'update', 'autosave', 'trash', 'untrash', 'restore', 'delete revision', 'delete']) {
      expect(done[operation] ?? 0, operation).toBeGreaterThan(0);
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
    const post = await createItem(app, { title: 'Shared title', content: '<p>Shared content.</p>', status: 'publish' });
    await updateItem(app, post.id, { title: revisionTitle, content: revisionContent });
    await updateItem(app, post.id, { title: 'Shared title again', content: '<p>Shared content.</p>' });
    const revision = (await revisionsOf(app, post.id)).find((each) => each.title.raw === revisionTitle)!;
    await deleteRevisionOf(app, post.id, revision.id);

    const secrets = { title: mark(), content: mark(), excerpt: mark(), password: mark(), meta: mark(), later: mark(), autosave: mark() };
    const doomed = await createItem(app, {
      title: secrets.title,
      content: secrets.content,
      excerpt: secrets.excerpt,
      password: secrets.password,
      meta: { footnotes: secrets.meta },
      status: 'publish',
      slug: 'doomed',
    });
    await updateItem(app, doomed.id, { title: secrets.later });
    await autosaveItem(app, doomed.id, { content: secrets.autosave }, writers[1].headers);
    await deleteItem(app, doomed.id);
    await deleteItem(app, doomed.id, { force: true });

    const everything: string[] = [];
    for (const { name } of await db().listCollections({}, { nameOnly: true }).toArray()) {
      for await (const document of db().collection(name).find()) everything.push(JSON.stringify(document));
    }
    const dump = everything.join('\n');
    for (const secret of [revisionTitle, revisionContent, ...Object.values(secrets)]) expect(dump).not.toContain(secret);

    // The log keeps who, when and what kind, and says what was erased.
    const kept = await log().readStream(post.id);
    expect(kept.map((event) => event.type)).toEqual(['created', 'updated', 'updated', 'revision_deleted']);
    expect(kept[1].redacted?.sort()).toEqual(['content', 'title']);
    expect(kept[0].redacted).toBeUndefined();
    expect((await postsCollection(db()).findOne({ _id: post.id }))!.title).toBe('Shared title again');
    const gone = await log().readStream(doomed.id);
    expect(gone.map((event) => [event.type, event.actor])).toEqual([
      ['created', 1],
      ['updated', 1],
      ['autosaved', writers[1].id],
      ['trashed', 1],
      ['deleted', 1],
    ]);
    expect(gone[0].redacted?.sort()).toEqual(['content', 'excerpt', 'meta', 'password', 'title']);
  });

  it('heals at start-up what a crash left unprojected', async () => {
    const at = () => app.deps.clock();
    const behind = await createItem(app, { title: 'Before the crash' });
    await log().append({ stream: behind.id, streamType: 'post', type: 'updated', at: at(), actor: 1, data: { changes: { title: 'After the crash' } } }, await log().countStream(behind.id));
    // Stored before events named their stream's type (by a process from then, still running
    // after the upgrade that gave events positions): the created event's fields say it is a page.
    const unborn = await app.deps.ids.next('content');
    const legacy = { stream: unborn, seq: 1, ...atPosition(await log().firstFreePosition()), type: 'created', at: at(), actor: 1, data: JSON.stringify({ fields: postFields({ type: 'page', title: 'Never projected' }) }) };
    await db().collection('events').insertOne(legacy);
    const undead = await createItem(app, { title: 'Deleted, but the projection missed it' });
    await log().append({ stream: undead.id, streamType: 'post', type: 'deleted', at: at(), actor: 1, data: {} }, await log().countStream(undead.id));
    const posts = postsCollection(db());
    expect((await posts.findOne({ _id: behind.id }))!.title).toBe('Before the crash');
    expect(await posts.findOne({ _id: unborn })).toBeNull();

    // A second service on the same database: its start-up heals the change log's projections.
    await (await startServiceOn(app.databaseName)).stop();

    expect(await posts.findOne({ _id: behind.id })).toMatchObject({ title: 'After the crash', version: 2, changeSeq: 2 });
    expect(await posts.findOne({ _id: unborn })).toMatchObject({ type: 'page', title: 'Never projected', version: 1 });
    expect(await posts.findOne({ _id: undead.id })).toBeNull();
    // Healed means caught up: nothing is left to apply, by the hook or by hand.
    expect(await healProjections(db(), log(), projectionsOf(resources))).toBe(0);
    for (const resource of resources) await resource.seed?.(app.deps);
    expect(await posts.findOne({ _id: behind.id })).toMatchObject({ version: 2 });
  });

  it("heals from a checkpoint: a start looks only at streams appended to after the position the last start read the log through, whatever the events' times", async () => {
    const recent = await createItem(app, { title: 'Recent' });
    const skewed = await createItem(app, { title: 'Skewed' });
    const below = await createItem(app, { title: 'Below' });
    const append = async (id: number, title: string, at: Date) =>
      log().append({ stream: id, streamType: 'post', type: 'updated', at, actor: 1, data: { changes: { title } } }, await log().countStream(id));
    // Unprojected, but below the position the last start recorded: a checkpointed heal does not read it (a full one would).
    const { position } = await append(below.id, 'Below, healed', app.deps.clock());
    await checkpoints().replaceOne({ _id: 'projections' }, { at: app.deps.clock(), position: position! }, { upsert: true });
    await append(recent.id, 'Recent, healed', app.deps.clock());
    // Stamped an hour back by a writer whose clock is behind: it is above that position all the same.
    await append(skewed.id, 'Skewed, healed', new Date(Date.now() - 3_600_000));

    await (await startServiceOn(app.databaseName)).stop();
    const posts = postsCollection(db());
    expect((await posts.findOne({ _id: recent.id }))!.title).toBe('Recent, healed');
    expect((await posts.findOne({ _id: skewed.id }))!.title).toBe('Skewed, healed');
    expect((await posts.findOne({ _id: below.id }))!.title).toBe('Below');
    const checkpoint = await checkpoints().findOne({ _id: 'projections' });
    expect(checkpoint!.position).toBeGreaterThan(position!);

    // Without a checkpoint (a first start), every stream is looked at.
    await db().collection('checkpoints').deleteMany({});
    await (await startServiceOn(app.databaseName)).stop();
    expect((await posts.findOne({ _id: below.id }))!.title).toBe('Below, healed');
  });

  it('heals past a missing position without waiting for it, and the next start reads from below it again', async () => {
    const item = await createItem(app, { title: 'Past a gap' });
    const gap = await log().firstFreePosition();
    // An append a crash left at the position after the gap, unprojected: the gap is an append that never came.
    await db().collection('events').insertOne({
      stream: item.id, streamType: 'post', seq: 2, block: eventBlock(item.id, 2), ...atPosition(gap + 1),
      type: 'updated', at: app.deps.clock(), actor: 1, data: JSON.stringify({ changes: { title: 'Past a gap, healed' } }),
    });
    await (await startServiceOn(app.databaseName)).stop();
    expect((await postsCollection(db()).findOne({ _id: item.id }))!.title).toBe('Past a gap, healed');
    // Neither waited for nor voided (a reader that waits does that), and the checkpoint stays below it.
    expect(await db().collection('events').findOne({ position: gap })).toBeNull();
    expect((await checkpoints().findOne({ _id: 'projections' }))!.position).toBe(gap - 1);
    await log().readPositions(gap - 1, 2, { gapWaitMs: 0 });
  });

  it('heals after a start recorded only its time (before heals kept a position) from that time, less a margin', async () => {
    const recent = await createItem(app, { title: 'Recent' });
    const old = await createItem(app, { title: 'Old' });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await checkpoints().replaceOne({ _id: 'projections' }, { at: app.deps.clock() }, { upsert: true });
    await log().append({ stream: recent.id, streamType: 'post', type: 'updated', at: app.deps.clock(), actor: 1, data: { changes: { title: 'Recent, healed' } } }, await log().countStream(recent.id));
    await log().append({ stream: old.id, streamType: 'post', type: 'updated', at: anHourAgo, actor: 1, data: { changes: { title: 'Old, healed' } } }, await log().countStream(old.id));
    // Far below the head, so outside the positions read by position too.
    const filler = await createItem(app, { title: 'Filler' });
    for (let n = 0; n < 260; n++) await log().append({ stream: filler.id, streamType: 'post', type: 'updated', at: app.deps.clock(), actor: 1, data: { changes: { title: `Filler ${n}` } } }, 1 + n);

    await (await startServiceOn(app.databaseName)).stop();
    const posts = postsCollection(db());
    expect((await posts.findOne({ _id: recent.id }))!.title).toBe('Recent, healed');
    expect((await posts.findOne({ _id: old.id }))!.title).toBe('Old');
    // A full heal (no checkpoint) leaves nothing behind for the tests after this one.
    await db().collection('checkpoints').deleteMany({});
    await (await startServiceOn(app.databaseName)).stop();
    expect((await posts.findOne({ _id: old.id }))!.title).toBe('Old, healed');
  });

  it.skipIf(!inject('postgres'))('reads each stream\'s last event in the embedded PostgreSQL as through FerretDB, for the whole log or since a time (embedded PostgreSQL only)', async () => {
    const direct = changeLog(db(), { postgres: inject('postgres')! });
    // An item of several events: its last one is what is read, not its first.
    const item = await createItem(app, { title: 'Several events' });
    await updateItem(app, item.id, { title: 'Several events, twice' });
    const legacyStream = await app.deps.ids.next('content');
    await db().collection('events').insertOne({ stream: legacyStream, seq: 1, type: 'created', at: new Date(), actor: 1, data: JSON.stringify({ fields: postFields({ title: 'Untyped' }) }) });
    const whole = await direct.lastEvents();
    expect(whole).toEqual(await log().lastEvents());
    expect(whole.get(legacyStream)).toEqual({ seq: 1, type: 'created' });
    expect(whole.get(item.id)).toEqual({ seq: 2, type: 'updated', streamType: 'post' });
    expect([...whole.keys()].every((stream) => stream > 0)).toBe(true);
    const since = new Date(Date.now() - 60_000);
    expect(await direct.lastEvents(since)).toEqual(await log().lastEvents(since));
    expect((await direct.lastEvents(new Date(Date.now() + 60_000))).size).toBe(0);
    // The tests after this one rebuild the log: it holds no item never projected.
    await db().collection('events').deleteOne({ stream: legacyStream });
  });

  it('finishes at start-up an erasure a crash interrupted, and drops one whose event never came', async () => {
    const at = () => app.deps.clock();
    const secret = `words-${randomBytes(6).toString('hex')}`;
    const doomed = await createItem(app, { title: `Title ${secret}`, content: `Content ${secret}` });
    await updateItem(app, doomed.id, { content: `Revised ${secret}` });
    const version = (await postsCollection(db()).findOne({ _id: doomed.id }))!.version;
    // As a force delete leaves it when the process dies after its append, before its erasure.
    const plan = { contentFields: ['title', 'content', 'excerpt'], blank: () => '' };
    const owed = await oweErasure(db(), { ...plan, stream: doomed.id, seq: version + 1, erasure: 'all' });
    await log().append({ stream: doomed.id, streamType: 'post', type: 'deleted', at: at(), actor: 1, data: {}, erasure: owed }, version);
    // Erasures owed by commands that died before their append (or lost the race for the seq to
    // another's event): recent ones are kept (another process may be appending), old ones dropped.
    const bystander = await createItem(app, { title: 'Bystander' });
    const recent = await oweErasure(db(), { ...plan, stream: bystander.id, seq: 2, erasure: 'all' });
    const old = await oweErasure(db(), { ...plan, stream: bystander.id, seq: 3, erasure: 'all' });
    const rival = await oweErasure(db(), { ...plan, stream: doomed.id, seq: version + 1, erasure: { title: ['never appended'] } });
    await db().collection('owed_erasures').updateMany({ _id: { $in: [old, rival] } as never }, { $set: { at: new Date(Date.now() - 120_000) } });
    expect(JSON.stringify(await log().readStream(doomed.id))).toContain(secret);

    await (await startServiceOn(app.databaseName)).stop();

    const events = await log().readStream(doomed.id);
    expect(events.map((event) => event.type)).toEqual(['created', 'updated', 'deleted']);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(events[0].redacted?.sort()).toEqual(['content', 'title']);
    expect(await db().collection('owed_erasures').find({}, { projection: { _id: 1 } }).toArray()).toEqual([{ _id: recent }]);
    expect((await postsCollection(db()).findOne({ _id: bystander.id }))!.title).toBe('Bystander');
    await db().collection('owed_erasures').deleteMany({});
  });

  it('lands concurrent updates of one item as consecutive events, losing none', async () => {
    const post = await createItem(app, { title: 'Contended' });
    const titles = ['First writer', 'Second writer', 'Third writer', 'Fourth writer'];
    await Promise.all(titles.map((title, index) => updateItem(app, post.id, { title }, { headers: writers[index].headers })));

    const events = await log().readStream<{ changes: { title: string } }>(post.id);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    const updates = events.slice(1);
    expect(updates.map((event) => event.data.changes.title).sort()).toEqual([...titles].sort());
    for (const event of updates) expect(event.actor).toBe(writers[titles.indexOf(event.data.changes.title)].id);
    const doc = (await postsCollection(db()).findOne({ _id: post.id }))!;
    expect(doc).toMatchObject({ version: 5, changeSeq: 5, title: updates[3].data.changes.title });
    expect(doc.revisionCount).toBe(await revisionsCollection(db()).countDocuments({ parent: post.id }));
  });

  it('npm run projections:rebuild replays the log into the same read models and reports counts', async () => {
    const post = await createItem(app, { title: 'Rebuilt' });
    await updateItem(app, post.id, { title: 'Rebuilt, revised' });
    await autosaveItem(app, post.id, { title: 'Rebuilt, autosaved' }, writers[1].headers);
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
    // An item projected from events stored before positions (the legacy page healed above, whose
    // event the positions upgrade numbered later) gains its positions on a replay; nothing else changes.
    const after = await readModels();
    const unpositioned = new Set(before.posts.filter((doc) => doc.position === undefined).map((doc) => doc._id));
    after.posts = after.posts.map((doc) => (unpositioned.has(doc._id) ? (({ firstPosition: _first, position: _position, ...rest }) => rest as PostDoc)(doc) : doc));
    expect(after).toEqual(before);
    expect(before.posts.filter((doc) => doc.position === undefined).length).toBeLessThanOrEqual(1);
  });
});
