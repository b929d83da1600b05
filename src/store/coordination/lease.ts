import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { type Collection, type Db } from 'mongodb';
import { isDuplicateKey } from '../database/mongo.js';
import { firstFreeAfter } from './first-free.js';

/**
 * How long a term lasts past its last renewal, beyond the longest piece of work: a holder starts a
 * piece (a webhook delivery, a publication) only while its term covers the whole of it plus
 * `LEASE_MARGIN_MS`, and after a renewal it may go on starting them for this long without another.
 */
const RENEWAL_SLACK_MS = 5_000;
/**
 * What the holder keeps between the end of its own reckoning of its term and the earliest moment
 * another process may claim the next one: the database's clock may step, or differ between the
 * servers that answer (a failover), by up to half of it within a term.
 */
export const LEASE_MARGIN_MS = 5_000;
/** A renewal acknowledged later than this after it was sent is not counted (see `tick`). */
const RENEWAL_ROUND_TRIP_MS = LEASE_MARGIN_MS / 2;
/** A holder renews at most this often, however often it looks; a later term claimed is seen then. */
export const RENEW_EVERY_MS = 2_000;

/** How long a term lasts without being renewed, for pieces of work that take at most `workMs`. */
export const leaseMs = (workMs: number) => workMs + RENEWAL_SLACK_MS + LEASE_MARGIN_MS;

interface LeaseDoc {
  /** The term: 1, 2, 3…, one document each, claimed under the `_id` index. */
  _id: number;
  owner: string;
  /** When the holder last renewed it, by the database's clock. */
  renewed: Date;
  /** Set when its holder stopped cleanly: the next term may be claimed at once. */
  released?: boolean;
}

/** The database's clock: what `hello` says its time is (the primary's, on a replica set). */
async function databaseTime(db: Db): Promise<number> {
  const hello = await db.admin().command({ hello: 1 });
  const time = hello.localTime;
  if (!(time instanceof Date)) throw new Error('the database did not say its time (hello.localTime)');
  return time.getTime();
}

/** A term this process holds, and until when it may act on it (its monotonic clock, margin taken off). */
interface HeldTerm {
  term: number;
  until: number;
  renewed: number;
}

/** A lease's terms as stored: which exist, and the highest claimed, found from the last one seen. */
function leaseTerms(leases: Collection<LeaseDoc>) {
  let knownTop = 0;
  const exists = async (term: number) => (await leases.findOne({ _id: term }, { projection: { _id: 1 } })) !== null;
  return {
    exists,
    /** The highest term claimed (0: none), by doubling then halving steps from the last one seen. */
    async current(): Promise<number> {
      knownTop = (await firstFreeAfter(knownTop, exists)) - 1;
      return knownTop;
    },
    /** Claims a term by inserting its document; false when another process's insert came first. */
    async insert(term: number, owner: string, renewed: Date): Promise<boolean> {
      try {
        await leases.insertOne({ _id: term, owner, renewed });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        return false;
      }
      knownTop = term;
      return true;
    },
  };
}

/**
 * Claims the term after the current one if that one ran out (by the database's clock), was
 * released, or is this process's own: the term now held, or when to look again (`lookAt`), or
 * nothing when another process claimed it first.
 */
async function claimNextTerm(
  db: Db,
  leases: Collection<LeaseDoc>,
  terms: ReturnType<typeof leaseTerms>,
  owner: string,
  lease: number,
): Promise<{ held: HeldTerm } | { lookAt: number } | undefined> {
  const sent = performance.now();
  // The database's time first, then the term: a renewal the holder counts landed before this.
  const now = await databaseTime(db);
  const term = await terms.current();
  if (term > 0) {
    const current = await leases.findOne({ _id: term });
    if (current && current.owner !== owner && !current.released) {
      // A term of the earlier shape (no `renewed`) counts as run out.
      const left = current.renewed instanceof Date ? current.renewed.getTime() + lease - now : -1;
      if (left >= 0) return { lookAt: performance.now() + left + 10 };
    }
  }
  // The database's time read above, which is no later than the insert.
  if (!(await terms.insert(term + 1, owner, new Date(now)))) return undefined;
  return { held: { term: term + 1, until: sent + lease - LEASE_MARGIN_MS, renewed: sent } };
}

