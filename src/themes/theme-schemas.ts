import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { packageRoot } from '../config.js';

const readSchema = (name: string) => JSON.parse(fs.readFileSync(path.join(packageRoot(), 'schemas', name), 'utf8')) as Record<string, unknown>;

const ajv = new Ajv({ strict: false, allErrors: false });
ajv.addSchema(readSchema('theme.schema.json'));
ajv.addSchema(readSchema('theme-manifest.schema.json'));

const compiled = (ref: string): ValidateFunction => ajv.getSchema(ref)!;

/** `schemas/theme.schema.json`: a theme's `theme.json` and its style variations. */
export const validateThemeJson = compiled('theme.schema.json');
/** `schemas/theme-manifest.schema.json`. */
export const validateThemeManifest = compiled('theme-manifest.schema.json');
/** The `settings` and `styles` sections of theme.json, which user global styles must also satisfy. */
export const validateThemeSettings = compiled('theme.schema.json#/definitions/settings');
export const validateThemeStyles = compiled('theme.schema.json#/definitions/styles');
