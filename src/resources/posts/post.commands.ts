import { type Deps } from '../../deps.js';
import { formatRestDate, formatSiteDate } from '../../lib/site-dates.js';
import { firstFreeSlug, sanitizeSlug } from '../../lib/slugs.js';
import { ifMatchPasses, type IfMatch } from '../../rest/conditional.js';
import { createItem, runCommand, type Decide } from '../../store/history/kernel.js';
import { otherHolder, type LockRef } from '../locks/index.js';
import { siteTimezone } from '../settings/index.js';
import { type PostAutosaved, type PostChanged, type PostEvent } from './post.events.js';
import { postHistory } from './post.history.js';
import {
  autosaveOf,
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

/** The site's current time, as local wall-clock and GMT strings. */
export async function siteNow(deps: Pick<Deps, 'store' | 'clock'>): Promise<{ local: string; gmt: string }> {
  const now = deps.clock();
  const timezone = await siteTimezone(deps);
  return { local: formatSiteDate(now, timezone)!, gmt: formatRestDate(now)! };
}

/**
 * Runs the kernel's command cycle on a post or page: the decisions below are all this file adds.
 * Commands of one `batch` key may be appended together (see `runCommand`).
 */
function commit(deps: Deps, id: number, actor: number, decide: Decide<PostDoc, PostEvent>, ifMatch?: IfMatch, current?: PostDoc, batch?: string) {
  return runCommand(deps, postHistory, id, actor, decide, {
    ...(ifMatch ? { precondition: (etag: string) => ifMatchPasses(ifMatch, etag) } : {}),
    ...(current ? { current } : {}),
    ...(batch ? { batch } : {}),
  });
}

/** Creates an item: the first event of its stream. No revision (WordPress makes none on create). */
export function createPost(deps: Deps, id: number, fields: PostFields, actor: number): Promise<PostDoc> {
  return createItem(deps, postHistory, fields.type, id, actor, { type: 'created', data: { fields } });
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

declare const admitted: unique symbol;

/**
 * Fields a write of an item may set. Only two things make them: the input policy, for what a
 * caller asks (`admitPostChanges`, and `admitRestored` for what a caller restores), and
 * `siteChanges`, for what the site does itself as the consequence of something admitted before
 * (a schedule coming due, a deleted user's items handed over, a deleted image no longer
 * featured, an item trashed by who may delete it). No path writes an item's fields without
 * choosing one.
 */
export type AdmittedChanges = Partial<PostFields> & { readonly [admitted]: true };

/** The site's own change, admitted by what caused it (see `AdmittedChanges`). */
export const siteChanges = (changes: Partial<PostFields>) => changes as AdmittedChanges;

export interface UpdateOptions {
  /** The client's `If-Match`: a changed item is refused with 412. */
  ifMatch?: IfMatch;
  /** `restored` when a revision's content is made current. */
  type?: 'updated' | 'trashed' | 'untrashed' | 'restored';
  fromRevision?: number;
  /** `restored` as of a point: the position whose state is made current. */
  fromPosition?: number;
  /**
   * The scheduled change the update applies, recorded with it; which of its fields changed
   * meanwhile is read for the item the command decides on (a retry decides on a newer one).
   */
  scheduled?: { change: number; scheduledBy: number; changedMeanwhile: (current: PostDoc) => Promise<string[] | undefined> };
  /** Whether this type keeps revisions at all. */
  revisions?: boolean;
  /** Leaves `modified` as it is: a change made for the site, not an edit (a deleted author's items). */
  keepModified?: boolean;
  /** The item as the request read it (for its permission check), so the command need not read it again. */
  current?: PostDoc;
  /** The item's edit lock (a caller's edit): another user holding it is recorded on the change (`lockedBy`). */
  lock?: LockRef;
}

/** Changes an item; `changes` may be computed from the current item (for trash, restore). */
export async function updatePost(
  deps: Deps,
  id: number,
  changes: AdmittedChanges | ((doc: PostDoc) => AdmittedChanges | Promise<AdmittedChanges>),
  actor: number,
  options: UpdateOptions = {},
): Promise<PostDoc> {
  const { state: doc } = await commit(
    deps,
    id,
    actor,
    async (current) => {
      const now = await siteNow(deps);
      const wanted = typeof changes === 'function' ? await changes(current) : changes;
      const full: Partial<PostFields> = options.keepModified ? { ...wanted } : { ...wanted, modified: now.local, modifiedGmt: now.gmt };
      const next = { ...fieldsOf(current), ...full };
      const data: PostChanged = { changes: full };
      if (options.revisions !== false && (await needsRevision(deps, current, next))) data.revisionId = await deps.ids.next('content');
      if (options.fromRevision !== undefined) data.fromRevision = options.fromRevision;
      if (options.fromPosition !== undefined) data.fromPosition = options.fromPosition;
      if (options.scheduled) {
        const { change, scheduledBy } = options.scheduled;
        const changedMeanwhile = await options.scheduled.changedMeanwhile(current);
        data.scheduled = { change, scheduledBy, ...(changedMeanwhile ? { changedMeanwhile } : {}) };
      }
      const holder = options.lock ? await otherHolder(deps, options.lock, actor) : undefined;
      if (holder !== undefined) data.lockedBy = holder;
      return { type: options.type ?? 'updated', data };
    },
    options.ifMatch,
    options.current,
    // Decided on the item alone (its head revision's fingerprint), so updates may be appended together.
    'update',
  );
  return doc!;
}

/**
 * Publishes a scheduled item whose time has come (WordPress's `wp_publish_post`): one `updated`
 * event, at the moment of publication, with no revision. Nothing is appended when the item is no
 * longer scheduled (another process published it first): null then.
 */
export async function publishScheduledPost(deps: Deps, id: number, actor: number): Promise<PostDoc | null> {
  const { state, event } = await commit(
    deps,
    id,
    actor,
    async (current) => {
      if (current.status !== 'future') return null;
      const now = await siteNow(deps);
      return { type: 'updated', data: { changes: { status: 'publish', modified: now.local, modifiedGmt: now.gmt } } };
    },
    undefined,
    undefined,
    'update',
  );
  return event ? state : null;
}

/** Moves an item to the trash, remembering its status and freeing its slug (`__trashed`). */
export function trashPost(deps: Deps, id: number, actor: number, options: UpdateOptions = {}): Promise<PostDoc> {
  return updatePost(
    deps,
    id,
    (doc) => siteChanges({ status: 'trash', trashedFrom: doc.status, slug: doc.slug ? `${doc.slug}__trashed` : doc.slug }),
    actor,
    { ...options, type: 'trashed' },
  );
}

/**
 * Makes a revision's title, content and excerpt current again, as `admit` lets them through for
 * the item the command decides on; the restore makes a new revision.
 */
export function restoreRevision(
  deps: Deps,
  id: number,
  revisionId: number,
  admit: (doc: PostDoc) => Promise<AdmittedChanges>,
  actor: number,
  options: UpdateOptions = {},
): Promise<PostDoc> {
  return updatePost(deps, id, admit, actor, { ...options, type: 'restored', fromRevision: revisionId });
}

export type AutosaveResult = { inPlace: true; doc: PostDoc } | { inPlace: false; doc: PostDoc; autosave: RevisionDoc };

/**
 * WordPress's autosave (`WP_REST_Autosaves_Controller::create_item`): the author's own draft is
 * saved in place, with no revision, unless another user holds its edit lock (`lock`: they took it
 * over, and their work is in the draft); otherwise the caller's one autosave of the item is
 * created or updated, and nothing is written when the submitted fields equal the item's.
 */
export async function autosavePost(
  deps: Deps,
  id: number,
  changes: Partial<PostFields>,
  actor: number,
  options: { current?: PostDoc; lock?: LockRef } = {},
): Promise<AutosaveResult> {
  const revisions = revisionsCollection(deps.store.db);
  let autosaveId = 0;
  const { state: doc, event, documents } = await commit(deps, id, actor, async (current, earlier) => {
    // Decided afresh on every attempt: a retry may take the other path.
    autosaveId = 0;
    const now = await siteNow(deps);
    const ownDraft = (current.status === 'draft' || current.status === 'auto-draft') && current.author === actor;
    if (ownDraft && !(options.lock && (await otherHolder(deps, options.lock, actor)) !== undefined)) {
      const data: PostAutosaved = { inPlace: true, changes: { ...changes, modified: now.local, modifiedGmt: now.gmt } };
      return { type: 'autosaved', data };
    }
    // The autosave an earlier command of this batch wrote, not yet projected; else the stored one.
    const existing =
      (earlier as RevisionDoc[]).filter((row) => row.kind === 'autosave' && row.parent === id && row.author === actor).at(-1) ??
      (await autosaveOf(deps.store.db, id, actor));
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
    const data: PostAutosaved = { inPlace: false, autosaveId, isNew: !existing, fields, sent: submitted, date: now.local, dateGmt: now.gmt };
    return { type: 'autosaved', data };
  }, undefined, options.current, `autosave:${actor}`);
  if (autosaveId === 0) return { inPlace: true, doc: doc! };
  // Saved: answered with the row the fold wrote, not read back. Unchanged: the stored one.
  const written = event ? (documents as RevisionDoc[]).find((row) => row._id === autosaveId) : undefined;
  return { inPlace: false, doc: doc!, autosave: written ?? (await revisions.findOne({ _id: autosaveId }))! };
}

/** Deletes a revision of `item` and erases its content from the log, keeping what is still live elsewhere. */
export async function deleteRevision(deps: Deps, item: PostDoc, revision: RevisionDoc, actor: number): Promise<void> {
  const revisions = revisionsCollection(deps.store.db);
  const id = item._id;
  await commit(deps, id, actor, async (post) => {
    const gone: Partial<Record<RevisionedField, string[]>> = {};
    for (const field of REVISIONED_FIELDS) {
      const value = revision[field];
      if (!value || post[field] === value) continue;
      if (await revisions.findOne({ parent: id, _id: { $ne: revision._id }, [field]: value }, { projection: { _id: 1 } })) continue;
      gone[field] = [value];
    }
    return { type: 'revision_deleted', data: { revisionId: revision._id }, erase: gone };
  }, undefined, item);
}

/** Deletes an item for good: its revisions and autosaves go, and its content is erased from the log. */
export async function deletePost(deps: Deps, id: number, actor: number, options: Pick<UpdateOptions, 'ifMatch' | 'current'> = {}): Promise<void> {
  await commit(deps, id, actor, async () => ({ type: 'deleted', data: {}, erase: 'all' }), options.ifMatch, options.current);
}

/**
 * WordPress's `wp_unique_post_slug`: a slug taken by another item of the type gets `-2`, `-3`...
 * Hierarchical types only clash among siblings.
 */
export async function uniqueSlug(deps: Pick<Deps, 'store'>, type: string, wanted: string, id: number, parent?: number): Promise<string> {
  const base = sanitizeSlug(wanted);
  if (!base) return '';
  const posts = postsCollection(deps.store.db);
  return firstFreeSlug(base, async (slug) =>
    (await posts.findOne({ type, slug, _id: { $ne: id }, ...(parent !== undefined ? { parent } : {}) }, { projection: { _id: 1 } })) !== null);
}