/**
 * The right to do one kind of background work (deliver webhooks, publish scheduled items), held
 * by one process at a time, and the fencing term that comes with it. Each kind keeps its terms in
 * its own collection, named by the resource that owns the work. Each holder claims the next term
 * by inserting its document (the unique `_id` index lets one process in: the only atomic step the
 * embedded database offers); terms run 1..n without gaps, so the current one is found by key.
 *
 * A holder is alive while its term is renewed, whatever machine it runs on: only the database's
 * clock says a term ran out (a renewal stores the database's time through `$currentDate`; a
 * claimant compares it with the database's time from `hello`). The holder reckons its term on its
 * own monotonic clock from the moment it *sent* the renewal, which the database applied no
 * earlier, so it ends its term, less `LEASE_MARGIN_MS`, before any claimant can see it run out;
 * a renewal acknowledged later than `RENEWAL_ROUND_TRIP_MS` is not counted, as a claimant may
 * have read the term before it landed. No node's wall clock plays a part.
 *
 * A holder that outlived its term (a pause, a clock step) may still be mid-way through a piece of
 * work: work whose writes must not land after a later term's fences them with the term besides
 * (the webhook deliverer's `notAfter`).
 */
export function workLease(db: Db, options: { collection: string; workMs: number }) {
  const leases = db.collection<LeaseDoc>(options.collection);
  const owner = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const lease = leaseMs(options.workMs);
  let held: HeldTerm | undefined;
  /** When a claimant next looks: the moment the term it saw would run out, unless renewed. */
  let lookAt = 0;

  const terms = leaseTerms(leases);
  const remaining = () => (held ? held.until - performance.now() : 0);

  async function claim(): Promise<boolean> {
    const outcome = await claimNextTerm(db, leases, terms, owner, lease);
    if (outcome && 'lookAt' in outcome) lookAt = outcome.lookAt;
    if (!outcome || !('held' in outcome)) return false;
    held = outcome.held;
    return true;
  }

  /** Renews the held term, unless a later one was claimed; false when it is no longer held. */
  async function renew(): Promise<boolean> {
    const current = held!;
    if (await terms.exists(current.term + 1)) {
      held = undefined;
      return false;
    }
    const sent = performance.now();
    const result = await leases.updateOne({ _id: current.term, owner, released: { $ne: true } }, { $currentDate: { renewed: true } });
    if (result.matchedCount === 0) {
      held = undefined;
      return false;
    }
    // A slow renewal may have landed after a claimant read the term: the term is reckoned from the one before.
    if (held === current && performance.now() - sent <= RENEWAL_ROUND_TRIP_MS) {
      current.until = sent + lease - LEASE_MARGIN_MS;
      current.renewed = sent;
    }
    return held === current;
  }

  return {
    owner,
    /** The term held (undefined: none); writes of the work's state are fenced with it. */
    term: () => (held && remaining() > 0 ? held.term : undefined),
    /** Whether this process may still act on its term. */
    holds: () => remaining() > 0,
    /** Whether a piece of work of at most `workMs`, started now, ends within the term, margin kept. */
    covers: () => remaining() >= options.workMs,
    /** Whether a claimant should look again now (the term it saw may have run out). */
    lookDue: () => held === undefined && lookAt > 0 && performance.now() >= lookAt,

    /**
     * Renews the term this process holds (at most every `RENEW_EVERY_MS`, or at once when it no
     * longer covers a whole piece of work), or claims the next one when the current one is over.
     */
    async tick(): Promise<boolean> {
      if (held && remaining() > 0) {
        if (performance.now() < held.renewed + RENEW_EVERY_MS && remaining() >= options.workMs) return true;
        return renew();
      }
      held = undefined;
      return claim();
    },

    /** A write fenced by a later term matched nothing: this process no longer holds any. */
    lost(): void {
      held = undefined;
    },

    /** Ends this process's term at once, so that another process takes over without waiting it out. */
    async release(): Promise<void> {
      const term = held?.term;
      held = undefined;
      if (term !== undefined) await leases.updateOne({ _id: term, owner }, { $set: { released: true } });
    },
  };
}

export type WorkLease = ReturnType<typeof workLease>;
