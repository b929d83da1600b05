import { type AnyBulkWriteOperation } from 'mongodb';
import { type Deps } from '../../deps.js';
import { defineRestError, defineRestErrorWith, invalidParams, type RestError } from '../../rest/errors.js';
import { SETTINGS, type SettingDef, type SettingValue } from '../../registry/settings.js';
import { prepareValue } from './settings.schema.js';
import { forgetStoredOptions, optionsCollection, storedOptions, type OptionDoc } from './settings.queries.js';

const InvalidAttachment = defineRestError('rest_invalid_param', 'Invalid attachment ID.', 400);

const InvalidStoredValue = defineRestErrorWith(
  'rest_invalid_stored_value',
  500,
  (name: string) => `The ${name} property has an invalid stored value, and cannot be updated to null.`,
);

/** Refuses a logo or icon that is neither 0 nor an attachment, reporting every such setting at once. */
async function checkAttachments(deps: Pick<Deps, 'store' | 'hooks'>, changes: [SettingDef, SettingValue][]): Promise<void> {
  const problems: Record<string, RestError> = {};
  for (const [def, value] of changes) {
    if (!def.attachment || value === null || value === 0) continue;
    if (!(await deps.hooks.isAttachment(deps.store.db, Number(value)))) problems[def.name] = new InvalidAttachment({ param: def.name });
  }
  if (Object.keys(problems).length) throw invalidParams(problems);
}

/**
 * Applies the registered settings present in `params` (unknown keys are ignored): a value is
 * stored as the save filters left it (`sanitize_option`, src/registry/saved-fields.ts), `null`
 * deletes the option so its default applies again.
 */
export async function updateSettings(deps: Pick<Deps, 'store' | 'hooks'>, params: Record<string, unknown>): Promise<void> {
  const { db } = deps.store;
  const changes = SETTINGS.filter((def) => params[def.name] !== undefined).map((def): [SettingDef, SettingValue] => [def, params[def.name] as SettingValue]);
  await checkAttachments(deps, changes);

  // WordPress refuses to reset an option whose stored value no longer fits its schema: a client
  // echoing back the null it was shown must not wipe it.
  const stored = await storedOptions(db, changes.filter(([, value]) => value === null).map(([def]) => def));
  for (const [def, value] of changes) {
    if (value !== null || !stored.has(def.option)) continue;
    if (prepareValue(def, stored.get(def.option)) === null) {
      throw new InvalidStoredValue(def.name);
    }
  }

  const writes: AnyBulkWriteOperation<OptionDoc>[] = changes.map(([def, value]) =>
    value === null
      ? { deleteOne: { filter: { _id: def.option } } }
      : { updateOne: { filter: { _id: def.option }, update: { $set: { value: JSON.stringify(value) } }, upsert: true } },
  );
  if (writes.length) {
    forgetStoredOptions(db);
    try {
      await optionsCollection(db).bulkWrite(writes, { ordered: true });
    } finally {
      forgetStoredOptions(db);
    }
  }
}
