import { postTypesSupporting } from '../../registry/post-types.js';
import { type ResourceManifest } from '../manifest.js';
import { autosaveRoutes, postAutosaves } from './autosave.routes.js';

export { autosaveRoutes, type AutosavingType } from './autosave.routes.js';

/** `/<rest_base>/<id>/autosaves` of every posts-controller type that supports `autosave`; menu items register their own. */
export const autosavesResource: ResourceManifest = {
  routes: postTypesSupporting('posts', 'autosave').flatMap((type) => autosaveRoutes(postAutosaves(type))),
};
