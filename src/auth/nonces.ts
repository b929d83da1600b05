import { createHmac, timingSafeEqual } from 'node:crypto';

/** WordPress's `nonce_life`: a day, in two ticks of twelve hours; a nonce is good in its tick and the next. */
const TICK_MS = 12 * 60 * 60 * 1000;

/** The action WordPress's REST API checks cookie-authenticated requests against. */
export const REST_NONCE_ACTION = 'wp_rest';

export interface NonceSubject {
  action: string;
  userId: number;
  /** The session's token: a nonce is good only with the cookie it was made for. */
  token: string;
}

/** `wp_nonce_tick`: the half-day the moment falls in. */
export function nonceTick(now: Date): number {
  return Math.ceil(now.getTime() / TICK_MS);
}

function nonceAt(siteKey: string, tick: number, { action, userId, token }: NonceSubject): string {
  // `wp_create_nonce`: ten hex characters of a keyed hash of tick, action, user and session token.
  return createHmac('sha256', siteKey).update(`nonce|${tick}|${action}|${userId}|${token}`).digest('hex').slice(-12, -2);
}

/** `wp_create_nonce`, with the site key. */
export function createNonce(siteKey: string, subject: NonceSubject, now: Date): string {
  return nonceAt(siteKey, nonceTick(now), subject);
}

/** `wp_verify_nonce`: made for this subject in the current tick or the one before. */
export function verifyNonce(siteKey: string, nonce: string, subject: NonceSubject, now: Date): boolean {
  const given = Buffer.from(nonce);
  const tick = nonceTick(now);
  return [tick, tick - 1].some((at) => {
    const expected = Buffer.from(nonceAt(siteKey, at, subject));
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
