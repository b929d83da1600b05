import { type Deps } from '../../deps.js';
import { CannotDeleteActivePlugin, FolderExists, IncompatibleArchive, PluginNotFound } from './plugin.errors.js';
import { blocksOf, installedPlugins, pluginId, pluginsCollection, type PluginDoc, type PluginStatus } from './plugin.model.js';
import { readPluginPackage } from './plugin.package.js';
import { isDuplicateKey } from '../../store/database/mongo.js';

/**
 * Copies the package `slug` of the plugin directory into the database, whole or not at all.
 * The insert decides a race: of two installs of one slug, one stores its document and the
 * other is told `folder_exists`.
 */
export async function installPlugin(deps: Deps, slug: string, status: PluginStatus): Promise<PluginDoc> {
  const pkg = readPluginPackage(deps.config.pluginDirectory, slug);
  const id = pluginId(pkg.slug);
  const installed = await installedPlugins(deps.store.db);
  if (installed.some((doc) => doc._id === id)) throw new FolderExists();
  for (const other of installed) {
    const taken = new Set(blocksOf(other).map((block) => block.name));
    const clash = pkg.blocks.find((block) => taken.has(block.name));
    if (clash) throw new IncompatibleArchive(`blocks/${clash.name.split('/')[1]}/block.json`, `declares ${clash.name}, a block type of the installed plugin ${other._id}`);
  }
  const doc: PluginDoc = { _id: id, slug: pkg.slug, status, manifest: pkg.manifest, blocks: JSON.stringify(pkg.blocks), installed: deps.clock() };
  try {
    await pluginsCollection(deps.store.db).insertOne(doc);
  } catch (error) {
    if (isDuplicateKey(error)) throw new FolderExists();
    throw error;
  }
  return doc;
}

/**
 * Activates or deactivates a plugin. A single site activates a `network_only` plugin like any
 * other: WordPress refuses one only on a multisite network, to whoever cannot manage network plugins.
 */
export async function setPluginStatus(deps: Deps, doc: PluginDoc, status: PluginStatus): Promise<PluginDoc> {
  if (status === doc.status) return doc;
  const { matchedCount } = await pluginsCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: { status } });
  if (!matchedCount) throw new PluginNotFound();
  return { ...doc, status };
}

/** Deletes an inactive plugin; the status is part of the filter, so an activation racing the delete is never lost. */
export async function deletePlugin(deps: Deps, doc: PluginDoc): Promise<void> {
  const { deletedCount } = await pluginsCollection(deps.store.db).deleteOne({ _id: doc._id, status: 'inactive' });
  if (deletedCount) return;
  const now = await pluginsCollection(deps.store.db).findOne({ _id: doc._id });
  if (!now) throw new PluginNotFound();
  throw new CannotDeleteActivePlugin();
}
