import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { type Collection, type Db, type ObjectId } from 'mongodb';
import { defineRestErrorWith } from '../rest/errors.js';
import { isDuplicateKey, type IndexSpec } from '../store/database/mongo.js';

export interface ThrottleLimits {
  /**
   * Failed logins allowed per address and account within the window; more from that address at
   * that account are refused (429). Beyond as many at an account from all addresses together,
   * its password checks are slowed, never refused.
   */
  maxFailures: number;
  /**
   * Failed logins allowed per address over all accounts within the window (password spraying);
   * more are refused, at the accounts the address has not logged in to within the window.
   */
  maxAddressFailures: number;
  windowSeconds: number;
  /** How far apart a slowed account's password checks are, from all addresses and processes together. */
  slowdownMs: number;
}

/**
 * One login attempt: claimed before the password is checked, kept as a failure when it was wrong.
 * Its keys are its address (`address:`), its address and account (`pair:`) and its account
 * (`account:`); a right password leaves a `success:` record of the pair instead.
 */
interface AttemptDoc {
  _id?: ObjectId;
  keys: string[];
  at: Date;
}

/** A slowed account's check, at `slot × slowdownMs`: unique per account, so no two share a time. */
interface SlotDoc {
  _id?: ObjectId;
  account: string;
  slot: number;
  at: Date;
}

const ATTEMPTS = 'login_attempts';
const SLOTS = 'login_slots';

export const loginThrottleIndexes: IndexSpec[] = [
  { collection: ATTEMPTS, key: { keys: 1, at: 1 }, name: 'keys_at' },
  { collection: ATTEMPTS, key: { at: 1 }, name: 'at' },
  { collection: SLOTS, key: { account: 1, slot: 1 }, name: 'account_slot_unique', unique: true },
  { collection: SLOTS, key: { at: 1 }, name: 'at' },
];

export const TooManyLoginAttempts = defineRestErrorWith('too_many_login_attempts', 429, (retryAfterSeconds: number) => ({
  message: 'Too many failed login attempts. Please try again later.',
  data: { retry_after: retryAfterSeconds },
}));

/** A claimed attempt, to be settled once the password has been checked. */
export interface LoginAttempt {
  /** The password was right: the attempt and the pair's earlier failures no longer count. */
  succeeded(): void;
}

/**
 * What failures are counted against: the user's id when the login (username or email) names
 * one, so both share one count; otherwise the login itself, lowercased (as a digest: a login may
 * be longer than an index entry).
 */
export function accountOf(userId: number | undefined, login: string): string {
  if (userId !== undefined) return `user:${userId}`;
  return `login:${createHash('sha256').update(login.toLowerCase()).digest('base64url')}`;
}

/**
 * The address a client is counted under: its IPv4 address (an IPv4-mapped IPv6 one included),
 * or the /64 network of an IPv6 address, which is what one subscriber is usually given: a client
 * cannot leave its count behind by changing the lower half of its address.
 */
export function networkOf(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const halves = ip.replace(/%.*$/, '').split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  // A dotted IPv4 ending takes two groups' room; it lies in the lower half, which is dropped.
  const room = 8 - head.length - tail.length - (tail.at(-1)?.includes('.') ? 1 : 0);
  const full = [...head, ...(halves.length > 1 ? Array<string>(Math.max(0, room)).fill('0') : []), ...tail];
  return `${full.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`;
}

/**
 * Counts failed logins in the database, so every service process sees the same counts, by the
 * rule "lock the pair, slow the account" (docs/security.md, "Login throttle"):
 *
 * - an address that has used its failures at an account is refused there (429) for the window;
 * - an address that has used its far larger allowance over all accounts is refused at every
 *   account it has not logged in to within the window;
 * - an account that has had more failures than an address may make there, from all addresses
 *   together, has its password checks spaced `slowdownMs` apart, each in a time slot it claims
 *   through a unique index, so however many processes and requests guess at once, they are
 *   checked one at a time. An address that has failed already is refused once the account's
 *   queue is more than `maxFailures` checks long, so guessers cannot make the owner wait
 *   indefinitely; an address with no failures always gets a slot.
 *
 * A login from an address with no failures is never refused, so nobody can lock an account out
 * from elsewhere. Each attempt is inserted before its password is checked and counted afterwards,
 * so concurrent guesses never slip past a limit (FerretDB's `$inc` and upserts are not atomic;
 * an insert, and a unique index, are).
 */
