import { type Db, type ObjectId } from 'mongodb';
import { defineRestErrorWith } from '../rest/errors.js';
import { type IndexSpec } from '../store/mongo.js';

export interface ThrottleLimits {
  /** Failed logins allowed per client address within the window; more are refused (429). */
  maxFailures: number;
  windowSeconds: number;
  /**
   * How long each attempt at an account password waits while the username has had more than
   * `maxFailures` failures from all addresses together: a guesser spread over many addresses is
   * slowed, and the account's owner is never refused.
   */
  slowdownMs?: number;
}

/** One login attempt: claimed before the password is checked, removed if it was right. */
interface AttemptDoc {
  _id?: ObjectId;
  keys: string[];
  at: Date;
}

const ATTEMPTS = 'login_attempts';
export const DEFAULT_SLOWDOWN_MS = 1000;

export const loginThrottleIndexes: IndexSpec[] = [{ collection: ATTEMPTS, key: { keys: 1, at: 1 }, name: 'keys_at' }];

export const TooManyLoginAttempts = defineRestErrorWith('too_many_login_attempts', 429, (retryAfterSeconds: number) => ({
  message: 'Too many failed login attempts. Please try again later.',
  data: { retry_after: retryAfterSeconds },
}));

/** A claimed attempt, to be settled once the password has been checked. */
export interface LoginAttempt {
  /** The username has had too many failures from all addresses: slow the account password's check. */
  readonly slowDown: boolean;
  /** The password was right: the attempt does not count as a failure. */
  succeeded(): void;
}

/**
 * Counts failed logins in the database, so every service process sees the same counts. Each
 * attempt is inserted before its password is checked and counted afterwards: the attempts that
 * find more than `maxFailures` from their address in the window (their own included) are
 * refused, so concurrent guesses can never slip past the limit (FerretDB's `$inc` is not atomic;
 * an insert is). A right password removes its attempt again. Failures for a username from every
 * address together only slow its password checks down: nobody can lock an account out from
 * somewhere else.
 */
export function loginThrottle(db: Db, limits: ThrottleLimits, clock: () => Date) {
  const attempts = db.collection<AttemptDoc>(ATTEMPTS);
  const windowMs = limits.windowSeconds * 1000;

  return {
    /** Claims an attempt for `login` from `ip`; throws TooManyLoginAttempts when the address has used its failures. */
    async begin(ip: string, login: string): Promise<LoginAttempt> {
      const now = clock();
      const since = new Date(now.getTime() - windowMs);
      const address = `ip:${ip}`;
      const username = `user:${login.toLowerCase()}`;
      const { insertedId } = await attempts.insertOne({ keys: [address, username], at: now });
      const [fromAddress, forUsername] = await Promise.all([
        attempts.countDocuments({ keys: address, at: { $gt: since } }),
        attempts.countDocuments({ keys: username, at: { $gt: since } }),
      ]);
      if (fromAddress > limits.maxFailures) {
        // A refused attempt checked no password: it is no failure.
        await attempts.deleteOne({ _id: insertedId });
        throw new TooManyLoginAttempts(await secondsUntilFree(address, fromAddress - 1, since, now));
      }
      return {
        slowDown: forUsername > limits.maxFailures,
        succeeded: () => {
          // Not awaited: the caller is answered at once; a moment's overcount is on the safe side.
          void attempts.deleteOne({ _id: insertedId }).catch(() => undefined);
        },
      };
    },
    slowdownMs: limits.slowdownMs ?? DEFAULT_SLOWDOWN_MS,
  };

  /** Seconds until enough of the address's `failures` leave the window for one more attempt. */
  async function secondsUntilFree(key: string, failures: number, since: Date, now: Date): Promise<number> {
    const freeing = await attempts.findOne(
      { keys: key, at: { $gt: since } },
      { sort: { at: 1 }, skip: Math.max(0, failures - limits.maxFailures), projection: { at: 1 } },
    );
    const endsAt = (freeing?.at.getTime() ?? now.getTime()) + windowMs;
    return Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000));
  }
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
