import { type Deps } from '../deps.js';
import { type RouteSpec } from '../rest/route.js';
import { type IndexSpec } from '../store/mongo.js';

/** What a resource folder exports: its routes and the indexes its queries need. */
export interface ResourceManifest {
  readonly routes: readonly RouteSpec<Deps>[];
  readonly indexes?: readonly IndexSpec[];
  /** Records the resource needs before serving (the first administrator, the default category). */
  readonly seed?: (deps: Deps) => Promise<void>;
}

export function indexesOf(resources: readonly ResourceManifest[]): IndexSpec[] {
  return resources.flatMap((resource) => resource.indexes ?? []);
}
