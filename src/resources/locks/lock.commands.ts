import { type Db } from 'mongodb';
import { type Deps } from '../../deps.js';
import { WriteConflict } from '../../rest/errors.js';
import { isDuplicateKey } from '../../store/mongo.js';
import { siteChanges } from '../../store/site-changes.js';
import { nameOfUser } from '../users/index.js';
import { PostLocked } from './lock.errors.js';
import { generationId, holds, locksCollection, type LockDoc } from './lock.model.js';

type LockDeps = Pick<Deps, 'store' | 'clock' | 'config'>;

/** The newest generation of the item's lock (null: never locked), from its head and on through any generation claimed after it. */
async function newestGeneration(deps: LockDeps, key: string): Promise<LockDoc | null> {
  const locks = locksCollection(deps.store.db);
  let newest = await locks.findOne({ _id: key });
  for (;;) {
    const next = await locks.findOne({ _id: generationId(key, (newest?.generation ?? 0) + 1) });
    if (!next) return newest;
    newest = next;
  }
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
export async function currentLock(deps: LockDeps, key: string, options: { fresh?: boolean } = {}): Promise<LockDoc | null> {
  const lock = options.fresh ? await newestGeneration(deps, key) : await keptNewestGeneration(deps, key);
  return holds(lock, deps.clock()) ? lock : null;
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
 * Claims the generation after `after` with `state`, then copies it to the head; false when another
 * claimed it first. The head is written without a condition: one left behind by a slower writer
 * is read past (`newestGeneration`).
 */
async function claimNext(deps: LockDeps, key: string, after: number, state: Omit<LockDoc, '_id' | 'item' | 'generation'>): Promise<LockDoc | null> {
  const locks = locksCollection(deps.store.db);
  const claimed: LockDoc = { _id: generationId(key, after + 1), item: key, generation: after + 1, ...state };
  try {
    await locks.insertOne(claimed);
  } catch (error) {
    if (isDuplicateKey(error)) return null;
    throw error;
  }
  const { _id: _claimId, ...head } = claimed;
  try {
    await locks.replaceOne({ _id: key }, head, { upsert: true });
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
 */
export async function takeLock(deps: LockDeps, key: string, user: number, options: TakeOptions): Promise<LockDoc> {
  const locks = locksCollection(deps.store.db);
  const windowMs = deps.config.lockWindowSeconds * 1000;
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = deps.clock();
    const lapsesAt = new Date(now.getTime() + windowMs);
    const newest = await newestGeneration(deps, key);
    const generation = newest?.generation ?? 0;
    if (holds(newest, now)) {
      if (newest.user === user) {
        const times = { refreshedAt: now, lapsesAt };
        await locks.updateOne({ _id: generationId(key, generation), user }, { $set: times });
        await locks.updateOne({ _id: key, generation, user }, { $set: times });
        if ((await locks.findOne({ _id: generationId(key, generation + 1) }, { projection: { _id: 1 } })) === null) return { ...newest, ...times };
        continue;
      }
      if (!options.takeOver) throw await lockedBy(deps, newest);
    }
    const taken = await claimNext(deps, key, generation, { user, since: now, refreshedAt: now, lapsesAt });
    if (taken) return taken;
  }
  // Lost twice to others taking it at the same moment: whoever holds it now keeps it.
  const holder = await currentLock(deps, key, { fresh: true });
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
export async function releaseLock(deps: LockDeps, lock: LockDoc): Promise<boolean> {
  const { user, since, refreshedAt, lapsesAt } = lock;
  return (await claimNext(deps, lock.item, lock.generation, { user, since, refreshedAt, lapsesAt, released: true })) !== null;
}
