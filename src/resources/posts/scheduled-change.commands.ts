import { type Deps } from '../../deps.js';
import { formatRestDate } from '../../lib/site-dates.js';
import { findPostType, type PostTypeDef } from '../../registry/post-types.js';
import { RestError } from '../../rest/errors.js';
import { CannotEditPost, PostInvalidId } from '../post-errors.js';
import { changeLog } from '../../store/log/change-log.js';
import { siteChanges } from '../../store/coordination/site-changes.js';
import { eventsOfClaim, withWriteClaim } from '../../store/log/write-claims.js';
import { changedFields } from '../history/index.js';
import { rolesOfUser } from '../users/index.js';
import { postWireNames } from './post.changes.js';
import { updatePost, type AdmittedChanges } from './post.commands.js';
import { type PostAutosaved } from './post.events.js';
import { findPostOfType } from './post.history.js';
import { changesFromRequest, type Writer } from './post.input.js';
import { type PostDoc } from './post.model.js';
import { canEditPost } from './post.permissions.js';
import { carriedFields, pendingChanges, scheduledChangesCollection, type ScheduledChangeDoc } from './scheduled-change.model.js';


/**
 * The fields a change would set on `current`, admitted as an update by `writer` sending `fields`
 * would be (`changesFromRequest`): the same refusals, with the update's errors.
 */
export function admitScheduled(writer: Writer, deps: Deps, type: PostTypeDef, current: PostDoc, fields: Record<string, unknown>): Promise<AdmittedChanges> {
  return changesFromRequest({ user: writer.user, params: fields }, deps, type, current);
}

/**
 * The fields `change` carries that the item's events after `basedOnSeq` (up to `current`) changed,
 * named as those events' `/history` entries name them, in the order the change carries them.
 * Another user's autosave changes nothing of the item and is passed over. Undefined for a change
 * that did not record what it was based on.
 */
async function changedMeanwhile(deps: Pick<Deps, 'store'>, change: ScheduledChangeDoc, current: PostDoc): Promise<string[] | undefined> {
  if (change.basedOnSeq === undefined) return undefined;
  const changed = new Set<string>();
  for await (const event of changeLog(deps.store.db).foldSeqs(current._id, change.basedOnSeq + 1, current.version)) {
    if (event.type === 'autosaved' && !(event.data as PostAutosaved).inPlace) continue;
    for (const field of changedFields(event, postWireNames)) changed.add(field);
  }
  return Object.keys(carriedFields(change)).filter((field) => changed.has(field));
}

/** When the soonest pending change is due (epoch ms; NaN: none). */
export async function nextScheduledChangeAt(deps: Pick<Deps, 'store'>): Promise<number> {
  const [soonest] = await pendingChanges(deps.store.db);
  return soonest ? Date.parse(`${soonest.dateGmt}Z`) : Number.NaN;
}

/**
 * Applies one due change: an update of the item by the change's author, through the update's
 * input policy and command, on the item as it is now (only the fields the change carries), its
 * event naming the change, who scheduled it and which of its fields had changed meanwhile. A
 * change the update refuses (the item gone, the author no longer allowed) is marked failed with
 * the error's code; a fault of the service is thrown, and the change tried again later.
 *
 * The update and the mark are two writes. The update's event carries a write claim naming the
 * change as edited (as a request's `Idempotency-Key` does), so a process that stopped between
 * them finds, on its next turn, that the update was stored, and only marks it.
 */
async function applyScheduledChange(deps: Deps, change: ScheduledChangeDoc): Promise<boolean> {
  const changes = scheduledChangesCollection(deps.store.db);
  const finish = (set: Partial<ScheduledChangeDoc>) => changes.updateOne({ _id: change._id, state: 'pending', edits: change.edits }, { $set: { ...set, modified: deps.clock() } });
  const claim = `scheduled-change:${change._id}:${change.edits}`;
  const [stored] = await eventsOfClaim(deps.store.db, claim);
  if (stored) {
    await finish({ state: 'applied', appliedPosition: stored.position ?? null, appliedSeq: stored.seq });
    return true;
  }
  const type = findPostType(change.itemType);
  let after: PostDoc;
  let before: PostDoc;
  try {
    if (!type) throw new PostInvalidId();
    before = await findPostOfType(deps, type, change.item);
    const roles = await rolesOfUser(deps.store.db, change.author);
    const writer = { user: { id: change.author, roles: roles ?? [] } };
    if (roles === null || !canEditPost(writer.user, before)) throw new CannotEditPost(writer);
    const admitted = await admitScheduled(writer, deps, type, before, carriedFields(change));
    after = await withWriteClaim(claim, () =>
      updatePost(deps, before._id, admitted, change.author, {
        revisions: Boolean(type.supports.revisions),
        current: before,
        scheduled: { change: change._id, scheduledBy: change.author, changedMeanwhile: (current) => changedMeanwhile(deps, change, current) },
      }),
    );
  } catch (error) {
    if (!(error instanceof RestError) || error.status >= 500) throw error;
    await finish({ state: 'failed', failure: error.code });
    return false;
  }
  await finish({ state: 'applied', appliedPosition: after.position ?? null, appliedSeq: after.version });
  return true;
}

/** Applies every pending change whose time has come, soonest first; how many were applied. */
export async function applyDueChanges(deps: Deps): Promise<number> {
  const now = formatRestDate(deps.clock())!;
  const due = (await pendingChanges(deps.store.db)).filter((change) => change.dateGmt <= now);
  let applied = 0;
  for (const change of due) if (await applyScheduledChange(deps, change)) applied++;
  if (due.length > 0) await siteChanges(deps.store.db).changed('content');
  return applied;
}
