import { setTimeout as delay } from 'node:timers/promises';
import { type Deps } from '../../deps.js';
import { leaseMs, workLease } from '../../store/coordination/lease.js';
import { asServiceWork } from '../../store/queries/service-work.js';
import { siteChanges } from '../../store/coordination/site-changes.js';
import { lapseDueLocks, nextLockLapseAt } from '../locks/index.js';
import { type BackgroundWork } from '../manifest.js';
import { postsCollection } from './post.model.js';
import { publishDue } from './post.side-effects.js';
import { applyDueChanges, nextScheduledChangeAt } from './scheduled-change.commands.js';

/** The longest a publication (its command and the hooks after it) is reckoned to take: the lease covers it whole. */
const PUBLISH_MS = 2000;
/** How long after its holder's last renewal another process may take the scheduling lease over. */
export const SCHEDULER_LEASE_MS = leaseMs(PUBLISH_MS);
/**
 * How often the holder looks at the site's change token (one read by key) while it waits: a
 * write through another process that schedules an item, or brings one forward, is heard of
 * within this long. Writes through this process are heard of at once.
 */
const LOOK_MS = 500;
/**
 * The holder reads the scheduled items at most this often after writes it heard of: an item is
 * scheduled at least a minute ahead (a nearer date publishes it at once), so a busy site's writes
 * cost one read in this long, not one each.
 */
const READ_EVERY_MS = 500;
/** How often the holder reads the scheduled items anyway: what no write announced (a script's append). */
const RESCAN_MS = 5000;
/** How often a process that does not hold the lease looks at it when it knows of no moment to (at start, after an error). */
const CLAIM_LOOK_MS = 5000;

/** When a scheduled item's `date_gmt` (a GMT date without zone, to the second) comes; NaN for none. */
const dueAt = (dateGmt: string | null | undefined) => (dateGmt ? Date.parse(`${dateGmt}Z`) : Number.NaN);

/** What the scheduler last read, and whether a write was heard of since. */
interface ScheduleState {
  /** When the next scheduled item comes, or the next lock lapses (NaN: none), as last read. */
  next: number;
  /** When the soonest open lock lapses (NaN: none), as last read; read again after a write heard of, or a lapse recorded. */
  nextLapse: number;
  locksRead: boolean;
  /** When `next` was read. */
  readAt: number;
  heard: boolean;
}

/** The sooner of two moments, NaN being none. */
const sooner = (current: number, candidate: number) => (!Number.isNaN(candidate) && !(candidate >= current) ? candidate : current);

/** Reads when the next scheduled item, scheduled change or lock lapse comes. */
async function readNext(deps: Deps, state: ScheduleState): Promise<void> {
  // Only a write (heard of) takes, refreshes or releases a lock.
  if (state.heard) state.locksRead = false;
  state.heard = false;
  state.readAt = performance.now();
  // Every scheduled item's date, the earliest taken here: the embedded database pushes down the
  // equality alone (a sort or a limit would have it decode every scheduled item anyway), and a
  // site schedules few items at a time.
  const scheduled = await postsCollection(deps.store.db).find({ status: 'future' }, { projection: { dateGmt: 1 } }).toArray();
  // The soonest scheduled change too (`scheduled-change.commands.ts`).
  state.next = await nextScheduledChangeAt(deps);
  if (!state.locksRead) {
    state.nextLapse = await nextLockLapseAt(deps);
    state.locksRead = true;
  }
  state.next = sooner(state.next, state.nextLapse);
  for (const doc of scheduled) state.next = sooner(state.next, dueAt(doc.dateGmt));
}

/** A pause that ends early when woken, or when the work stops. */
function wakeableSleep(stopping: AbortSignal) {
  let wake = () => {};
  return {
    wake: () => wake(),
    async sleep(ms: number): Promise<void> {
      const sleeping = new AbortController();
      const stop = () => sleeping.abort();
      stopping.addEventListener('abort', stop, { once: true });
      wake = stop;
      await delay(ms, undefined, { signal: sleeping.signal }).catch(() => {});
      wake = () => {};
      stopping.removeEventListener('abort', stop);
    },
  };
}

