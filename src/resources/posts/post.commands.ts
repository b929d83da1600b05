import { type Deps } from '../../deps.js';
import { defineRestError } from '../../rest/errors.js';
import { formatRestDate, formatSiteDate } from '../../lib/site-dates.js';
import { sanitizeSlug } from '../../lib/slugs.js';
import { ConcurrencyError, changeLog, type NewEvent, type StoredEvent } from '../../store/change-log.js';
import { applyEvent } from '../../store/projections.js';
import { readSetting } from '../settings/index.js';
import { type PostAutosaved, type PostChanged, type PostEventData, type PostEventType } from './post.events.js';
import {
  fieldsOf,
  postsCollection,
  REVISIONED_FIELDS,
  revisionFingerprint,
  revisionsCollection,
  UNKNOWN,
  type PostDoc,
  type PostFields,
  type RevisionDoc,
  type RevisionedField,
} from './post.model.js';
import { postsProjection } from './post.projection.js';

export const PostInvalidId = defineRestError('rest_post_invalid_id', 'Invalid post ID.', 404);
export const PreconditionFailed = defineRestError('rest_precondition_failed', 'The item has changed since it was read (If-Match does not match its ETag).', 412);
export const WriteConflict = defineRestError('rest_write_conflict', 'The item is being changed by someone else; try again.', 409);

const projections = [postsProjection];
const MAX_ATTEMPTS = 8;

/** The site's current time, as local wall-clock and GMT strings. */
export async function siteNow(deps: Pick<Deps, 'store' | 'clock'>): Promise<{ local: string; gmt: string }> {
  const now = deps.clock();
  const timezone = String((await readSetting(deps.store.db, 'timezone')) ?? '');
  return { local: formatSiteDate(now, timezone)!, gmt: formatRestDate(now)! };
}

type Decision = { type: PostEventType; data: PostEventData } | null;

/**
 * Decides an event from the item as it is, appends it at the item's version and projects it.
 * Someone else appending first (a duplicate `(stream, seq)`) means: bring the projection up to
 * date, re-read, decide again. With `ifMatch`, a changed item is a 412 instead.
 */
async function commit(
  deps: Deps,
  id: number,
  actor: number,
  decide: (doc: PostDoc) => Promise<Decision>,
  ifMatch?: number,
): Promise<{ doc: PostDoc | null; event: StoredEvent | null }> {
  const { db } = deps.store;
  const log = changeLog(db);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const doc = await postsCollection(db).findOne({ _id: id });
    if (!doc) throw new PostInvalidId();
    if (ifMatch !== undefined && doc.changeSeq !== ifMatch) throw new PreconditionFailed();
    const decision = await decide(doc);
    if (!decision) return { doc, event: null };
    const event: NewEvent = { stream: id, type: decision.type, at: deps.clock(), actor, data: decision.data as Record<string, unknown> };
    let stored: StoredEvent;
    try {
      stored = await log.append(event, doc.version);
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      await catchUp(deps, id, doc.version);
      continue;
    }
    await applyEvent(db, projections, stored);
    return { doc: await postsCollection(db).findOne({ _id: id }), event: stored };
  }
  throw new WriteConflict();
}

/** Applies events the projection has not seen (another process appended, or crashed before projecting). */
async function catchUp(deps: Deps, id: number, version: number): Promise<void> {
  for (const event of await changeLog(deps.store.db).readStream(id, { afterSeq: version })) {
    await applyEvent(deps.store.db, projections, event);
  }
}

/** Creates an item: the first event of its stream. No revision (WordPress makes none on create). */
export async function createPost(deps: Deps, id: number, fields: PostFields, actor: number): Promise<PostDoc> {
  const stored = await changeLog(deps.store.db).append({ stream: id, type: 'created', at: deps.clock(), actor, data: { fields } }, 0);
  await applyEvent(deps.store.db, projections, stored);
  return (await postsCollection(deps.store.db).findOne({ _id: id }))!;
}

const normalize = (text: string) => text.replace(/\r\n?/g, '\n').trim();

/** The newest revision that is not an autosave. */
export function newestRevision(deps: Pick<Deps, 'store'>, parent: number): Promise<RevisionDoc | null> {
  return revisionsCollection(deps.store.db).findOne({ parent, kind: 'revision' }, { sort: { date: -1, _id: -1 } });
}

