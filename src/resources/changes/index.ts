import { type ResourceManifest } from '../manifest.js';
import { ChangeSources } from './changes.queries.js';
import { changesRoutes } from './changes.routes.js';

export { LAST_POSITION_HEADER } from './changes.routes.js';

/** The change feed (`/changes`) over the change log of every history type the resources declare a change source for. */
export function changesResource(resources: readonly ResourceManifest[]): ResourceManifest {
  return { routes: changesRoutes(new ChangeSources(resources.flatMap((resource) => resource.changeSources ?? []))) };
}
