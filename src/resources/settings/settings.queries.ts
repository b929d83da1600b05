import { type Db } from 'mongodb';
import { SETTINGS, type SettingDef, type SettingName, type SettingValue } from '../../registry/settings.js';
import { firstAdministratorEmail } from '../users/index.js';
import { keptPerDatabase } from '../../store/coordination/site-changes.js';
import { prepareValue } from './settings.schema.js';

/** An option as stored: its value as JSON. The collection also holds options no setting exposes (`auth_key`). */
export interface OptionDoc {
  _id: string;
  value: string;
}

export const optionsCollection = (db: Db) => db.collection<OptionDoc>('options');

/**
 * How long a process trusts the settings it read when no write says otherwise: a change made
 * through any process is seen at once (`SiteChanges`), one made behind the service's back within this.
 */
export const SETTINGS_CACHE_MS = 1000;
// Every setting's option at once: the next request wants another, and one query costs as much.
const everyOption = keptPerDatabase(SETTINGS_CACHE_MS, async (db) => {
  const docs = await optionsCollection(db).find({ _id: { $in: SETTINGS.map((def) => def.option) } }).toArray();
  return new Map(docs.map((doc) => [doc._id, parseJson(doc.value)]));
}, 'site');
/** The last settings read, for when the database does not answer: a write already made is still answered with its item. */
const lastRead = new WeakMap<Db, Map<string, unknown>>();

/** The stored values of `defs`, parsed, keyed by option name; an unreadable one counts as null. */
export async function storedOptions(db: Db, defs: readonly SettingDef[]): Promise<Map<string, unknown>> {
  let all: Map<string, unknown>;
  try {
    all = await everyOption.get(db);
    lastRead.set(db, all);
  } catch (error) {
    const last = lastRead.get(db);
    if (!last) throw error;
    all = last;
  }
  return new Map(defs.filter((def) => all.has(def.option)).map((def) => [def.option, all.get(def.option)]));
}

/** After a write of options: the next read asks the database. */
export function forgetStoredOptions(db: Db): void {
  everyOption.forget(db);
  lastRead.delete(db);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function defaultOf(def: SettingDef, db: Db, siteUrl: string): Promise<unknown> {
  if (def.installDefault === 'siteUrl') return siteUrl;
  if (def.installDefault === 'adminEmail') return firstAdministratorEmail(db);
  return def.default;
}

/** Every setting: the stored value, else its default, as its schema reads it. */
export async function readSettings(db: Db, siteUrl: string): Promise<Record<SettingName, SettingValue>> {
  const stored = await storedOptions(db, SETTINGS);
  const values: Record<string, SettingValue> = {};
  for (const def of SETTINGS) {
    const raw = stored.has(def.option) ? stored.get(def.option) : await defaultOf(def, db, siteUrl);
    values[def.name] = prepareValue(def, raw);
  }
  return values as Record<SettingName, SettingValue>;
}

/**
 * One setting, for other resources (the timezone: `siteTimezone`). The site URL is left out: its
 * default is the running service's URL, which handlers have as `deps.siteUrl`.
 */
export async function readSetting(db: Db, name: Exclude<SettingName, 'url'>): Promise<SettingValue> {
  const def = SETTINGS.find((candidate) => candidate.name === name)!;
  const stored = await storedOptions(db, [def]);
  return prepareValue(def, stored.has(def.option) ? stored.get(def.option) : await defaultOf(def, db, ''));
}

/** The site's timezone setting: an IANA name, a manual offset (`UTC+5:30`), or '' for UTC. */
export async function siteTimezone(deps: { store: { db: Db } }): Promise<string> {
  return String((await readSetting(deps.store.db, 'timezone')) ?? '');
}
