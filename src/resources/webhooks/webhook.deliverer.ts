import { setTimeout as delay } from 'node:timers/promises';
import { type Deps } from '../../deps.js';
import { changeLog, type StoredEvent } from '../../store/change-log.js';
import { isDuplicateKey } from '../../store/mongo.js';
import { asServiceWork } from '../../store/service-work.js';
import { type BackgroundWork } from '../manifest.js';
import { deliveryLease } from './webhook.lease.js';
import { ATTEMPTS_KEPT, deliveriesCollection, webhooksCollection, type DeliveryAttempt, type DeliveryDoc, type WebhookDoc } from './webhook.model.js';
import { eventPayload, filterMatches, webhookEventType } from './webhook.payload.js';
import { nextAttemptDelay } from './webhook.retry.js';
import { send, type SendOutcome } from './webhook.send.js';
import { signatureHeader } from './webhook.signature.js';
import { targetPolicy, type TargetPolicy } from './webhook.targets.js';

/** Positions read at once while the log is quiet, and while it is busy (or every tenth quiet look, past a long gap). */
const QUIET_WINDOW = 8;
const BUSY_WINDOW = 128;
/**
 * Pending deliveries an endpoint may have before no more are queued for it (they wait in the log):
 * its queue is read whole (the embedded database then decodes only the rows it answers with) and
 * kept in memory, so this bounds both.
 */
export const QUEUE_AHEAD = 500;
/**
 * How long an endpoint's kept queue is used before it is read again: this process's own writes keep
 * it current, so a read (which the embedded database answers by decoding every pending row) is
 * needed only for what others change (a redelivery, a replay).
 */
const QUEUE_READ_EVERY_MS = 1000;
/** How long queueing waits for a missing position before voiding it (the change log's own reader waits as long). */
const GAP_WAIT_MS = 5000;

/** A pending delivery as the sending loop keeps it: without its attempts' log. */
type QueuedDelivery = Omit<DeliveryDoc, 'log'>;

/** A delivery's id, its `webhook-id`: the endpoint, the generation and the event's position. */
export const deliveryId = (endpoint: string, generation: number, position: number) => `msg_${endpoint.slice(3)}_${generation}_${position}`;

/** The headers of one attempt (Standard Webhooks). */
export function webhookHeaders(endpoint: WebhookDoc, id: string, payload: string, now: Date): { headers: Record<string, string>; timestamp: number } {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    timestamp,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'cms-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(endpoint.secrets, id, timestamp, payload, now),
    },
  };
}

/** Sends one attempt of `delivery` to `endpoint` and says what happened, as the delivery log keeps it. */
export async function attempt(
  endpoint: WebhookDoc,
  delivery: Pick<DeliveryDoc, '_id' | 'payload' | 'attempts'>,
  options: { policy: TargetPolicy; timeoutMs: number; clock: () => Date; signal?: AbortSignal },
): Promise<{ outcome: SendOutcome; entry: DeliveryAttempt }> {
  const at = options.clock();
  const { headers, timestamp } = webhookHeaders(endpoint, delivery._id, delivery.payload, at);
  const outcome = await send(endpoint.url, headers, delivery.payload, { policy: options.policy, timeoutMs: options.timeoutMs, signal: options.signal });
  const entry: DeliveryAttempt = { attempt: delivery.attempts + 1, at, timestamp, status: outcome.status, duration_ms: outcome.duration_ms, error: outcome.error, response: outcome.response };
  return { outcome, entry };
}

const succeeded = (status: number | null) => status !== null && status >= 200 && status < 300;

/**
 * The webhook deliverer, run by every service process; only the holder of the delivery lease
 * works. Two loops: queueing reads the change log by position from the lowest cursor of the active
 * endpoints and stores a pending delivery per matching event and endpoint (its `_id` made of the
 * endpoint, generation and position, so queueing again after a crash stores nothing twice), then
 * moves each endpoint's cursor; sending reads each endpoint's queue oldest first and sends, at
 * most `webhooksConcurrency` at a time, only the oldest pending delivery of each item (a later
 * change of an item waits while an earlier one is retried). A delivery is marked delivered only
 * after its receiver answered 2xx, so a process killed mid-delivery leaves it pending, and the
 * next holder sends it again: at least once, in order per item per endpoint.
 */
