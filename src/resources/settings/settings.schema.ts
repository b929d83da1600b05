import { type ValidateFunction } from 'ajv';
import { isValidTimezone } from '../../lib/timezones.js';
import { type ArgSpec, type ArgSpecs, coerce, describeSchemaError } from '../../rest/args.js';
import { defineRestError } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { compileField, createAjv, type ItemSchema } from '../../rest/schema.js';
import { SETTINGS, type SettingDef, type SettingValue } from '../../registry/settings.js';

const InvalidTimezone = defineRestError(
  'invalid_timezone_string',
  'The timezone you have entered is not valid. Please select a valid timezone.',
  400,
);

/** The settings object: one property per registered setting, without contexts (WordPress filters nothing here). */
export const settingsSchema: ItemSchema = {
  title: 'settings',
  type: 'object',
  properties: Object.fromEntries(SETTINGS.map((def) => [def.name, { ...def.schema, default: def.default }])),
};

const ajv = createAjv();
const validators = new Map<SettingDef, ValidateFunction>(SETTINGS.map((def) => [def, compileField(ajv, def.schema)]));

/** Checks a value against the setting's whole schema, and a timezone against the known zones; throws the RestError. */
function checkValue(def: SettingDef, value: unknown): void {
  const validate = validators.get(def)!;
  if (!validate(value)) throw describeSchemaError(def.name, def.schema, validate.errors?.[0]);
  if (def.name === 'timezone' && !isValidTimezone(String(value))) throw new InvalidTimezone({ param: def.name });
}

/**
 * A stored or default value as WordPress reads it back (`prepare_value`): cast to the setting's
 * type, or null when it no longer fits the schema.
 */
export function prepareValue(def: SettingDef, raw: unknown): SettingValue {
  const value = coerce(raw, def.schema);
  try {
    checkValue(def, value);
  } catch {
    return null;
  }
  return value as SettingValue;
}

/**
 * An update argument. WordPress lets `null` skip validation (it restores the default); ajv's
 * `nullable` keyword lets it through while type errors keep WordPress's wording. `enum` would
 * still refuse null, so the allowed values are checked after the type, with the same wording.
 */
function settingArg(def: SettingDef): ArgSpec<RestRequest> {
  const { enum: _allowed, ...schema } = def.schema;
  return {
    ...schema,
    nullable: true,
    validate: (value: unknown) => {
      if (value !== null) checkValue(def, value);
    },
  } as ArgSpec<RestRequest>;
}

export const settingsArgs: ArgSpecs<RestRequest> = Object.fromEntries(SETTINGS.map((def) => [def.name, settingArg(def)]));