export function loginThrottle(db: Db, limits: ThrottleLimits, clock: () => Date) {
  const attempts = db.collection<AttemptDoc>(ATTEMPTS);
  const slots = db.collection<SlotDoc>(SLOTS);
  const windowMs = limits.windowSeconds * 1000;
  let prunedAt = 0;

  return {
    /**
     * Claims an attempt at `account` (see accountOf) from `ip`, waiting for its time slot while the
     * account is slowed; throws TooManyLoginAttempts when a limit refuses it.
     */
    async begin(ip: string, account: string): Promise<LoginAttempt> {
      const now = clock();
      const since = new Date(now.getTime() - windowMs);
      const network = networkOf(ip);
      const keys = attemptKeys(network, account);
      prune(now);
      const { insertedId } = await attempts.insertOne({ keys: [keys.address, keys.pair, keys.account], at: now });
      const count = (key: string) => attempts.countDocuments({ keys: key, at: { $gt: since } });
      const [fromAddress, forPair, forAccount] = await Promise.all([count(keys.address), count(keys.pair), count(keys.account)]);
      try {
        if (forPair > limits.maxFailures) {
          throw new TooManyLoginAttempts(await secondsUntilFree(attempts, windowMs, keys.pair, forPair - 1, limits.maxFailures, since, now));
        }
        if (fromAddress > limits.maxAddressFailures && !(await attempts.countDocuments({ keys: keys.success, at: { $gt: since } }, { limit: 1 }))) {
          throw new TooManyLoginAttempts(await secondsUntilFree(attempts, windowMs, keys.address, fromAddress - 1, limits.maxAddressFailures, since, now));
        }
        // Only this attempt from its address within the window: a fresh address, never refused.
        if (forAccount > limits.maxFailures) await waitForSlot(slots, limits, clock, account, fromAddress === 1);
      } catch (error) {
        // A refused attempt checked no password: it is no failure.
        await attempts.deleteOne({ _id: insertedId });
        throw error;
      }
      return {
        succeeded: () => {
          // The pair's failures were its owner's typing: forgotten. Not awaited: the caller is
          // answered at once; a moment's overcount is on the safe side.
          void Promise.all([attempts.deleteMany({ keys: keys.pair }), attempts.insertOne({ keys: [keys.success], at: now })]).catch(() => undefined);
        },
      };
    },
  };

  /** At most once a minute per process, forgets attempts older than the window and slots long past. */
  function prune(now: Date): void {
    if (now.getTime() - prunedAt < Math.min(windowMs, 60_000)) return;
    prunedAt = now.getTime();
    const before = new Date(now.getTime() - windowMs);
    void Promise.all([attempts.deleteMany({ at: { $lte: before } }), slots.deleteMany({ at: { $lt: before } })]).catch(() => undefined);
  }
}

/** What an attempt is counted under: its address, the address and account together, the account; and the pair's successes. */
function attemptKeys(network: string, account: string) {
  return {
    address: `address:${network}`,
    pair: `pair:${network} ${account}`,
    account: `account:${account}`,
    success: `success:${network} ${account}`,
  };
}

/**
 * Claims the account's next free slot, at least `slowdownMs` from now, and waits for it: the slot's
 * unique index lets only one attempt have it, the others take the following ones.
 */
async function waitForSlot(slots: Collection<SlotDoc>, limits: ThrottleLimits, clock: () => Date, account: string, fresh: boolean): Promise<void> {
  const delay = limits.slowdownMs;
  const earliest = Math.ceil(clock().getTime() / delay) + 1;
  for (;;) {
    const last = await slots.findOne({ account }, { sort: { slot: -1 }, projection: { slot: 1 } });
    const slot = Math.max(earliest, (last?.slot ?? 0) + 1);
    if (!fresh && slot - earliest >= limits.maxFailures) {
      throw new TooManyLoginAttempts(Math.max(1, Math.ceil((slot * delay - clock().getTime()) / 1000)));
    }
    try {
      await slots.insertOne({ account, slot, at: new Date(slot * delay) });
    } catch (error) {
      if (isDuplicateKey(error)) continue; // taken meanwhile: look again
      throw error;
    }
    // A timer may fire a moment early: the check starts at the slot's time, never before.
    for (let wait = slot * delay - clock().getTime(); wait > 0; wait = slot * delay - clock().getTime()) {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    return;
  }
}

/** Seconds until enough of `key`'s `failures` leave the window for one more attempt within `limit`. */
async function secondsUntilFree(attempts: Collection<AttemptDoc>, windowMs: number, key: string, failures: number, limit: number, since: Date, now: Date): Promise<number> {
  const freeing = await attempts.findOne(
    { keys: key, at: { $gt: since } },
    { sort: { at: 1 }, skip: Math.max(0, failures - limit), projection: { at: 1 } },
  );
  const endsAt = (freeing?.at.getTime() ?? now.getTime()) + windowMs;
  return Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000));
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
