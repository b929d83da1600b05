import { type Db } from 'mongodb';
import { type Deps } from '../../deps.js';
import { WriteConflict } from '../../rest/errors.js';
import { changeLog, ConcurrencyError } from '../../store/log/change-log.js';
import { isDuplicateKey } from '../../store/database/mongo.js';
import { siteChanges } from '../../store/coordination/site-changes.js';
import { nameOfUser } from '../users/index.js';
import { PostLocked } from './lock.errors.js';
import { LOCK_STREAM_TYPE, lockStream, isLockEvent, type LockEvent, type LockEventData, type LockEventType } from './lock.events.js';
import { ends, generationId, holds, lapseDue, locksCollection, type LockDoc } from './lock.model.js';

export type LockDeps = Pick<Deps, 'store' | 'clock' | 'config'>;

/** The item a lock is on: its lock's key, and the id and type its lock events name it by. */
export interface LockTarget {
  key: string;
  id: number;
  type: string;
}

/**
 * The newest generation of the item's lock (null: never locked), from its head and on through any
 * generation claimed after it. With the item's `stream` (its lock events'), a generation whose
 * event was stored but whose document was not (its writer stopped between the two) is written
 * from the event and read on: the event is the commit point.
 */
export async function newestGeneration(deps: LockDeps, key: string, stream?: number): Promise<LockDoc | null> {
  const locks = locksCollection(deps.store.db);
  let newest = await locks.findOne({ _id: key });
  // An item never locked (most items a write reaches) has no head; a generation's event is stored
  // before its document (`claimNext`), so with no first event there is no first document either.
  if (!newest && stream !== undefined && !(await changeLog(deps.store.db).holds(stream, 1))) return null;
  for (;;) {
    const generation = (newest?.generation ?? 0) + 1;
    const next = (await locks.findOne({ _id: generationId(key, generation) })) ?? (stream === undefined ? null : await generationFromEvent(deps, key, stream, generation));
    if (!next) return newest;
    newest = next;
  }
}

/** The generation the lock event at `generation` records, written to the collection (null: no such event). */
async function generationFromEvent(deps: LockDeps, key: string, stream: number, generation: number): Promise<LockDoc | null> {
  const [event] = await changeLog(deps.store.db).readSeqs<LockEventData>(stream, generation, generation);
  if (!event || !isLockEvent(event)) return null;
  return writeGeneration(deps, generationOf(key, event as LockEvent));
}

/** The generation a lock event records. */
function generationOf(key: string, event: LockEvent): LockDoc {
  const { user, since, refreshedAt, lapsesAt } = event.data;
  return {
    _id: generationId(key, event.seq),
    item: key,
    generation: event.seq,
    user,
    since: new Date(since),
    refreshedAt: new Date(refreshedAt),
    lapsesAt: new Date(lapsesAt),
    ...(event.type === 'released' ? { released: true } : {}),
    ...(event.type === 'lapsed' ? { lapsed: true } : {}),
    itemId: event.data.item,
    itemType: event.data.item_type,
  };
}

/** Items' newest generations kept per process, by key, until anything changes (a lock's writes move the site's change token, as every write does). */
interface KeptGenerations {
  newest: Map<string, LockDoc | null>;
  /** Counts emptyings: a read begun before one is not kept. */
  emptied: number;
}
const KEPT_GENERATIONS = 10_000;
const keptByDatabase = new WeakMap<Db, KeptGenerations>();

function keptGenerations(db: Db): KeptGenerations {
  let kept = keptByDatabase.get(db);
  if (!kept) {
    const fresh: KeptGenerations = { newest: new Map(), emptied: 0 };
    siteChanges(db).onChange(() => {
      fresh.newest.clear();
      fresh.emptied++;
    });
    keptByDatabase.set(db, (kept = fresh));
  }
  return kept;
}

/**
 * The newest generation as `newestGeneration` reads it, kept until the next change: an editor's
 * lists in edit context carry each item's lock, two reads by key an item when read afresh.
 */
async function keptNewestGeneration(deps: LockDeps, key: string): Promise<LockDoc | null> {
  const kept = keptGenerations(deps.store.db);
  if (kept.newest.has(key)) return kept.newest.get(key)!;
  const emptied = kept.emptied;
  const newest = await newestGeneration(deps, key);
  if (kept.emptied === emptied) {
    if (kept.newest.size >= KEPT_GENERATIONS) kept.newest.delete(kept.newest.keys().next().value!);
    kept.newest.set(key, newest);
  }
  return newest;
}

/**
 * The lock holding on the item with this key, or null when it is free (never taken, released or
 * lapsed). `fresh`: read from the database, not as kept (what a write decides on).
 */
