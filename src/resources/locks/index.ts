import { type ResourceManifest } from '../manifest.js';
import { lockIndexes } from './lock.model.js';

export { lockRoutes, lockKey, type LockAccess } from './lock.routes.js';
export { answerCarriesLock, currentLock, currentLocks, otherHolder, type LockRef } from './lock.commands.js';
export { isLockEvent, LOCK_CHANGE_TYPES, LOCK_STREAM_TYPE, lockStream, type LockEvent, type LockEventData, type LockEventFields } from './lock.events.js';
export { lockField } from './lock.schema.js';
export { lockFields } from './lock.serializer.js';
export { type LockDoc } from './lock.model.js';
export { lapseDueLocks, nextLockLapseAt } from './lock.lapses.js';

/**
 * Edit locks: the collection every type's `/<id>/lock` route keeps them in. The routes come with
 * each type (posts and pages, templates, menu items), as its revisions and autosaves do.
 */
export const locksResource: ResourceManifest = { routes: [], indexes: lockIndexes };
