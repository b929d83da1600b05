import { changeLog, changeLogIndexes, upgradePositions } from '../store/log/change-log.js';
import { healErasures } from '../store/log/erasure.js';
import { healFromCheckpoint } from '../store/projections/projections.js';
import { idClaimIndexes } from '../store/coordination/sequences.js';
import { writeClaimIndexes } from '../store/log/write-claims.js';
import { idempotencyIndexes } from '../rest/http/idempotency.js';
import { projectionsOf, type ResourceManifest } from './manifest.js';

/**
 * The change log shared by every history type: its indexes, and, before the service answers,
 * positions for events stored before them, then healing of what a crash left unprojected, each stream through its own type's projection as
 * the resource manifests declare them, then of the erasures it interrupted. A stream that cannot
 * be projected is recorded as a fault (its item answers an error, `/healthz` reports it) and
 * does not stop the start.
 */
export function changeLogResource(resources: readonly ResourceManifest[]): ResourceManifest {
  const registry = projectionsOf(resources);
  return {
    routes: [],
    // With the claims of `Idempotency-Key`s, which the log's events carry.
    indexes: [...changeLogIndexes, ...idClaimIndexes, ...writeClaimIndexes, ...idempotencyIndexes],
    seed: async (deps) => {
      // Before anything is appended: new events take positions above the upgraded ones.
      const positioned = await upgradePositions(deps.store.db);
      if (positioned > 0) deps.logger.info({ events: positioned }, 'events stored before positions given theirs');
      const healed = await healFromCheckpoint(deps.store.db, changeLog(deps.store.db, { postgres: deps.store.postgres }), registry, deps.logger, deps.clock());
      if (healed > 0) deps.logger.warn({ healed }, 'projections healed from the change log');
      await healErasures(deps.store.db, deps.logger);
    },
  };
}
