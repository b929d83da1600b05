export { revisionRoutes } from './revision.routes.js';
export { autosaveKey, autosaveOf, REVISION_BLOCK, revisionBlock, revisionsCollection, storedRevision, type RevisionDoc, type RevisionKind } from './revision.model.js';
export { restoringWriters, type RevisionedItem, type RevisionedType, type RevisionRecord } from './revisioned-type.js';
export { revisionSchema } from './revision.schema.js';
export { prepareRevision, revisionRecord } from './revision.serializer.js';
export { canReadRevisions } from './revision.permissions.js';
export { autosavesOf, newestAutosave, parentOf, routeItemOf } from './revision.queries.js';
