import { describe, expect, it } from 'vitest';
import { createNonce, verifyNonce } from './nonces.js';

const subject = { action: 'wp_rest', userId: 3, token: 'session-token' };
const at = (hours: number) => new Date(Date.UTC(2026, 0, 1) + hours * 3600_000);

describe('nonces', () => {
  it('are good in the tick they were made in and the next, then no more', () => {
    const nonce = createNonce('key', subject, at(1));
    expect(nonce).toMatch(/^[0-9a-f]{10}$/);
    expect(verifyNonce('key', nonce, subject, at(1))).toBe(true);
    expect(verifyNonce('key', nonce, subject, at(13))).toBe(true);
    expect(verifyNonce('key', nonce, subject, at(25))).toBe(false);
  });

  it('are bound to the key, the action, the user and the session token', () => {
    const nonce = createNonce('key', subject, at(1));
    expect(verifyNonce('other key', nonce, subject, at(1))).toBe(false);
    expect(verifyNonce('key', nonce, { ...subject, action: 'other' }, at(1))).toBe(false);
    expect(verifyNonce('key', nonce, { ...subject, userId: 4 }, at(1))).toBe(false);
    expect(verifyNonce('key', nonce, { ...subject, token: 'another' }, at(1))).toBe(false);
    expect(verifyNonce('key', '', subject, at(1))).toBe(false);
  });
});
