import { type Db } from 'mongodb';
import { type IndexSpec } from '../../store/database/mongo.js';

/** One signing secret of an endpoint: the newest signs alone, unless a rotation keeps the one before until `expires`. */
export interface WebhookSecret {
  key: string;
  created: Date;
  expires?: Date;
}

/** An endpoint (`webhooks`): where deliveries go, which events, and how far its deliveries were queued. */
export interface WebhookDoc {
  /** `ep_` and 16 hex digits. */
  _id: string;
  url: string;
  /** Event types (`post.updated`), `<stream type>.*` or `*`. */
  events: string[];
  active: boolean;
  /** Why delivery stopped by itself (the endpoint answered 410), until it is made active again. */
  disabled_reason: string | null;
  secrets: WebhookSecret[];
  created: Date;
  /** The last position of the change log queued for it (voids and filtered events included). */
  cursor: number;
  /** Raised by each replay, so that a replay's deliveries are new messages, queued after the earlier ones. */
  generation: number;
  /** The delivery lease's term of the deliverer's last write (its cursor, disabling it): a holder of an earlier term writes here no more. */
  term?: number;
}

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One attempt of a delivery, as the delivery log shows it. */
export interface DeliveryAttempt {
  attempt: number;
  at: Date;
  /** The `webhook-timestamp` it was sent with. */
  timestamp: number;
  /** The response's status; null when none came (refused address, connection error, timeout). */
  status: number | null;
  duration_ms: number;
  error: string | null;
  /** The first bytes of the response body. */
  response: string | null;
}

/**
 * One message to one endpoint (`webhook_deliveries`). Its `_id` is the `webhook-id` header, the
 * same on every attempt, and is made of the endpoint, the generation and the position, so queueing
 * the same event again (after a crash) is refused by the `_id` index rather than sent twice.
 */
export interface DeliveryDoc {
  _id: string;
  endpoint: string;
  type: string;
  /** The event's position in the change log; null for a ping. */
  position: number | null;
  generation: number;
  /** The item (the event's stream) and its type; null for a ping. */
  stream: number | null;
  stream_type: string | null;
  /** The item's version after the event (its seq). */
  version: number | null;
  /** The body sent, the same on every attempt. */
  payload: string;
  state: DeliveryState;
  /** The endpoint's id while pending, absent otherwise: the queue is read by this one key. */
  queue?: string;
  /** The endpoint's id once it failed for good: the dead-letter list is read by this one key. */
  dead?: string;
  /** Attempts made in all. */
  attempts: number;
  /** Failed attempts since the last success or redelivery: where the retry schedule is. */
  retries: number;
  next_attempt_at: Date | null;
  created: Date;
  updated: Date;
  last_status: number | null;
  /** The newest attempts (at most `ATTEMPTS_KEPT`). */
  log: DeliveryAttempt[];
  /** The delivery lease's term of the deliverer's last write: a holder of an earlier term writes here no more. */
  term?: number;
}

/** Attempts each delivery keeps in its log. */
export const ATTEMPTS_KEPT = 20;

export const webhooksCollection = (db: Db) => db.collection<WebhookDoc>('webhooks');
export const deliveriesCollection = (db: Db) => db.collection<DeliveryDoc>('webhook_deliveries');

export const webhookIndexes: IndexSpec[] = [
  { collection: 'webhooks', key: { created: 1, _id: 1 }, name: 'created' },
  { collection: 'webhooks', key: { active: 1 }, name: 'active' },
  { collection: 'webhook_deliveries', key: { queue: 1, generation: 1, position: 1 }, name: 'queue' },
  { collection: 'webhook_deliveries', key: { dead: 1, created: -1, _id: -1 }, name: 'dead' },
  { collection: 'webhook_deliveries', key: { endpoint: 1, created: -1, _id: -1 }, name: 'endpoint_created' },
  { collection: 'webhook_deliveries', key: { endpoint: 1, state: 1, created: -1, _id: -1 }, name: 'endpoint_state_created' },
];
