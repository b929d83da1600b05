import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Db } from 'mongodb';
import { loadSiteKey } from '../../auth/site-key.js';
import { clientInput, parseQueryString } from '../../rest/client-input.js';
import { InvalidWidget } from './widget-type.errors.js';
import { type WidgetTypeDef } from './widget-type.registry.js';

/** `instance` as a response shows it: the settings encoded, their keyed hash, and `raw` if the type shows it. */
export interface EncodedInstance {
  encoded: string;
  hash: string;
  raw?: Record<string, unknown>;
}

const siteKeys = new WeakMap<Db, Promise<string>>();

function siteKey(db: Db): Promise<string> {
  let key = siteKeys.get(db);
  if (!key) {
    key = loadSiteKey(db);
    key.catch(() => siteKeys.delete(db));
    siteKeys.set(db, key);
  }
  return key;
}

// WordPress's `wp_hash` of the serialized instance; the purpose is mixed in so that no other keyed hash of the site can be replayed here.
const hashOf = (key: string, serialized: string) => createHmac('sha256', key).update(`widget-instance\n${serialized}`).digest('hex');

/**
 * The stored settings as clients receive them: base64 of their JSON (WordPress serializes PHP)
 * with a hash only the site can make, so that a client can send them back but not forge them.
 */
export async function encodeInstance(db: Db, type: WidgetTypeDef, serialized: string): Promise<EncodedInstance> {
  const encoded: EncodedInstance = { encoded: Buffer.from(serialized, 'utf8').toString('base64'), hash: hashOf(await siteKey(db), serialized) };
  if (type.showInstanceInRest) encoded.raw = JSON.parse(serialized) as Record<string, unknown>;
  return encoded;
}

/** Settings a client sent back as `encoded` and `hash`; refused unless the hash is the site's own. */
export async function decodeInstance(db: Db, encoded: string, hash: string): Promise<Record<string, unknown>> {
  const serialized = Buffer.from(encoded, 'base64').toString('utf8');
  const expected = Buffer.from(hashOf(await siteKey(db), serialized));
  const given = Buffer.from(hash);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new InvalidWidget('malformed');
  const parsed: unknown = JSON.parse(serialized);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidWidget('malformed');
  return parsed as Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The settings a request's `instance` carries (`WP_REST_Widgets_Controller::save_widget`): `raw`
 * where the type accepts it, else `encoded` with a matching `hash`.
 */
export async function requestedInstance(db: Db, type: WidgetTypeDef, instance: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (instance.raw !== undefined && instance.raw !== null) {
    if (!type.showInstanceInRest) throw new InvalidWidget('rawNotSupported');
    return isObject(instance.raw) ? instance.raw : {};
  }
  if (typeof instance.encoded === 'string' && typeof instance.hash === 'string') return decodeInstance(db, instance.encoded, instance.hash);
  throw new InvalidWidget('invalid');
}

/**
 * The settings an admin-form submission (`form_data`, URL-encoded) gives a widget:
 * `widget-<id_base>[<number>][<field>]`, read for `number`, or for the one widget it names when the
 * client could not know the number yet. Undefined when it carries nothing for this type.
 */
export function formDataInstance(type: WidgetTypeDef, formData: string, number?: number): Record<string, unknown> | undefined {
  const form = clientInput(parseQueryString(formData, { indexedArrays: false }), 'form');
  const key = `widget-${type.id}`;
  const byNumber = Object.hasOwn(form, key) ? form[key] : undefined;
  if (!isObject(byNumber)) return undefined;
  const numbers = Object.keys(byNumber);
  const chosen = number !== undefined && Object.hasOwn(byNumber, String(number)) ? byNumber[String(number)] : numbers.length === 1 ? byNumber[numbers[0]] : undefined;
  return isObject(chosen) ? chosen : undefined;
}
