import { findPostType, type PostTypeDef } from '../../registry/post-types.js';
import { type ResourceManifest } from '../manifest.js';
import { autosaveRoutes } from './autosave.routes.js';

export { autosaveRoutes, postAutosaveParent, type AutosaveParent } from './autosave.routes.js';

/** The post types served by the posts controller that keep autosaves; menu items bring their own parent. */
export const AUTOSAVE_TYPES: readonly string[] = ['post', 'page'];

function registered(slug: string): PostTypeDef {
  const def = findPostType(slug);
  if (!def) throw new Error(`Post type ${slug} is not registered`);
  return def;
}

/** `/posts/<id>/autosaves` and `/pages/<id>/autosaves`, generated from the post-type registry. */
export const autosavesResource: ResourceManifest = {
  routes: AUTOSAVE_TYPES.flatMap((slug) => autosaveRoutes(registered(slug))),
};
