import { type Db, type Filter } from 'mongodb';
import { POST_TYPES } from '../../registry/post-types.js';
import { documentFold, documentProjection, type DocumentEffects } from '../../store/projections/document-projection.js';
import { keptIndex } from '../../store/projections/kept-index.js';
import { FULL_SCAN_COMMENT } from '../../store/queries/query-shapes.js';
import { type StoredEvent } from '../../store/log/change-log.js';
import { type TypedEvent } from '../../store/log/change-log.js';
import { isPostEvent, POST_EVENT_TYPES, type PostAutosavedEvent, type PostChangedEvent, type RevisionDeletedEvent, type StoredPostEvent } from './post.events.js';
import {
  autosaveKey,
  fieldsOf,
  logStateOf,
  NEW_LOG_STATE,
  postsCollection,
  revisionFingerprint,
  revisionsCollection,
  toPostDoc,
  UNKNOWN,
  revisionBlock,
  storedRevision,
  type PostDoc,
  type RevisionDoc,
} from './post.model.js';
import { oncePerDatabase } from '../../store/projections/projections.js';
import { atPosition } from '../../store/history/as-of.js';

/** What one event does to the read models: the next item (null: gone) and the revision rows to write. */
export type PostEffects = DocumentEffects<PostDoc, RevisionDoc>;

/**
 * The pure fold of the change log: the item before `event` (null before `created`) to its
 * effects. Revision rows are built from the item as the event leaves it, as WordPress saves a
 * revision after the post.
 */
export function evolvePost(doc: PostDoc | null, event: StoredEvent): PostEffects {
  const effects: PostEffects = { item: doc, upsertRevisions: [], deleteRevisions: [], deleteAllRevisions: false };
  // An event of another type changes nothing.
  return isPostEvent(event) ? effectsOf(doc, event, effects) : effects;
}

function effectsOf(doc: PostDoc | null, event: StoredPostEvent, effects: PostEffects): PostEffects {
  switch (event.type) {
    case 'created': {
      const { fields } = event.data;
      effects.item = atPosition(toPostDoc(event.stream, fields, { version: event.seq, changeSeq: event.seq, ...NEW_LOG_STATE }), event, true);
      return effects;
    }
    case 'updated':
    case 'trashed':
    case 'untrashed':
    case 'restored':
      return doc ? applyPostChanged(doc, event, effects) : effects;
    case 'autosaved':
      return doc ? applyPostAutosaved(doc, event, effects) : effects;
    case 'revision_deleted':
      return applyRevisionDeleted(doc, event, effects);
    case 'deleted':
      effects.item = null;
      effects.deleteAllRevisions = true;
      return effects;
  }
}

/** The item as `event` leaves it: at the event's version and position, and at its change when it `changed` what is served. */
function stamped(next: PostDoc, event: Pick<StoredEvent, 'seq' | 'position'>, changed: boolean): PostDoc {
  return atPosition({ ...next, version: event.seq, changeSeq: changed ? event.seq : next.changeSeq }, event);
}

/** An update, trash, untrash or restore: the fields changed, and a revision of them when the event saved one. */
function applyPostChanged(doc: PostDoc, event: TypedEvent<PostChangedEvent>, effects: PostEffects): PostEffects {
  const { changes, revisionId } = event.data;
  const fields = { ...fieldsOf(doc), ...changes };
  let next = stamped(toPostDoc(doc._id, fields, logStateOf(doc)), event, true);
  if (revisionId !== undefined) {
    next = {
      ...next,
      revisionCount: next.revisionCount + 1,
      headRevision: revisionId,
      headFingerprint: revisionFingerprint(fields),
      latestRevision: revisionId,
    };
    effects.upsertRevisions.push({
      _id: revisionId,
      parent: doc._id,
      kind: 'revision',
      author: event.actor,
      title: fields.title,
      content: fields.content,
      excerpt: fields.excerpt,
      // WordPress dates a revision with its parent's modified time.
      date: fields.modified,
      dateGmt: fields.modifiedGmt,
      modified: fields.modified,
      modifiedGmt: fields.modifiedGmt,
      slug: `${doc._id}-revision-v1`,
      version: event.seq,
    });
  }
  effects.item = next;
  return effects;
}

/** An autosave: saved in place over a draft, or as the item's autosave row. */
function applyPostAutosaved(doc: PostDoc, event: TypedEvent<PostAutosavedEvent>, effects: PostEffects): PostEffects {
  const { data } = event;
  if (data.inPlace) {
    effects.item = stamped(toPostDoc(doc._id, { ...fieldsOf(doc), ...data.changes }, logStateOf(doc)), event, true);
    return effects;
  }
  effects.item = stamped({ ...doc, revisionCount: doc.revisionCount + (data.isNew ? 1 : 0), latestRevision: data.autosaveId }, event, false);
  effects.upsertRevisions.push({
    _id: data.autosaveId,
    parent: doc._id,
    kind: 'autosave',
    author: event.actor,
    ...data.fields,
    date: data.date,
    dateGmt: data.dateGmt,
    modified: data.date,
    modifiedGmt: data.dateGmt,
    slug: `${doc._id}-autosave-v1`,
    version: event.seq,
  });
  return effects;
}

