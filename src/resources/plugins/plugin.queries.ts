import { type Deps } from '../../deps.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { PluginNotFound } from './plugin.errors.js';
import { installedPlugins, pluginsCollection, type PluginDoc, type PluginStatus } from './plugin.model.js';
import { matchesSearch } from './plugin.serializer.js';

/** The route's plugin (`<folder>/<main>`), read once per request; 404 when it is not installed. */
export function findPlugin(req: RestRequest, deps: Deps): Promise<PluginDoc> {
  return req.memo('plugin', async () => {
    const doc = await pluginsCollection(deps.store.db).findOne({ _id: String(req.params.plugin) });
    if (!doc) throw new PluginNotFound();
    return doc;
  });
}

/** The installed plugins, filtered as WordPress filters them in memory: by `status` (any of) and `search`. */
export async function listPlugins(req: RestRequest, deps: Deps): Promise<PluginDoc[]> {
  const statuses = req.params.status as PluginStatus[] | undefined;
  const search = req.params.search === undefined ? '' : String(req.params.search);
  return (await installedPlugins(deps.store.db)).filter(
    (doc) => (!statuses?.length || statuses.includes(doc.status)) && (!search || matchesSearch(doc, search)),
  );
}