export function startDeliverer(deps: Deps): BackgroundWork {
  const db = deps.store.db;
  const { clock } = deps;
  const log = changeLog(db);
  const lease = deliveryLease(db, clock);
  const policy = targetPolicy(deps.config.webhooksAllowAddresses);
  const stopping = new AbortController();
  const inFlight = new Map<string, Promise<void>>();
  const pollMs = deps.config.webhooksPollMs;
  const logger = deps.logger.child({ component: 'webhooks' });
  let quietLooks = 0;
  /**
   * Each endpoint's queue as last read (oldest first, at most about `QUEUE_AHEAD`), kept current with
   * what this process writes itself, and read again from the database once it is
   * `QUEUE_READ_EVERY_MS` old (a redelivery or a replay through the API, from any process, shows then). Deliveries
   * settled after a read began are left out of what that read found.
   */
  const queues = new Map<string, { docs: QueuedDelivery[]; readAt: number }>();
  const settled = new Map<string, number>();
  let reads = 0;
  // A finished delivery starts the next round at once: an item's next change need not wait a poll.
  let wake = () => {};

  async function queue(endpoints: WebhookDoc[]): Promise<void> {
    const from = Math.min(...endpoints.map((endpoint) => endpoint.cursor));
    const window = quietLooks % 10 === 9 ? BUSY_WINDOW : quietLooks === 0 ? BUSY_WINDOW : QUIET_WINDOW;
    const { events, through } = await log.readPositions(from, window, { gapWaitMs: GAP_WAIT_MS });
    quietLooks = through === from ? quietLooks + 1 : 0;
    if (through === from) return;
    for (const endpoint of endpoints) {
      if (endpoint.cursor >= through || !lease.holds()) continue;
      // A full queue takes no more until it drains: the events wait in the log, at the endpoint's cursor.
      if ((queues.get(endpoint._id)?.docs.length ?? 0) >= QUEUE_AHEAD) continue;
      const rows = events.filter((event) => event.position! > endpoint.cursor && filterMatches(endpoint.events, webhookEventType(event))).map((event) => pendingDelivery(endpoint, event));
      if (rows.length) {
        const kept = queues.get(endpoint._id);
        try {
          await deliveriesCollection(db).insertMany(rows, { ordered: false });
          // Queued after everything queued before (a later position, or a later generation).
          if (kept) kept.docs.push(...rows.map(({ log: _log, ...queued }) => queued));
        } catch (error) {
          // Rows queued again after a crash are there already: reading the queue again finds each once.
          queues.delete(endpoint._id);
          if (!isDuplicateKey(error)) throw error;
        }
      }
      // A replay begun meanwhile (another generation) has moved the cursor itself.
      await webhooksCollection(db).updateOne({ _id: endpoint._id, generation: endpoint.generation }, { $set: { cursor: through } });
    }
  }

  function pendingDelivery(endpoint: WebhookDoc, event: StoredEvent): DeliveryDoc {
    const now = clock();
    return {
      _id: deliveryId(endpoint._id, endpoint.generation, event.position!),
      endpoint: endpoint._id,
      type: webhookEventType(event),
      position: event.position!,
      generation: endpoint.generation,
      stream: event.stream,
      stream_type: event.streamType ?? 'post',
      version: event.seq,
      payload: eventPayload(event, deps.siteUrl),
      state: 'pending',
      queue: endpoint._id,
      attempts: 0,
      retries: 0,
      next_attempt_at: now,
      created: now,
      updated: now,
      last_status: null,
      log: [],
    };
  }

  async function queueOf(endpoint: WebhookDoc): Promise<QueuedDelivery[]> {
    const kept = queues.get(endpoint._id);
    if (kept && performance.now() - kept.readAt < Math.max(pollMs, QUEUE_READ_EVERY_MS)) return kept.docs;
    const read = ++reads;
    const readAt = performance.now();
    const docs = await deliveriesCollection(db).find({ queue: endpoint._id }, { projection: { log: 0 } }).toArray();
    const fresh = (docs as QueuedDelivery[])
      .filter((doc) => (settled.get(doc._id) ?? 0) <= read)
      .sort((a, b) => a.generation - b.generation || a.position! - b.position!);
    queues.set(endpoint._id, { docs: fresh, readAt });
    for (const [id, at] of settled) if (at <= read) settled.delete(id);
    return fresh;
  }

  /** What this process wrote of a delivery, in its kept queue: gone once delivered or failed for good, else due again later. */
  function settle(delivery: QueuedDelivery, changes: Partial<QueuedDelivery>): void {
    settled.set(delivery._id, reads + 1);
    const kept = queues.get(delivery.endpoint);
    if (!kept) return;
    const index = kept.docs.findIndex((doc) => doc._id === delivery._id);
    if (index < 0) return;
    if (changes.state === 'pending') kept.docs[index] = { ...kept.docs[index], ...changes };
    else kept.docs.splice(index, 1);
  }

  async function dispatch(endpoints: WebhookDoc[]): Promise<void> {
    for (const endpoint of endpoints) {
      const pending = await queueOf(endpoint);
      const waiting = new Set<number>();
      const now = clock();
      for (const delivery of pending) {
        const item = delivery.stream ?? -1;
        if (waiting.has(item)) continue;
        waiting.add(item);
        if (inFlight.has(delivery._id) || (delivery.next_attempt_at && delivery.next_attempt_at > now)) continue;
        if (inFlight.size >= deps.config.webhooksConcurrency || !lease.holds() || stopping.signal.aborted) return;
        const running = deliver(endpoint, delivery)
          .catch((error: unknown) => logger.warn({ err: error, delivery: delivery._id }, 'webhook delivery not recorded'))
          .finally(() => {
            inFlight.delete(delivery._id);
            wake();
          });
        inFlight.set(delivery._id, running);
      }
    }
  }

  async function deliver(endpoint: WebhookDoc, delivery: QueuedDelivery): Promise<void> {
    const { outcome, entry } = await attempt(endpoint, delivery, { policy, timeoutMs: deps.config.webhooksTimeoutMs, clock, signal: stopping.signal });
    // Stopped mid-request: the attempt's fate is unknown, so it stays pending and is sent again.
    if (stopping.signal.aborted && outcome.status === null) return;
    const now = clock();
    const deliveries = deliveriesCollection(db);
    // The log is read only now, by key: the kept queue leaves it out.
    const { log: earlier = [] } = (await deliveries.findOne({ _id: delivery._id }, { projection: { log: 1 } })) ?? {};
    const base = { attempts: delivery.attempts + 1, updated: now, last_status: outcome.status, log: [...earlier, entry].slice(-ATTEMPTS_KEPT) };
    if (succeeded(outcome.status)) {
      await deliveries.updateOne({ _id: delivery._id }, { $set: { ...base, state: 'delivered', retries: 0, next_attempt_at: null }, $unset: { queue: '' } });
      settle(delivery, { state: 'delivered' });
      return;
    }
    if (outcome.status === 410) {
      await webhooksCollection(db).updateOne({ _id: endpoint._id }, { $set: { active: false, disabled_reason: 'The endpoint answered 410 Gone.' } });
      logger.info({ webhook: endpoint._id }, 'webhook endpoint answered 410: disabled');
    }
    const retries = delivery.retries + 1;
    const wait = nextAttemptDelay(retries, outcome.retryAfterMs);
    if (wait === null) {
      await deliveries.updateOne({ _id: delivery._id }, { $set: { ...base, retries, state: 'failed', dead: endpoint._id, next_attempt_at: null }, $unset: { queue: '' } });
      settle(delivery, { state: 'failed' });
      return;
    }
    const retry = { ...base, retries, next_attempt_at: new Date(now.getTime() + wait) };
    await deliveries.updateOne({ _id: delivery._id }, { $set: retry });
    const { log: _log, ...queued } = retry;
    settle(delivery, { ...queued, state: 'pending' });
  }

  async function round(): Promise<void> {
    // Without an active endpoint there is nothing to deliver: no lease is taken or renewed, so an
    // idle site's processes write nothing.
    const endpoints = await webhooksCollection(db).find({ active: true }).toArray();
    if (!endpoints.length || !(await lease.tick())) return;
    await queue(endpoints);
    if (lease.holds()) await dispatch(endpoints);
  }

  const running = asServiceWork('webhooks', async () => {
    while (!stopping.signal.aborted) {
      try {
        await round();
      } catch (error) {
        if (!stopping.signal.aborted) logger.warn({ err: error }, 'webhook deliverer round failed');
      }
      const pause = new AbortController();
      const stop = () => pause.abort();
      stopping.signal.addEventListener('abort', stop, { once: true });
      wake = stop;
      await delay(pollMs, undefined, { signal: pause.signal }).catch(() => {});
      stopping.signal.removeEventListener('abort', stop);
    }
  });

  return {
    async stop() {
      stopping.abort();
      await running;
      await Promise.allSettled(inFlight.values());
      await lease.release().catch(() => {});
    },
  };
}