/**
 * WordPress's rule (`wp_save_post_revision`): the first update always makes a revision; later
 * ones only when a revisioned field differs from the newest revision, whitespace aside.
 */
async function needsRevision(deps: Deps, doc: PostDoc, next: PostFields): Promise<boolean> {
  if (doc.headRevision === null) return true;
  if (doc.headRevision !== UNKNOWN && doc.headFingerprint) return doc.headFingerprint !== revisionFingerprint(next);
  const newest = await newestRevision(deps, doc._id);
  if (!newest) return true;
  return REVISIONED_FIELDS.some((field) => normalize(newest[field]) !== normalize(next[field]));
}

export interface UpdateOptions {
  ifMatch?: number;
  /** `restored` when a revision's content is made current. */
  type?: 'updated' | 'trashed' | 'untrashed' | 'restored';
  fromRevision?: number;
  /** Whether this type keeps revisions at all. */
  revisions?: boolean;
}

/** Changes an item; `changes` may be computed from the current item (for trash, restore). */
export async function updatePost(
  deps: Deps,
  id: number,
  changes: Partial<PostFields> | ((doc: PostDoc) => Partial<PostFields>),
  actor: number,
  options: UpdateOptions = {},
): Promise<PostDoc> {
  const { doc } = await commit(
    deps,
    id,
    actor,
    async (current) => {
      const now = await siteNow(deps);
      const wanted = typeof changes === 'function' ? changes(current) : changes;
      const full: Partial<PostFields> = { ...wanted, modified: now.local, modifiedGmt: now.gmt };
      const next = { ...fieldsOf(current), ...full };
      const data: PostChanged = { changes: full };
      if (options.revisions !== false && (await needsRevision(deps, current, next))) data.revisionId = await deps.ids.next('content');
      if (options.fromRevision !== undefined) data.fromRevision = options.fromRevision;
      return { type: options.type ?? 'updated', data };
    },
    options.ifMatch,
  );
  return doc!;
}

/** Moves an item to the trash, remembering its status and freeing its slug (`__trashed`). */
export function trashPost(deps: Deps, id: number, actor: number, options: UpdateOptions = {}): Promise<PostDoc> {
  return updatePost(
    deps,
    id,
    (doc) => ({ status: 'trash', trashedFrom: doc.status, slug: doc.slug ? `${doc.slug}__trashed` : doc.slug }),
    actor,
    { ...options, type: 'trashed' },
  );
}

/** Makes a revision's title, content and excerpt current again; the restore makes a new revision. */
export function restoreRevision(deps: Deps, id: number, revision: RevisionDoc, actor: number, options: UpdateOptions = {}): Promise<PostDoc> {
  return updatePost(deps, id, { title: revision.title, content: revision.content, excerpt: revision.excerpt }, actor, {
    ...options,
    type: 'restored',
    fromRevision: revision._id,
  });
}

export type AutosaveResult = { inPlace: true; doc: PostDoc } | { inPlace: false; doc: PostDoc; autosave: RevisionDoc };

/**
 * WordPress's autosave (`WP_REST_Autosaves_Controller::create_item`): the author's own draft is
 * saved in place, with no revision; otherwise the caller's one autosave of the item is created
 * or updated, and nothing is written when the submitted fields equal the item's.
 */
