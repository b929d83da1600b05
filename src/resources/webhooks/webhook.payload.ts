import { findPostType } from '../../registry/post-types.js';
import { type StoredEvent } from '../../store/change-log.js';

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
 * how, its version after the change and the event's position; never the content, which the
 * receiver reads from the API (`href`) with its own credentials.
 */
export function eventPayload(event: StoredEvent, siteUrl: string): string {
  const restBase = findPostType(event.streamType ?? 'post')?.rest_base;
  return JSON.stringify({
    type: webhookEventType(event),
    timestamp: event.at.toISOString(),
    data: {
      position: event.position,
      item: { id: event.stream, type: event.streamType ?? 'post', ...(restBase ? { href: `${siteUrl}/cms-json/cms/v2/${restBase}/${event.stream}` } : {}) },
      version: event.seq,
    },
  });
}

export function pingPayload(endpoint: string, at: Date): string {
  return JSON.stringify({ type: PING_TYPE, timestamp: at.toISOString(), data: { webhook: endpoint } });
}