/** A revision deleted: its row goes, and the item no longer counts it (nor names it as its head or latest). */
function applyRevisionDeleted(doc: PostDoc | null, event: TypedEvent<RevisionDeletedEvent>, effects: PostEffects): PostEffects {
  const { revisionId } = event.data;
  effects.deleteRevisions.push(revisionId);
  if (doc) {
    effects.item = stamped(
      {
        ...doc,
        revisionCount: Math.max(0, doc.revisionCount - 1),
        headRevision: doc.headRevision === revisionId ? UNKNOWN : doc.headRevision,
        headFingerprint: doc.headRevision === revisionId ? null : doc.headFingerprint,
        latestRevision: doc.latestRevision === revisionId ? UNKNOWN : doc.latestRevision,
      },
      event,
      false,
    );
  }
  return effects;
}

/** The item after `event` and every document its projection writes: what the kernel checks before an append. */
export const foldPost = documentFold(evolvePost);

/**
 * Rewrites, once per database (the checkpoint records it), the revision rows stored before a
 * field rows now keep: each row `filter` finds is given `fields(row)`. Returns how many.
 */
async function backfillRevisionRows(
  db: Db,
  checkpoint: string,
  filter: Filter<RevisionDoc>,
  why: string,
  fields: (row: RevisionDoc) => { keyed: Filter<RevisionDoc>; set: Partial<RevisionDoc> },
): Promise<number> {
  return oncePerDatabase(db, checkpoint, async () => {
    const revisions = revisionsCollection(db);
    let count = 0;
    for await (const row of revisions.find(filter, { projection: { _id: 1, parent: 1, version: 1, author: 1 }, comment: `${FULL_SCAN_COMMENT} once per database: ${why}` })) {
      const { keyed, set } = fields(row);
      await revisions.updateOne(keyed, { $set: set });
      count++;
    }
    return count;
  });
}

/** Gives revision rows stored before rows kept their block that block: pages of revisions are read by block. */
export function backfillRevisionBlocks(db: Db): Promise<number> {
  return backfillRevisionRows(db, REVISION_BLOCKS_CHECKPOINT, { block: { $exists: false } }, 'revision rows stored before rows kept their block', (row) => ({
    // A row rewritten meanwhile (an autosave) was written with its block.
    keyed: { _id: row._id, version: row.version },
    set: { block: revisionBlock(row.parent, row.version) },
  }));
}

export const REVISION_BLOCKS_CHECKPOINT = 'revision_blocks';

/** Gives autosave rows stored before autosaves kept their key (`autosaveKey`) that key: a user's autosave of an item is found by it. */
export function backfillAutosaveKeys(db: Db): Promise<number> {
  return backfillRevisionRows(
    db,
    AUTOSAVE_KEYS_CHECKPOINT,
    { kind: 'autosave', autosaveOf: { $exists: false } },
    'autosave rows stored before autosaves kept their key',
    (row) => ({ keyed: { _id: row._id }, set: { autosaveOf: autosaveKey(row.parent, row.author) } }),
  );
}

export const AUTOSAVE_KEYS_CHECKPOINT = 'autosave_keys';

/** The post types whose items this projection keeps: those served by the posts controller. */
export const POSTS_CONTROLLER_TYPES: readonly string[] = POST_TYPES.filter((type) => type.rest_controller === 'posts').map((type) => type.slug);

/**
 * The fields the posts controller's lists filter and sort on, kept in each process for every
 * post and page (titles, content and passwords, which only searches and the title order read, are not).
 */
export const postListIndex = keptIndex({
  name: 'posts',
  collection: 'posts',
  holds: { type: { $in: [...POSTS_CONTROLLER_TYPES] } },
  // Positions and trashedFrom serve lists as of an earlier point: which items changed since, and who may read them.
  fields: ['type', 'status', 'date', 'dateGmt', 'modified', 'author', 'parent', 'menu_order', 'slug', 'sticky', 'terms', 'trashedFrom', 'firstPosition', 'position'],
  streamTypes: POSTS_CONTROLLER_TYPES,
  endsStream: ['deleted'],
});

export const postsProjection = documentProjection<PostDoc, RevisionDoc>({
  keptIndex: postListIndex,
  name: 'posts',
  streamTypes: POSTS_CONTROLLER_TYPES,
  // Events stored before they named their stream's type: the created event's fields say it.
  legacyStreamType: (first) => {
    const type = first.type === 'created' ? (first.data as { fields?: { type?: unknown } }).fields?.type : undefined;
    return typeof type === 'string' && POSTS_CONTROLLER_TYPES.includes(type) ? type : undefined;
  },
  handles: POST_EVENT_TYPES,
  endsStream: ['deleted'],
  items: postsCollection,
  rows: revisionsCollection,
  evolve: evolvePost,
  stored: storedRevision,
  async clear(db) {
    await postsCollection(db).deleteMany({ type: { $in: [...POSTS_CONTROLLER_TYPES] } });
    await revisionsCollection(db).deleteMany({});
  },
});
