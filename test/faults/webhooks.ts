import { type Db } from 'mongodb';
import { type Received, type WebhookReceiver } from '../support/webhook-receiver.js';
import { AUTHORIZATION, sleep } from './service.js';

/** What the fault suite gives the service so that it delivers to a receiver on this machine, soon. */
export const WEBHOOK_ENV = { CMS_WEBHOOKS_ALLOW_ADDRESSES: '127.0.0.1', CMS_WEBHOOKS_POLL_MS: '100' };

/** An endpoint for every event, to `receiver`; returns the position it starts after. */
export async function createEndpoint(siteUrl: string, receiver: WebhookReceiver): Promise<number> {
  const response = await fetch(`${siteUrl}/cms-json/cms/v2/webhooks`, {
    method: 'POST',
    headers: { Authorization: AUTHORIZATION, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiver.url }),
  });
  const body = (await response.json()) as { position: number };
  if (response.status !== 201) throw new Error(`creating the webhook answered ${response.status}: ${JSON.stringify(body)}`);
  return body.position;
}

export interface WebhookFindings {
  /** Events in the log after the endpoint began that the receiver never got. */
  lost: string[];
  /** Items whose versions came to the receiver in an order that goes back. */
  outOfOrder: string[];
  events: number;
  requests: number;
  duplicates: number;
}

/**
 * Every event of the log after `after` must reach the receiver (waited for up to `timeoutMs`),
 * and each item's versions must arrive in an order that never goes back: a version may come
 * again (at least once: a process killed after the receiver answered, before it recorded the
 * answer, sends it again), but never after a later one.
 */
export async function checkDeliveries(db: Db, receiver: WebhookReceiver, after: number, timeoutMs = 90_000): Promise<WebhookFindings> {
  const rows = await db
    .collection<{ stream: number; seq: number; position: number }>('events')
    .find({ position: { $gt: after }, stream: { $gt: 0 } }, { projection: { _id: 0, stream: 1, seq: 1, position: 1 } })
    .toArray();
  const key = (stream: number, version: number) => `${stream}:${version}`;
  const got = () => new Set(receiver.received.map((request) => key(request.json.data.item!.id, request.json.data.version!)));
  const deadline = performance.now() + timeoutMs;
  let missing = rows.filter((row) => !got().has(key(row.stream, row.seq)));
  while (missing.length && performance.now() < deadline) {
    await sleep(500);
    const seen = got();
    missing = missing.filter((row) => !seen.has(key(row.stream, row.seq)));
  }
  const byItem = new Map<number, Received[]>();
  for (const request of receiver.received) {
    const id = request.json.data.item!.id;
    byItem.set(id, [...(byItem.get(id) ?? []), request]);
  }
  const outOfOrder: string[] = [];
  for (const [id, requests] of byItem) {
    const versions = requests.map((request) => request.json.data.version!);
    if (versions.some((version, i) => i > 0 && version < versions[i - 1])) outOfOrder.push(`item ${id} got versions ${versions.join(', ')}`);
  }
  return {
    lost: missing.map((row) => `item ${row.stream} version ${row.seq} (position ${row.position})`),
    outOfOrder,
    events: rows.length,
    requests: receiver.received.length,
    duplicates: receiver.received.length - got().size,
  };
}
