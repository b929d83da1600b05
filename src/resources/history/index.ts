import { postTypesSupporting } from '../../registry/post-types.js';
import { type ResourceManifest } from '../manifest.js';
import { historyRoutes } from './history.routes.js';

export { timelineEntry, type TimelineEntry } from './history.serializer.js';

/**
 * `/<rest_base>/<id>/history` of every posts-controller type that keeps revisions: its change
 * log is what revisions are materialized from.
 */
/** The post types whose items keep a change log. */
export const HISTORY_TYPES: readonly string[] = postTypesSupporting('posts', 'revisions').map((type) => type.slug);

export const historyResource: ResourceManifest = {
  routes: postTypesSupporting('posts', 'revisions').flatMap(historyRoutes),
};
