import { type Db } from 'mongodb';
import { changeLog } from '../log/change-log.js';
import { isDuplicateKey } from '../database/mongo.js';
import { siteChanges } from '../coordination/site-changes.js';

/**
 * What a reader of the log by position (the change feed) needs beyond `readPositions`: how far
 * back the log still goes, and a way to wait for the next event without asking the database
 * once per waiting reader.
 */

/** The checkpoint naming the earliest position the log still holds: raised by whatever prunes history. */
export const RETENTION_CHECKPOINT = 'change_log_retention';

interface RetentionCheckpoint {
  _id: string;
  earliest: number;
}

const checkpoints = (db: Db) => db.collection<RetentionCheckpoint>('checkpoints');

/** The earliest position the log still holds: 1 until anything was pruned. */
export async function earliestRetainedPosition(db: Db): Promise<number> {
  return (await checkpoints(db).findOne({ _id: RETENTION_CHECKPOINT }))?.earliest ?? 1;
}

/** Records that positions below `earliest` are gone from the log (it never moves back). */
export async function recordRetention(db: Db, earliest: number): Promise<void> {
  const raised = await checkpoints(db).updateOne({ _id: RETENTION_CHECKPOINT, earliest: { $lt: earliest } }, { $set: { earliest } });
  if (raised.matchedCount) return;
  await checkpoints(db).insertOne({ _id: RETENTION_CHECKPOINT, earliest }).catch((error: unknown) => {
    // There already: recorded by another, at this position or later, or raised again below.
    if (!isDuplicateKey(error)) throw error;
    return checkpoints(db).updateOne({ _id: RETENTION_CHECKPOINT, earliest: { $lt: earliest } }, { $set: { earliest } });
  });
}

/** How often a process looks for a new position while someone waits for one (a write of another process tells it nothing). */
const WATCH_POLL_MS = 200;

interface Waiter {
  after: number;
  wake: () => void;
}

export interface PositionWatch {
  /**
   * Resolves once some row holds a position above `after`, at `timeoutMs`, or when `signal` is
   * aborted, whichever comes first; the caller reads the log again to see which.
   */
  waitBeyond(after: number, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** The highest position known to be held (0 before any look): a woken reader need read no further. */
  head(): number;
}

const watches = new WeakMap<Db, PositionWatch>();

/**
 * One watch of the log's head per process, however many readers wait: while any does, the head
 * is looked up every `WATCH_POLL_MS` by key (one read when nothing was appended), and at once when
 * this process hears of a write (`SiteChanges`: its own, or another's it caught up with). Nothing
 * is looked up while nobody waits.
 */
export function positionWatch(db: Db): PositionWatch {
  let watch = watches.get(db);
  if (!watch) watches.set(db, (watch = headWatch(db)));
  return watch;
}

function headWatch(db: Db): PositionWatch {
  const log = changeLog(db);
  const waiters = new Set<Waiter>();
  /** The highest position known to be held (every one up to it is, for a reader: see `readPositions`). */
  let head = 0;
  let looking: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const wakeBelowHead = () => {
    for (const waiter of waiters) if (waiter.after < head) waiter.wake();
  };

  function look(): void {
    if (looking) {
      again = true;
      return;
    }
    looking = log
      .firstFreePositionAfter(head)
      .then((free) => {
        head = Math.max(head, free - 1);
        wakeBelowHead();
      })
      // The database did not answer: the waiters time out and read again themselves.
      .catch(() => {})
      .finally(() => {
        looking = undefined;
        if (again) {
          again = false;
          look();
        }
      });
  }

  function schedule(): void {
    if (timer || waiters.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      look();
      schedule();
    }, WATCH_POLL_MS);
    timer.unref();
  }

  siteChanges(db).onChange(() => {
    if (waiters.size) look();
  });

  return {
    head: () => head,
    waitBeyond(after, timeoutMs, signal) {
      if (after < head || signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const waiter: Waiter = { after, wake: () => done() };
        const timeout = setTimeout(() => done(), timeoutMs);
        const done = () => {
          clearTimeout(timeout);
          signal?.removeEventListener('abort', done);
          waiters.delete(waiter);
          resolve();
        };
        signal?.addEventListener('abort', done, { once: true });
        waiters.add(waiter);
        look();
        schedule();
      });
    },
  };
}
