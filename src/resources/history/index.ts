import { findPostType, type PostTypeDef } from '../../registry/post-types.js';
import { type ResourceManifest } from '../manifest.js';
import { historyRoutes } from './history.routes.js';

export { timelineEntry, type TimelineEntry } from './history.serializer.js';

/** The post types whose items keep a change log; menu items (`nav_menu_item`) join when they do. */
export const HISTORY_TYPES: readonly string[] = ['post', 'page'];

export function historyType(slug: string): PostTypeDef {
  const def = findPostType(slug);
  if (!def) throw new Error(`Post type ${slug} is not registered`);
  return def;
}

/** `/posts/<id>/history` and `/pages/<id>/history`, generated from the post-type registry. */
export const historyResource: ResourceManifest = {
  routes: HISTORY_TYPES.flatMap((slug) => historyRoutes(historyType(slug))),
};
