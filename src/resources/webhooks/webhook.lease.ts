import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { type Db } from 'mongodb';
import { isDuplicateKey } from '../../store/mongo.js';

/** How long a lease lasts without being renewed: how long deliveries wait after their deliverer froze. */
export const LEASE_MS = 15_000;
/** The holder stops this long before its lease ends, so that its last request is over before another process may begin. */
const LEASE_MARGIN_MS = 5_000;
/** A holder renews at most this often, however often it looks. */
const RENEW_EVERY_MS = 2_000;

interface LeaseDoc {
  /** The term: 1, 2, 3…, one document each, claimed under the `_id` index. */
  _id: number;
  owner: string;
  until: Date;
}

/**
 * The right to deliver webhooks, held by one process at a time. Each holder claims the next term
 * by inserting its document (the unique `_id` index lets one process in); it renews its term while
 * it runs, and a process may claim the next term once the current one has run out, or at once
 * when its holder is a process of this machine that no longer exists (a `kill -9`). A holder that
 * could not renew stops delivering before its term ends by its own clock, and one that sees a
 * later term stops at once. Terms run 1..n without gaps, so the current one is found by key.
 */
export function deliveryLease(db: Db, clock: () => Date) {
  const leases = db.collection<LeaseDoc>('webhook_leases');
  const owner = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let held: { term: number; until: number; renewed: number } | undefined;
  let knownTop = 0;

  const exists = async (term: number) => (await leases.findOne({ _id: term }, { projection: { _id: 1 } })) !== null;

  /** The highest term claimed (0: none), by doubling then halving steps from the last one seen. */
  const currentTerm = async (): Promise<number> => {
    let below = knownTop;
    let step = 1;
    while (await exists(below + step)) {
      below += step;
      step *= 2;
    }
    let above = below + step;
    while (above - below > 1) {
      const middle = Math.floor((below + above) / 2);
      if (await exists(middle)) below = middle;
      else above = middle;
    }
    knownTop = below;
    return below;
  };

  return {
    owner,
    /** Whether this process may deliver now (its own clock against its term's end, less a margin). */
    holds: () => held !== undefined && clock().getTime() < held.until - LEASE_MARGIN_MS,

    /** Renews the term this process holds, or claims the next one when the current one is over. */
    async tick(): Promise<boolean> {
      const now = clock().getTime();
      if (held && now < held.until - LEASE_MARGIN_MS) {
        if (now < held.renewed + RENEW_EVERY_MS) return true;
        if (await exists(held.term + 1)) {
          held = undefined;
          return false;
        }
        await leases.updateOne({ _id: held.term, owner }, { $set: { until: new Date(now + LEASE_MS) } });
        held.until = now + LEASE_MS;
        held.renewed = now;
        return true;
      }
      held = undefined;
      const term = await currentTerm();
      if (term > 0) {
        const current = await leases.findOne({ _id: term });
        if (current && current.owner !== owner && current.until.getTime() > now && ownerMayLive(current.owner)) return false;
      }
      try {
        await leases.insertOne({ _id: term + 1, owner, until: new Date(now + LEASE_MS) });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        return false;
      }
      knownTop = term + 1;
      held = { term: term + 1, until: now + LEASE_MS, renewed: now };
      return true;
    },

    /** Ends this process's term at once, so that another process takes over without waiting it out. */
    async release(): Promise<void> {
      const term = held?.term;
      held = undefined;
      if (term !== undefined) await leases.updateOne({ _id: term, owner }, { $set: { until: new Date(0) } });
    },
  };
}

export type DeliveryLease = ReturnType<typeof deliveryLease>;

/** False only when `owner` names a process of this machine that is gone. */
function ownerMayLive(owner: string): boolean {
  const [host, pid] = owner.split(':');
  if (host !== os.hostname() || Number(pid) === process.pid) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
