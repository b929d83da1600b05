import { type FieldSchema, type ItemSchema } from '../../rest/schema.js';
import { DELIVERY_STATES } from './webhook.model.js';

const BOTH = ['view', 'edit'] as const;
/** `*`, `<item type>.*` or `<item type>.<event>` (`post.updated`, `nav_menu_item.*`). */
export const EVENT_FILTER_PATTERN = '^(\\*|[a-z_]{1,40}\\.(\\*|[a-z_]{1,40}))$';
export const MAX_URL_LENGTH = 2048;

export const webhookSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'webhook',
  type: 'object',
  properties: {
    id: { description: 'Unique identifier for the endpoint.', type: 'string', context: [...BOTH], readonly: true },
    url: { description: 'Where deliveries are sent (http or https).', type: 'string', format: 'uri', maxLength: MAX_URL_LENGTH, required: true, context: [...BOTH] },
    events: {
      description: 'The event types delivered: `*`, an item type and `.*` (`post.*`), or one event type (`post.updated`). Edit locks: `lock.*`, or `lock.taken`, `lock.taken_over`, `lock.released`, `lock.lapsed`.',
      type: 'array',
      items: { type: 'string', pattern: EVENT_FILTER_PATTERN },
      minItems: 1,
      maxItems: 50,
      uniqueItems: true,
      default: ['*'],
      context: [...BOTH],
    },
    active: { description: 'Whether deliveries are sent.', type: 'boolean', default: true, context: [...BOTH] },
    disabled_reason: { description: 'Why delivery stopped by itself (the endpoint answered 410), until it is made active again.', type: ['string', 'null'], context: [...BOTH], readonly: true },
    secret: {
      description: 'The signing secret (`whsec_` and base64). Shown only in the answer that creates or rotates it.',
      type: 'string',
      context: ['edit'],
      readonly: true,
    },
    position: { description: 'The last change-log position queued for this endpoint.', type: 'integer', context: [...BOTH], readonly: true },
    created: { description: 'When the endpoint was created, in GMT.', type: 'string', format: 'date-time', context: [...BOTH], readonly: true },
  },
};

const attemptSchema: FieldSchema = {
  type: 'object',
  properties: {
    attempt: { description: 'Which attempt, from 1.', type: 'integer' },
    at: { description: 'When it was sent, in GMT.', type: 'string', format: 'date-time' },
    timestamp: { description: 'The `webhook-timestamp` it carried.', type: 'integer' },
    status: { description: "The response's status; null when none came.", type: ['integer', 'null'] },
    duration_ms: { description: 'How long it took.', type: 'integer' },
    error: { description: 'Why no response came.', type: ['string', 'null'] },
    response: { description: 'The first bytes of the response body.', type: ['string', 'null'] },
  },
};

export const deliverySchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'webhook-delivery',
  type: 'object',
  properties: {
    id: { description: 'The message id, sent as `webhook-id` on every attempt.', type: 'string', context: [...BOTH], readonly: true },
    webhook: { description: 'The endpoint it is for.', type: 'string', context: [...BOTH], readonly: true },
    type: { description: 'The event type (`post.updated`, `webhook.ping`).', type: 'string', context: [...BOTH], readonly: true },
    position: { description: "The event's position in the change log.", type: ['integer', 'null'], context: [...BOTH], readonly: true },
    item: {
      description: 'The item the event changed.',
      type: ['object', 'null'],
      properties: { id: { type: 'integer' }, type: { type: 'string' } },
      context: [...BOTH],
      readonly: true,
    },
    version: { description: "The item's version after the event.", type: ['integer', 'null'], context: [...BOTH], readonly: true },
    status: { description: 'pending, delivered, or failed (every retry failed: the dead-letter list).', type: 'string', enum: [...DELIVERY_STATES], context: [...BOTH], readonly: true },
    attempts: { description: 'Attempts made.', type: 'integer', context: [...BOTH], readonly: true },
    next_attempt: { description: 'When the next attempt is due, in GMT.', type: ['string', 'null'], format: 'date-time', context: [...BOTH], readonly: true },
    last_status: { description: "The last response's status.", type: ['integer', 'null'], context: [...BOTH], readonly: true },
    created: { description: 'When it was queued, in GMT.', type: 'string', format: 'date-time', context: [...BOTH], readonly: true },
    payload: { description: 'The request body, the same on every attempt.', type: 'string', context: [...BOTH], readonly: true },
    log: { description: 'The newest attempts, oldest first.', type: 'array', items: attemptSchema, context: [...BOTH], readonly: true },
  },
};
