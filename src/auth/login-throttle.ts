import { type Db } from 'mongodb';
import { defineRestErrorWith } from '../rest/errors.js';
import { type IndexSpec } from '../store/mongo.js';

export interface ThrottleLimits {
  /** Failed logins allowed per address, and per username, within the window. */
  maxFailures: number;
  windowSeconds: number;
}

interface FailureDoc {
  _id: string;
  count: number;
  since: Date;
}

export const loginThrottleIndexes: IndexSpec[] = [];

export const TooManyLoginAttempts = defineRestErrorWith('too_many_login_attempts', 429, (retryAfterSeconds: number) => ({
  message: 'Too many failed login attempts. Please try again later.',
  data: { retry_after: retryAfterSeconds },
}));

/**
 * Counts failed logins per client address and per username in the database (so every service
 * process sees the same counts) and refuses further attempts for the rest of the window once
 * either count reaches the limit.
 */
export function loginThrottle(db: Db, limits: ThrottleLimits, clock: () => Date) {
  const failures = db.collection<FailureDoc>('login_failures');
  const windowMs = limits.windowSeconds * 1000;
  const keysFor = (ip: string, login: string) => [`ip:${ip}`, `user:${login.toLowerCase()}`];

  return {
    /** Throws TooManyLoginAttempts while the address or the username is locked out. */
    async check(ip: string, login: string): Promise<void> {
      const now = clock().getTime();
      const docs = await failures.find({ _id: { $in: keysFor(ip, login) } }).toArray();
      for (const doc of docs) {
        const endsAt = doc.since.getTime() + windowMs;
        if (doc.count >= limits.maxFailures && endsAt > now) throw new TooManyLoginAttempts(Math.ceil((endsAt - now) / 1000));
      }
    },

    async recordFailure(ip: string, login: string): Promise<void> {
      const now = clock();
      for (const key of keysFor(ip, login)) {
        const current = await failures.findOne({ _id: key });
        if (!current || current.since.getTime() + windowMs <= now.getTime()) {
          await failures.updateOne({ _id: key }, { $set: { count: 1, since: now } }, { upsert: true });
        } else {
          await failures.updateOne({ _id: key }, { $inc: { count: 1 } });
        }
      }
    },
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
