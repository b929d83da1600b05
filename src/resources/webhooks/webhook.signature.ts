import { createHmac, randomBytes } from 'node:crypto';
import { type WebhookSecret } from './webhook.model.js';

/** The Standard Webhooks secret format: `whsec_` and the base64 of 24 random bytes. */
export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** `v1,` and the base64 HMAC-SHA256, keyed with the secret's bytes, of `id.timestamp.body`. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The `webhook-signature` header: one signature per secret still in force, space-separated. */
export function signatureHeader(secrets: readonly WebhookSecret[], id: string, timestamp: number, body: string, now: Date): string {
  return secretsInForce(secrets, now)
    .map((secret) => sign(secret.key, id, timestamp, body))
    .join(' ');
}

export function secretsInForce(secrets: readonly WebhookSecret[], now: Date): WebhookSecret[] {
  return secrets.filter((secret) => !secret.expires || secret.expires > now);
}
