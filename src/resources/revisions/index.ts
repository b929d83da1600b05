import { postTypesSupporting } from '../../registry/post-types.js';
import { type ResourceManifest } from '../manifest.js';
import { revisionRoutes } from './revision.routes.js';
import { postRevisions } from './revisioned-type.js';

export { revisionRoutes } from './revision.routes.js';
export { postRevisions, restoringWriters, type RevisionedItem, type RevisionedType } from './revisioned-type.js';
export { revisionSchema } from './revision.schema.js';
export { prepareRevision, itemAsRevisionRecord, revisionRecord, type RevisionRecord } from './revision.serializer.js';

/** `/<rest_base>/<parent>/revisions` of every posts-controller type that supports `revisions`, as WordPress registers them. */
export const revisionsResource: ResourceManifest = {
  routes: postTypesSupporting('posts', 'revisions').flatMap((type) => revisionRoutes(postRevisions(type))),
};
