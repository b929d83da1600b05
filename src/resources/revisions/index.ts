import { findPostType, type PostTypeDef } from '../../registry/post-types.js';
import { type ResourceManifest } from '../manifest.js';
import { revisionRoutes } from './revision.routes.js';

export { revisionRoutes } from './revision.routes.js';
export { revisionSchema } from './revision.schema.js';
export { prepareRevision, itemAsRevisionRecord, revisionRecord, type RevisionRecord } from './revision.serializer.js';

/** The post types served by the posts controller that keep revisions. */
export const REVISION_TYPES: readonly string[] = ['post', 'page'];

function registered(slug: string): PostTypeDef {
  const def = findPostType(slug);
  if (!def?.supports.revisions) throw new Error(`Post type ${slug} is not registered with revisions`);
  return def;
}

/** `/posts/<parent>/revisions` and `/pages/<parent>/revisions`, generated from the post-type registry. */
export const revisionsResource: ResourceManifest = {
  routes: REVISION_TYPES.flatMap((slug) => revisionRoutes(registered(slug))),
};
