import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../config.js';
import { insideFolder, OutsideFolderError } from '../../lib/inside-folder.js';
import { BlockTypeFileError, describeSchemaError, isCoreBlockType, parseBlockJson, type BlockJson } from '../../registry/block-types.js';
import { createAjv } from '../../rest/schema.js';
import { IncompatibleArchive, PluginsApiFailed } from './plugin.errors.js';
import { type PluginManifest } from './plugin.model.js';

/** A directory slug, as WordPress's `[\w\-]+` but anchored: nothing else reaches the filesystem. */
export const PLUGIN_SLUG_PATTERN = '^[A-Za-z0-9_-]{1,100}$';
const SLUG = new RegExp(PLUGIN_SLUG_PATTERN);

/** What a package may hold: enough for a manifest and its blocks' definitions and assets, no more. */
const LIMITS = { entries: 500, depth: 6, fileBytes: 512 * 1024, packageBytes: 4 * 1024 * 1024, blocks: 100 };

const validateManifest = createAjv().compile(JSON.parse(fs.readFileSync(path.join(packageRoot(), 'schemas', 'plugin.schema.json'), 'utf8')));

/** A package read from the plugin directory and found whole: its manifest and its block types. */
export interface PluginPackage {
  readonly slug: string;
  readonly manifest: PluginManifest;
  readonly blocks: readonly BlockJson[];
}

/**
 * Reads the package `<directory>/<slug>/` and checks all of it before anything is stored:
 * no symbolic link or special file anywhere, nothing outside its folder, bounded sizes,
 * `plugin.json` against the plugin schema, and every `blocks/<name>/block.json` against the
 * block schema, none named like a core block. Unknown slug: 404 `plugins_api_failed`;
 * anything wrong with the package: 400 `incompatible_archive` naming the file and the problem.
 */
export function readPluginPackage(directory: string, slug: string): PluginPackage {
  if (!SLUG.test(slug)) throw new PluginsApiFailed();
  if (!fs.statSync(directory, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`The plugin directory ${directory} (CMS_PLUGIN_DIRECTORY) is not a folder`);
  }
  const folder = inside(directory, slug, slug);
  const stat = fs.lstatSync(folder, { throwIfNoEntry: false });
  if (!stat) throw new PluginsApiFailed();
  if (stat.isSymbolicLink()) throw new IncompatibleArchive(slug, 'is a symbolic link; a package is a folder of its own');
  if (!stat.isDirectory()) throw new PluginsApiFailed();
  checkTree(folder);

  const manifest = readJson(folder, 'plugin.json');
  if (manifest === undefined) throw new IncompatibleArchive('plugin.json', 'is missing');
  if (!validateManifest(manifest)) throw new IncompatibleArchive('plugin.json', describeSchemaError(validateManifest.errors));

  return { slug, manifest: manifest as PluginManifest, blocks: readBlocks(folder) };
}

/** `relative` inside `folder`, or the package is refused. */
function inside(folder: string, relative: string, shown: string): string {
  const resolved = insideFolder(folder, relative);
  if (resolved instanceof OutsideFolderError) throw new IncompatibleArchive(shown, `is outside the package's folder (${resolved.reason})`);
  return resolved;
}

/** Walks the whole package without following anything: only folders and plain files, within the limits. */
function checkTree(folder: string): void {
  let entries = 0;
  let bytes = 0;
  const walk = (dir: string, relative: string, depth: number) => {
    if (depth > LIMITS.depth) throw new IncompatibleArchive(relative, `is nested more than ${LIMITS.depth} folders deep`);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const shown = relative ? `${relative}/${entry.name}` : entry.name;
      if (++entries > LIMITS.entries) throw new IncompatibleArchive(shown, `makes more than ${LIMITS.entries} files and folders`);
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) throw new IncompatibleArchive(shown, 'is a symbolic link');
      if (entry.isDirectory()) walk(full, shown, depth + 1);
      else if (!entry.isFile()) throw new IncompatibleArchive(shown, 'is not a plain file');
      else {
        const size = fs.lstatSync(full).size;
        if (size > LIMITS.fileBytes) throw new IncompatibleArchive(shown, `is larger than ${LIMITS.fileBytes} bytes`);
        bytes += size;
        if (bytes > LIMITS.packageBytes) throw new IncompatibleArchive(shown, `makes the package larger than ${LIMITS.packageBytes} bytes`);
      }
    }
  };
  walk(folder, '', 0);
}

function readJson(folder: string, relative: string): unknown {
  const file = inside(folder, relative, relative);
  if (!fs.existsSync(file)) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new IncompatibleArchive(relative, `is not valid JSON (${(error as Error).message})`);
  }
}

function readBlocks(folder: string): BlockJson[] {
  const blocksFolder = inside(folder, 'blocks', 'blocks');
  if (!fs.existsSync(blocksFolder)) return [];
  if (!fs.lstatSync(blocksFolder).isDirectory()) throw new IncompatibleArchive('blocks', 'is not a folder');
  const blocks: BlockJson[] = [];
  const names = new Set<string>();
  for (const entry of fs.readdirSync(blocksFolder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory()) continue;
    const relative = `blocks/${entry.name}/block.json`;
    if (blocks.length === LIMITS.blocks) throw new IncompatibleArchive(relative, `is one block more than the ${LIMITS.blocks} a package may have`);
    const blockFolder = inside(folder, `blocks/${entry.name}`, relative);
    const file = inside(folder, relative, relative);
    if (!fs.existsSync(file)) throw new IncompatibleArchive(relative, 'is missing');
    let block: BlockJson;
    try {
      block = parseBlockJson(fs.readFileSync(file, 'utf8'), relative, blockFolder);
    } catch (error) {
      if (error instanceof BlockTypeFileError) throw new IncompatibleArchive(relative, error.problem);
      throw error;
    }
    if (isCoreBlockType(block.name)) throw new IncompatibleArchive(relative, `declares ${block.name}, a core block type, which a plugin cannot replace`);
    if (names.has(block.name)) throw new IncompatibleArchive(relative, `declares ${block.name}, which another block of the package declares too`);
    names.add(block.name);
    blocks.push(block);
  }
  return blocks;
}
