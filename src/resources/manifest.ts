import { type Deps } from '../deps.js';
import { type RouteSpec } from '../rest/route.js';
import { type IndexSpec } from '../store/mongo.js';

/** What a resource folder exports: its routes and the indexes its queries need. */
export interface ResourceManifest {
  readonly routes: readonly RouteSpec<Deps>[];
  readonly indexes?: readonly IndexSpec[];
}

export function indexesOf(resources: readonly ResourceManifest[]): IndexSpec[] {
  return resources.flatMap((resource) => resource.indexes ?? []);
}
