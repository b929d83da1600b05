import { type Collection, type Db } from 'mongodb';
import { type BlockJson } from '../../registry/block-types.js';

export const PLUGIN_STATUSES = ['inactive', 'active'] as const;
export type PluginStatus = (typeof PLUGIN_STATUSES)[number];

/** A package's `plugin.json`, as `schemas/plugin.schema.json` admits it (WordPress's plugin header fields). */
export interface PluginManifest {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly author?: string;
  readonly author_uri?: string;
  readonly plugin_uri?: string;
  readonly requires_cms?: string;
  readonly requires_runtime?: string;
  readonly textdomain?: string;
  readonly network_only?: boolean;
}

/**
 * An installed plugin: one document per plugin in the `plugins` collection, so every service
 * process sees the same plugins and statuses. `_id` is WordPress's plugin identifier
 * (`<folder>/<main file>`, here `<slug>/<slug>`), unique by nature: of two installs of one slug,
 * the second insert fails.
 */
export interface PluginDoc {
  _id: string;
  slug: string;
  status: PluginStatus;
  manifest: PluginManifest;
  /** The package's block.json files, as JSON text: their attribute names are not the service's to put in BSON keys. */
  blocks: string;
  installed: Date;
}

export function pluginsCollection(db: Db): Collection<PluginDoc> {
  return db.collection<PluginDoc>('plugins');
}

export function pluginId(slug: string): string {
  return `${slug}/${slug}`;
}

export function blocksOf(doc: PluginDoc): BlockJson[] {
  return JSON.parse(doc.blocks) as BlockJson[];
}

/** Every installed plugin, in the order they were installed. The collection holds a handful of documents. */
export function installedPlugins(db: Db, filter: { status?: PluginStatus } = {}): Promise<PluginDoc[]> {
  return pluginsCollection(db).find(filter).sort({ installed: 1, _id: 1 }).toArray();
}

/**
 * The block types of the active plugins, read from the database on every call, so a plugin
 * activated through any process contributes its blocks in every process at once.
 */
export async function activePluginBlockTypes(db: Db): Promise<BlockJson[]> {
  return (await installedPlugins(db, { status: 'active' })).flatMap(blocksOf);
}
