import { siteChanges } from '../../store/coordination/site-changes.js';
import { lapseLock, newestGeneration, writeGeneration, type LockDeps } from './lock.commands.js';
import { lockStream } from './lock.events.js';
import { lapseDue, locksCollection, type LockDoc } from './lock.model.js';

/**
 * The heads of the locks that are open: held, or lapsed with no event saying so yet. An equality
 * on one top-level field, which the embedded database pushes down, and no sort or limit (it would
 * decode every match for them anyway): few items are being edited at a time.
 */
function openLocks(deps: Pick<LockDeps, 'store'>): Promise<Pick<LockDoc, '_id' | 'item' | 'generation' | 'lapsesAt' | 'itemId' | 'itemType'>[]> {
  return locksCollection(deps.store.db)
    .find({ open: true }, { projection: { item: 1, generation: 1, lapsesAt: 1, itemId: 1, itemType: 1 } })
    .toArray();
}

/** When the soonest open lock lapses unless refreshed (epoch ms; NaN: none): when the scheduler next records lapses. */
export async function nextLockLapseAt(deps: Pick<LockDeps, 'store'>): Promise<number> {
  let soonest = Number.NaN;
  for (const head of await openLocks(deps)) {
    const at = head.lapsesAt.getTime();
    if (!(at >= soonest)) soonest = at;
  }
  return soonest;
}

/**
 * Records the lapse of every open lock whose window has passed by the clock (`lapseLock`: one
 * `lock.lapsed` event per lapsed generation, whichever process or take tries too), and tells the
 * other processes, whose kept locks may show them held. Each is decided on its newest generation,
 * read fresh: one refreshed, taken over or released since its head was written is left as it is,
 * and its head, if left behind, is written again from the newest, so that it is not read as due
 * again. How many lapses were recorded.
 */
export async function lapseDueLocks(deps: LockDeps): Promise<number> {
  const now = deps.clock();
  const due = (await openLocks(deps)).filter((head) => head.lapsesAt.getTime() <= now.getTime());
  let lapsed = 0;
  for (const head of due) {
    // Every open head names its item: `open` came with `itemId` and `itemType`.
    if (head.itemId === undefined || head.itemType === undefined) continue;
    const target = { key: head.item, id: head.itemId, type: head.itemType };
    const newest = await newestGeneration(deps, target.key, lockStream(target.id));
    if (!newest) continue;
    if (lapseDue(newest, now)) {
      if (await lapseLock(deps, target, newest)) lapsed++;
    } else {
      await writeGeneration(deps, newest);
    }
  }
  if (lapsed > 0) await siteChanges(deps.store.db).changed('content');
  return lapsed;
}