export async function currentLock(deps: LockDeps, key: string, options: { fresh?: boolean; item?: number } = {}): Promise<LockDoc | null> {
  const lock = options.fresh ? await newestGeneration(deps, key, options.item === undefined ? undefined : lockStream(options.item)) : await keptNewestGeneration(deps, key);
  return holds(lock, deps.clock()) ? lock : null;
}

/** An item's lock as a write names it: its key, and the item's id (its lock events' stream). */
export type LockRef = Pick<LockTarget, 'key' | 'id'>;

/**
 * Who holds the item's lock, when someone other than `actor` does: what a write records
 * (`locked_by`). Read fresh, as part of the write's decision, before anything is stored: a read
 * the database fails fails the write with nothing written, never a write already made.
 */
export async function otherHolder(deps: LockDeps, target: LockRef, actor: number): Promise<number | undefined> {
  const lock = await currentLock(deps, target.key, { fresh: true, item: target.id });
  return lock && lock.user !== actor ? lock.user : undefined;
}

/**
 * Whether an item's answer to this request carries its lock: a read's does. A write's answer is
 * made after the write committed, and must not read what the write did not need: the database
 * gone away at that moment would turn a stored write into an error answer. A write's lost answer,
 * made again from the item, looks as the write's own did.
 */
export const answerCarriesLock = (req: { answersWrite: boolean }) => !req.answersWrite;

/** The locks holding on these items, by key (a page of items read in edit context). */
export async function currentLocks(deps: LockDeps, keys: readonly string[]): Promise<Map<string, LockDoc>> {
  const found = new Map<string, LockDoc>();
  const locks = await Promise.all(keys.map((key) => currentLock(deps, key)));
  keys.forEach((key, index) => locks[index] && found.set(key, locks[index]));
  return found;
}

/**
 * Claims the generation after `after` with `state`: first its lock event, at that seq of the item's
 * lock stream (the commit point, and its place on the log's clock), then its document and the head.
 * Null when another claimed it first: its document is then written from its event if missing, and
 * the caller decides again. Once the event is stored the claim stands: a document the database
 * fails to take is written by the next reader that knows the item (`newestGeneration`).
 */
async function claimNext(
  deps: LockDeps,
  target: LockTarget,
  after: number,
  state: Pick<LockDoc, 'user' | 'since' | 'refreshedAt' | 'lapsesAt' | 'released' | 'lapsed'>,
  event: { type: LockEventType; actor: number; previous?: number },
): Promise<LockDoc | null> {
  const stream = lockStream(target.id);
  const claimed: LockDoc = { _id: generationId(target.key, after + 1), item: target.key, generation: after + 1, ...state, itemId: target.id, itemType: target.type };
  const data: LockEventData = {
    item: target.id,
    item_type: target.type,
    key: target.key,
    user: state.user,
    ...(event.previous !== undefined ? { previous: event.previous } : {}),
    since: state.since.toISOString(),
    refreshedAt: state.refreshedAt.toISOString(),
    lapsesAt: state.lapsesAt.toISOString(),
  };
  try {
    await changeLog(deps.store.db).append({ stream, streamType: LOCK_STREAM_TYPE, type: event.type, at: deps.clock(), actor: event.actor, data }, after);
  } catch (error) {
    if (!(error instanceof ConcurrencyError)) throw error;
    await generationFromEvent(deps, target.key, stream, after + 1);
    return null;
  }
  try {
    await writeGeneration(deps, claimed);
  } catch {
    // Stored as its event: the next fresh read of the lock writes the document.
  }
  return claimed;
}

/**
 * Writes a claimed generation and copies it to the head, unconditionally: a head left behind by a
 * slower writer is read past (`newestGeneration`), and, left open, set right by the scheduler
 * (`lapseDueLocks`). The head is `open` unless the generation ended the lock.
 */
export async function writeGeneration(deps: LockDeps, claimed: LockDoc): Promise<LockDoc> {
  const locks = locksCollection(deps.store.db);
  // Named by its generation, also when read from the head.
  const { _id: _readAs, open: _open, ...generation } = claimed;
  try {
    await locks.insertOne({ _id: generationId(claimed.item, claimed.generation), ...generation });
  } catch (error) {
    // Written already, from its event.
    if (!isDuplicateKey(error)) throw error;
  }
  const head = { ...generation, ...(ends(claimed) ? {} : { open: true as const }) };
  try {
    await locks.replaceOne({ _id: claimed.item }, head, { upsert: true });
  } catch (error) {
    // Two first heads at once: the other's stands, and is read past.
    if (!isDuplicateKey(error)) throw error;
  }
  return claimed;
}

