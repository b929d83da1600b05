export { revisionRoutes } from './revision.routes.js';
export { restoringWriters, type RevisionedItem, type RevisionedType } from './revisioned-type.js';
export { revisionSchema } from './revision.schema.js';
export { prepareRevision, itemAsRevisionRecord, revisionRecord, type RevisionRecord } from './revision.serializer.js';
export { canReadRevisions } from './revision.permissions.js';
export { autosavesOf, newestAutosave, parentOf } from './revision.queries.js';
