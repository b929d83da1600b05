/**
 * How long after each failed attempt the next one is made: 10 attempts over about three days
 * (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 20 h: 71.6 h), each delay varied by up to 20%
 * either way so that receivers coming back are not met by every retry at once. After the last
 * one fails, the delivery is dead-lettered.
 */
export const RETRY_DELAYS_MS: readonly number[] = [5e3, 300e3, 1800e3, 2 * 3600e3, 5 * 3600e3, 10 * 3600e3, 14 * 3600e3, 20 * 3600e3, 20 * 3600e3];
const JITTER = 0.2;
/** A `Retry-After` longer than this is taken as this. */
export const MAX_RETRY_AFTER_MS = 24 * 3600e3;

/** When to try again after the `retries`-th failure in a row, or null when it was the last. */
export function nextAttemptDelay(retries: number, retryAfterMs: number | undefined, random: () => number = Math.random): number | null {
  if (retries > RETRY_DELAYS_MS.length) return null;
  const base = RETRY_DELAYS_MS[retries - 1];
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}