export async function autosavePost(deps: Deps, id: number, changes: Partial<PostFields>, actor: number): Promise<AutosaveResult> {
  const revisions = revisionsCollection(deps.store.db);
  let autosaveId = 0;
  const { doc } = await commit(deps, id, actor, async (current) => {
    // Decided afresh on every attempt: a retry may take the other path.
    autosaveId = 0;
    const now = await siteNow(deps);
    if ((current.status === 'draft' || current.status === 'auto-draft') && current.author === actor) {
      const data: PostAutosaved = { inPlace: true, changes: { ...changes, modified: now.local, modifiedGmt: now.gmt } };
      return { type: 'autosaved', data };
    }
    const existing = await revisions.findOne({ parent: id, kind: 'autosave', author: actor }, { sort: { date: -1, _id: -1 } });
    const submitted = REVISIONED_FIELDS.filter((field) => changes[field] !== undefined);
    const differs = submitted.some((field) => normalize(String(changes[field])) !== normalize(current[field]));
    if (existing && !differs) {
      autosaveId = existing._id;
      return null;
    }
    autosaveId = existing?._id ?? (await deps.ids.next('content'));
    const fields = Object.fromEntries(
      REVISIONED_FIELDS.map((field) => [field, changes[field] !== undefined ? String(changes[field]) : (existing?.[field] ?? '')]),
    ) as Record<RevisionedField, string>;
    const data: PostAutosaved = { inPlace: false, autosaveId, isNew: !existing, fields, date: now.local, dateGmt: now.gmt };
    return { type: 'autosaved', data };
  });
  if (autosaveId === 0) return { inPlace: true, doc: doc! };
  return { inPlace: false, doc: doc!, autosave: (await revisions.findOne({ _id: autosaveId }))! };
}

/** Deletes a revision and erases its content from the log, keeping what is still live elsewhere. */
export async function deleteRevision(deps: Deps, id: number, revision: RevisionDoc, actor: number): Promise<void> {
  await commit(deps, id, actor, async () => ({ type: 'revision_deleted', data: { revisionId: revision._id } }));
  const { db } = deps.store;
  const post = await postsCollection(db).findOne({ _id: id });
  const gone: Partial<Record<RevisionedField, string>> = {};
  for (const field of REVISIONED_FIELDS) {
    const value = revision[field];
    if (!value || post?.[field] === value) continue;
    if (await revisionsCollection(db).findOne({ parent: id, [field]: value }, { projection: { _id: 1 } })) continue;
    gone[field] = value;
  }
  await eraseFromLog(deps, id, (field, value) => gone[field as RevisionedField] === value);
}

/** Deletes an item for good: its revisions and autosaves go, and its content is erased from the log. */
export async function deletePost(deps: Deps, id: number, actor: number): Promise<void> {
  await commit(deps, id, actor, async () => ({ type: 'deleted', data: {} }));
  await eraseFromLog(deps, id, (field) => CONTENT_FIELDS.includes(field));
}

/** What a force delete erases: the item's own words and secrets. */
const CONTENT_FIELDS: readonly string[] = [...REVISIONED_FIELDS, 'password', 'meta'];

/** Blanks, in every event of the stream, each content field for which `erase(field, value)` holds. */
async function eraseFromLog(deps: Deps, id: number, erase: (field: string, value: unknown) => boolean): Promise<void> {
  const blank = (field: string) => (field === 'meta' ? {} : '');
  await changeLog(deps.store.db).redact<Record<string, unknown>>(id, (event) => {
    const fields: string[] = [];
    const scrub = (record: Record<string, unknown> | undefined) => {
      if (!record) return record;
      const out = { ...record };
      for (const field of CONTENT_FIELDS) {
        if (field in out && erase(field, out[field]) && JSON.stringify(out[field]) !== JSON.stringify(blank(field))) {
          out[field] = blank(field);
          fields.push(field);
        }
      }
      return out;
    };
    const data = { ...event.data };
    if (data.fields) data.fields = scrub(data.fields as Record<string, unknown>);
    if (data.changes) data.changes = scrub(data.changes as Record<string, unknown>);
    return fields.length ? { data, fields } : null;
  });
}

/**
 * WordPress's `wp_unique_post_slug`: a slug taken by another item of the type gets `-2`, `-3`...
 * Hierarchical types only clash among siblings.
 */
export async function uniqueSlug(deps: Pick<Deps, 'store'>, type: string, wanted: string, id: number, parent?: number): Promise<string> {
  const base = sanitizeSlug(wanted);
  if (!base) return '';
  const posts = postsCollection(deps.store.db);
  const taken = async (slug: string) =>
    (await posts.findOne({ type, slug, _id: { $ne: id }, ...(parent !== undefined ? { parent } : {}) }, { projection: { _id: 1 } })) !== null;
  let slug = base;
  for (let suffix = 2; await taken(slug); suffix++) slug = `${base}-${suffix}`;
  return slug;
}

