import { type FieldSchema, type ItemSchema } from '../../rest/schema.js';

const ALL = ['view', 'edit', 'embed'] as const;

/** A lock's fields, as its route answers them and as an item's `lock` field holds them. */
const lockProperties: Record<string, FieldSchema> = {
  user: { description: 'The ID of the user holding the lock.', type: 'integer', context: [...ALL], readonly: true },
  since: { description: 'When the holder took the lock, as GMT.', type: 'string', format: 'date-time', context: [...ALL], readonly: true },
  refreshed: { description: 'When the holder last took or refreshed the lock, as GMT.', type: 'string', format: 'date-time', context: [...ALL], readonly: true },
  lapses: { description: 'When the lock lapses unless refreshed, as GMT.', type: 'string', format: 'date-time', context: [...ALL], readonly: true },
};

export const lockSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'edit-lock',
  type: 'object',
  properties: lockProperties,
};

/** An item's `lock` field (edit context): who is editing it, or null when no one is. */
export const lockField: FieldSchema = {
  description: 'The edit lock on the item: who holds it and until when; null when no one does. Advisory: writes are not refused.',
  type: ['object', 'null'],
  properties: Object.fromEntries(Object.entries(lockProperties).map(([name, { context: _context, readonly: _readonly, ...field }]) => [name, field])),
  context: ['edit'],
  readonly: true,
};