export interface TakeOptions {
  /** `take_over`: take the lock from another holder (the caller may edit the item: the route checked). */
  takeOver: boolean;
}

/**
 * Takes the lock for `user`, or refreshes it when `user` holds it (`wp_set_post_lock`). A take
 * (of a free item, a lapsed or released lock, or another's with `take_over`) claims the next
 * generation: of two takers at once one claims it, and the other, finding it claimed, decides
 * again against the new holder (a 409, unless it takes over). A refresh moves the holder's
 * generation on; claimed past meanwhile, the refresh was too late, and is decided again too.
 *
 * A lock found lapsed with no event saying so yet (the scheduler records lapses as they come, and
 * this take came first) has its lapse recorded before the take (`lapseLock`): the feed then always
 * shows a holder's generation ended, by a take-over, a release or a lapse, before the next `taken`,
 * whoever noticed the lapse. Of the take's lapse and the scheduler's, one claims the generation.
 */
export async function takeLock(deps: LockDeps, target: LockTarget, user: number, options: TakeOptions): Promise<LockDoc> {
  const { key } = target;
  const locks = locksCollection(deps.store.db);
  const windowMs = deps.config.lockWindowSeconds * 1000;
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = deps.clock();
    const lapsesAt = new Date(now.getTime() + windowMs);
    let newest = await newestGeneration(deps, key, lockStream(target.id));
    if (lapseDue(newest, now)) newest = (await lapseLock(deps, target, newest)) ?? (await newestGeneration(deps, key, lockStream(target.id)));
    const generation = newest?.generation ?? 0;
    let previous: number | undefined;
    if (holds(newest, now)) {
      if (newest.user === user) {
        const times = { refreshedAt: now, lapsesAt };
        await locks.updateOne({ _id: generationId(key, generation), user }, { $set: times });
        await locks.updateOne({ _id: key, generation, user }, { $set: times });
        const claimedPast = (await locks.findOne({ _id: generationId(key, generation + 1) }, { projection: { _id: 1 } })) !== null || (await changeLog(deps.store.db).holds(lockStream(target.id), generation + 1));
        if (!claimedPast) return { ...newest, ...times };
        continue;
      }
      if (!options.takeOver) throw await lockedBy(deps, newest);
      previous = newest.user;
    }
    const taken = await claimNext(deps, target, generation, { user, since: now, refreshedAt: now, lapsesAt }, {
      type: previous === undefined ? 'taken' : 'taken_over',
      actor: user,
      ...(previous !== undefined ? { previous } : {}),
    });
    if (taken) return taken;
  }
  // Lost twice to others taking it at the same moment: whoever holds it now keeps it.
  const holder = await currentLock(deps, key, { fresh: true, item: target.id });
  if (holder?.user === user) return holder;
  throw holder ? await lockedBy(deps, holder) : new WriteConflict();
}

/** The 409 naming the holder, as WordPress's notice names the user editing the post. */
async function lockedBy(deps: LockDeps, lock: LockDoc) {
  const name = (await nameOfUser(deps.store.db, lock.user)) ?? 'Someone';
  return new PostLocked(name, { user: lock.user, name, lapses: lock.lapsesAt.toISOString().slice(0, 19) });
}

/**
 * Releases the lock as it was read: claims the generation after it, marked released. A lock taken
 * over meanwhile is not released by a request that decided on the one before: false.
 */
export async function releaseLock(deps: LockDeps, target: LockTarget, lock: LockDoc, actor: number): Promise<boolean> {
  const { user, since, refreshedAt, lapsesAt } = lock;
  return (await claimNext(deps, target, lock.generation, { user, since, refreshedAt, lapsesAt, released: true }, { type: 'released', actor })) !== null;
}

/**
 * Records that the lock lapsed: claims the generation after it, marked lapsed, as a release does,
 * with a `lock.lapsed` event naming the holder, who is also its actor (their editor stopped
 * refreshing it, as a scheduled publication is its author's). Its data's `lapsesAt` is the moment
 * the lock lapsed; the event's `at`, like every event's, is when it was recorded (the scheduler
 * records it when that moment comes, a take that finds it first at once), so that time and
 * position agree on the log. Null when another claimed the generation first (a take, or another
 * recorder of the same lapse): once per lapsed generation, whoever tries.
 */
export function lapseLock(deps: LockDeps, target: LockTarget, lock: LockDoc): Promise<LockDoc | null> {
  const { user, since, refreshedAt, lapsesAt } = lock;
  return claimNext(deps, target, lock.generation, { user, since, refreshedAt, lapsesAt, lapsed: true }, { type: 'lapsed', actor: user });
}
