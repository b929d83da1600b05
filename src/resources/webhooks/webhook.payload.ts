import { findPostType } from '../../registry/post-types.js';
import { type StoredEvent } from '../../store/log/change-log.js';
import { scheduledChangeOf } from '../history/index.js';
import { isLockEvent } from '../locks/index.js';

/** The webhook event type of a change-log event: the item's type and what happened, `post.updated`. */
export const webhookEventType = (event: Pick<StoredEvent, 'streamType' | 'type'>) => `${event.streamType ?? 'post'}.${event.type}`;

export const PING_TYPE = 'webhook.ping';

/** Whether an endpoint's filter (`*`, `post.*`, `post.updated`) lets `type` through. */
export function filterMatches(filter: readonly string[], type: string): boolean {
  const [streamType] = type.split('.');
  return filter.some((entry) => entry === '*' || entry === type || entry === `${streamType}.*`);
}

/**
 * The thin body of a delivery (Standard Webhooks' `type`, `timestamp`, `data`): which item changed,
 * how, its version after the change and the event's position, and the scheduled change an update
 * applied; never the content, which the receiver reads from the API (`href`) with its own credentials.
 */
export function eventPayload(event: StoredEvent, siteUrl: string): string {
  const { id, type, version } = eventItem(event);
  const restBase = findPostType(type)?.rest_base;
  const lock = isLockEvent(event) ? event.data : undefined;
  const scheduled = lock ? undefined : scheduledChangeOf(event);
  return JSON.stringify({
    type: webhookEventType(event),
    timestamp: event.at.toISOString(),
    data: {
      position: event.position,
      item: { id, type, ...(restBase ? { href: `${siteUrl}/cms-json/cms/v2/${restBase}/${id}` } : {}) },
      // A lock event's version is the lock's generation; its holder, for a take-over the one before, and for a lapse its moment.
      version,
      ...(lock ? { holder: lock.user, ...(lock.previous !== undefined ? { previous_holder: lock.previous } : {}), ...(event.type === 'lapsed' ? { lapses: lock.lapsesAt } : {}) } : {}),
      // An update the scheduler applied: the change, who scheduled it, what had changed meanwhile (as `/history` shows it).
      ...(scheduled ? { scheduled_change: scheduled } : {}),
    },
  });
}

/** The item an event is about, and its version after it: its stream, or, for a lock event (a stream of its own), the item it names. */
export function eventItem(event: StoredEvent): { id: number; type: string; version: number } {
  if (isLockEvent(event)) {
    return { id: event.data.item, type: event.data.item_type, version: event.seq };
  }
  return { id: event.stream, type: event.streamType ?? 'post', version: event.seq };
}

export function pingPayload(endpoint: string, at: Date): string {
  return JSON.stringify({ type: PING_TYPE, timestamp: at.toISOString(), data: { webhook: endpoint } });
}
