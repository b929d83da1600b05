import { postTypesSupporting } from '../../registry/post-types.js';
import { type ResourceManifest } from '../manifest.js';
import { autosaveRoutes } from './autosave.routes.js';

export { autosaveRoutes, postAutosaveParent, type AutosaveParent } from './autosave.routes.js';

/** `/<rest_base>/<id>/autosaves` of every posts-controller type that supports `autosave`; menu items bring their own parent. */
export const autosavesResource: ResourceManifest = {
  routes: postTypesSupporting('posts', 'autosave').flatMap((type) => autosaveRoutes(type)),
};
