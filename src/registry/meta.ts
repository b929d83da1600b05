import { type FieldSchema, type JsonType } from '../rest/schema.js';

/** The kinds of object WordPress keeps meta for, as `register_meta`'s `$object_type` names them. */
export type MetaObjectType = 'post' | 'term' | 'user';

/** A meta key shown in REST (`register_meta` with `show_in_rest`). */
export interface MetaKeyDef {
  readonly objectType: MetaObjectType;
  /** The post type or taxonomy it is registered for; absent: every subtype. */
  readonly subtypes?: readonly string[];
  readonly key: string;
  /** The value's schema; its `default` is shown while nothing is stored. */
  readonly schema: FieldSchema & { default: unknown };
}

/**
 * Only registered keys are accepted and shown, as `WP_REST_Meta_Fields` does: a request's other
 * meta keys are ignored, so no client-chosen key is ever stored.
 */
export const META_KEYS: readonly MetaKeyDef[] = Object.freeze([
  // WordPress registers `footnotes` for post types with editor, revisions and custom fields.
  {
    objectType: 'post',
    subtypes: ['post', 'page'],
    key: 'footnotes',
    schema: { type: 'string', description: '', default: '', context: ['view', 'edit'] },
  },
  // WordPress 6.1's `wp_register_persisted_preferences_meta`: the block editor's preferences.
  {
    objectType: 'user',
    key: 'persisted_preferences',
    schema: {
      type: 'object',
      description: '',
      default: {},
      context: ['edit'],
      properties: { _modified: { description: 'The date and time the preferences were updated.', type: 'string', format: 'date-time', readonly: false } },
      additionalProperties: true,
    },
  },
] satisfies MetaKeyDef[]);

export function registeredMeta(objectType: MetaObjectType, subtype: string): MetaKeyDef[] {
  return META_KEYS.filter((def) => def.objectType === objectType && (!def.subtypes || def.subtypes.includes(subtype)));
}

/** The `meta` property of an item schema: one property per registered key, `null` deleting its value. */
export function metaSchema(objectType: MetaObjectType, subtype: string, context: FieldSchema['context']): FieldSchema {
  const properties: Record<string, FieldSchema> = {};
  for (const { key, schema } of registeredMeta(objectType, subtype)) properties[key] = { ...schema, type: [schema.type as JsonType, 'null'] };
  return { description: 'Meta fields.', type: 'object', context, properties };
}

type MetaValues = Record<string, unknown>;

function parseStored(stored: string | undefined): MetaValues {
  const parsed: unknown = JSON.parse(stored || '{}');
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as MetaValues) : {};
}

/**
 * The stored meta after a request's `meta` (validated by the args layer against `metaSchema`):
 * registered keys only, `null` deleting a value.
 */
export function mergeMeta(objectType: MetaObjectType, subtype: string, stored: string | undefined, input: unknown): MetaValues {
  const current = parseStored(stored);
  const next: MetaValues = {};
  const given = typeof input === 'object' && input !== null ? (input as MetaValues) : {};
  for (const { key } of registeredMeta(objectType, subtype)) {
    const value = Object.hasOwn(given, key) ? given[key] : Object.hasOwn(current, key) ? current[key] : undefined;
    if (value !== undefined && value !== null) next[key] = value;
  }
  return next;
}

/** The `meta` a response shows: every registered key, its default while nothing is stored. */
export function metaForResponse(objectType: MetaObjectType, subtype: string, stored: string | undefined): MetaValues {
  const current = parseStored(stored);
  const out: MetaValues = {};
  for (const { key, schema } of registeredMeta(objectType, subtype)) out[key] = Object.hasOwn(current, key) ? current[key] : schema.default;
  return out;
}
