import { postTypesSupporting } from '../../registry/post-types.js';
import { type ResourceManifest } from '../manifest.js';
import { postHistorySubject } from './history.queries.js';
import { postChangeSource } from './history.sources.js';
import { historyRoutes } from './history.routes.js';

export { timelineEntry, type TimelineEntry } from './history.serializer.js';
export { historyRoutes };
export { type HistorySubject } from './history.queries.js';

/**
 * `/<rest_base>/<id>/history` of every posts-controller type that keeps revisions: its change
 * log is what revisions are materialized from. Menu items register their own.
 */
export const historyResource: ResourceManifest = {
  routes: postTypesSupporting('posts', 'revisions').flatMap((type) => historyRoutes(postHistorySubject(type))),
  changeSources: [postChangeSource(postTypesSupporting('posts', 'revisions'))],
};
