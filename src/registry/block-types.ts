import fs from 'node:fs';
import path from 'node:path';
import { type ErrorObject } from 'ajv';
import { packageRoot } from '../config.js';
import { insideFolder, OutsideFolderError } from '../lib/inside-folder.js';
import { createAjv } from '../rest/schema.js';

/** A block type's `block.json`, as WordPress reads it (camelCase; see `schemas/block.schema.json`). */
export interface BlockJson {
  readonly name: string;
  readonly title: string;
  readonly [field: string]: unknown;
}

/** A `block.json` that cannot be used, named with the problem found in it. */
export class BlockTypeFileError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

/** Every `block.json` is checked against the schema the project ships, whoever wrote it. */
const validate = createAjv().compile(JSON.parse(fs.readFileSync(path.join(packageRoot(), 'schemas', 'block.schema.json'), 'utf8')));

export function describeSchemaError(errors: ErrorObject[] | null | undefined): string {
  const error = errors?.[0];
  if (!error) return 'does not match its schema';
  const where = error.instancePath || '(top level)';
  const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return `${where} ${error.message ?? 'is invalid'}${extra}`;
}

/** The asset fields of block.json whose `file:` values name files of the block's folder. */
export const ASSET_FIELDS = ['editorScript', 'script', 'viewScript', 'viewScriptModule', 'editorStyle', 'style', 'viewStyle', 'render'] as const;

/**
 * Parses and checks one `block.json` (`text`, read from `file` in `folder`): the schema, and that
 * every `file:` reference stays inside the block's folder. Throws `BlockTypeFileError`.
 */
export function parseBlockJson(text: string, file: string, folder: string): BlockJson {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BlockTypeFileError(file, `is not valid JSON (${(error as Error).message})`);
  }
  if (!validate(parsed)) throw new BlockTypeFileError(file, describeSchemaError(validate.errors));
  const block = parsed as BlockJson;
  for (const field of ASSET_FIELDS) {
    const values = block[field] === undefined ? [] : ([] as unknown[]).concat(block[field]);
    for (const value of values) {
      if (typeof value !== 'string' || !value.startsWith('file:')) continue;
      const inside = insideFolder(folder, value.slice('file:'.length));
      if (inside instanceof OutsideFolderError) throw new BlockTypeFileError(file, `${field} names a file outside the block's folder (${inside.reason})`);
    }
  }
  return block;
}

/**
 * The block types of a folder holding one folder per block (`<root>/<name>/block.json`), in the
 * order of their folder names, as WordPress registers its core blocks.
 */
export function readBlockFolders(root: string): BlockJson[] {
  const blocks: BlockJson[] = [];
  const names = new Set<string>();
  for (const entry of fs.readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory()) continue;
    const folder = path.join(root, entry.name);
    const file = path.join(folder, 'block.json');
    if (!fs.existsSync(file)) throw new BlockTypeFileError(file, 'is missing');
    const block = parseBlockJson(fs.readFileSync(file, 'utf8'), file, folder);
    if (names.has(block.name)) throw new BlockTypeFileError(file, `declares ${block.name}, which another block.json of ${root} declares too`);
    names.add(block.name);
    blocks.push(block);
  }
  return blocks;
}

/**
 * The core block types the site serves, read and checked once when the service starts (a
 * broken file stops it, naming the file and the problem), then frozen.
 */
export const CORE_BLOCK_TYPES: readonly BlockJson[] = Object.freeze(readBlockFolders(path.join(packageRoot(), 'blocks', 'core')).map((block) => Object.freeze(block)));

const coreNames = new Set(CORE_BLOCK_TYPES.map((block) => block.name));

export function isCoreBlockType(name: string): boolean {
  return coreNames.has(name);
}