/**
 * The scheduler (WordPress's `publish_future_post` cron event, without a request to run it): run
 * by every service process, it works only in the holder of the scheduling lease (`workLease`,
 * terms in `scheduler_leases`), which another process takes over within the lease's bound once
 * the holder stops renewing it (killed, or paused). The holder reads when the next scheduled
 * item of any post type comes, sleeps until then and publishes every item then due through
 * `publishScheduledPost`, so the history, the change feed and the webhooks record the moment of
 * publication; and applies every scheduled change then due (`applyDueChanges`), as an update by
 * whoever scheduled it. It also wakes when the soonest open edit lock lapses, and records every lapse
 * then due as `lock.lapsed` (`lapseDueLocks`), so that the feed says so with nobody on the site. It
 * reads the scheduled items again after a write that may have changed them (heard of at once from
 * this process, within `LOOK_MS` from others, through the site's change token; at most every
 * `READ_EVERY_MS`), and every `RESCAN_MS`; the open locks only after a write (every take, refresh
 * and release is a request, which moves the token) or a lapse recorded, so that an idle site
 * costs no more reads than before.
 *
 * A publication starts only while the term covers it: two holders, one of them past its term,
 * would at worst both try, and the command appends nothing for an item no longer scheduled.
 */
export function startScheduler(deps: Deps): BackgroundWork {
  const db = deps.store.db;
  const lease = workLease(db, { collection: 'scheduler_leases', workMs: PUBLISH_MS });
  const logger = deps.logger.child({ component: 'scheduler' });
  const stopping = new AbortController();
  const changes = siteChanges(db);
  const state: ScheduleState = { next: Number.NaN, nextLapse: Number.NaN, locksRead: false, readAt: Number.NEGATIVE_INFINITY, heard: true };
  let lastClaimLook = Number.NEGATIVE_INFINITY;
  const sleeper = wakeableSleep(stopping.signal);
  changes.onChange(() => {
    if (state.heard) return;
    state.heard = true;
    sleeper.wake();
  });

  /** One turn of the loop; how long to wait before the next. */
  async function turn(): Promise<number> {
    if (!lease.holds()) {
      if (!lease.lookDue() && performance.now() - lastClaimLook < CLAIM_LOOK_MS) return LOOK_MS;
      lastClaimLook = performance.now();
      if (!(await lease.tick())) return LOOK_MS;
      logger.info('this process publishes scheduled items');
      state.heard = true;
    }
    // Renews the term every few seconds, at once when it no longer covers a publication.
    if (!(await lease.tick())) return LOOK_MS;
    const sinceRead = performance.now() - state.readAt;
    if ((state.heard && sinceRead >= READ_EVERY_MS) || sinceRead >= RESCAN_MS) await readNext(deps, state);
    const wait = state.next - deps.clock().getTime();
    if (wait <= 0) {
      if (!lease.covers()) return LOOK_MS;
      const lapseCame = state.nextLapse <= deps.clock().getTime();
      const lapsed = lapseCame ? await lapseDueLocks(deps) : 0;
      // The open locks are read again: the lapses recorded, or a lock refreshed since it was read.
      if (lapseCame) state.locksRead = false;
      const due = (await publishDue(deps)) + (await applyDueChanges(deps)) + lapsed;
      // What was published moved the token: the next item is read at once, and may be due too.
      await readNext(deps, state);
      return due > 0 ? 0 : LOOK_MS;
    }
    if (!(wait <= LOOK_MS)) await changes.catchUp();
    // A write heard of meanwhile is read after at most READ_EVERY_MS (catching up may have heard one).
    const reading = state.heard ? Math.max(0, state.readAt + READ_EVERY_MS - performance.now()) : LOOK_MS;
    return Math.min(Number.isNaN(wait) ? LOOK_MS : wait, LOOK_MS, reading);
  }

  const running = asServiceWork('scheduler', async () => {
    while (!stopping.signal.aborted) {
      let pause = LOOK_MS;
      try {
        pause = await turn();
      } catch (error) {
        if (!stopping.signal.aborted) logger.warn({ err: error }, 'scheduler turn failed');
        state.heard = true;
        pause = RESCAN_MS;
      }
      if (pause <= 0 || stopping.signal.aborted) continue;
      await sleeper.sleep(pause);
    }
  });

  return {
    async stop() {
      stopping.abort();
      await running;
      await lease.release().catch(() => {});
    },
  };
}
