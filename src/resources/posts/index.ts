import { type Deps } from '../../deps.js';
import { changeLog, changeLogIndexes } from '../../store/change-log.js';
import { healProjections } from '../../store/projections.js';
import { type ResourceManifest } from '../manifest.js';
import { postIndexes } from './post.model.js';
import { postsProjection } from './post.projection.js';
import { postTypeRoutes } from './post.routes.js';
import { POST_TYPES } from '../../registry/post-types.js';

/** Projects the events a crash left behind (appended, never applied) before the service answers. */
async function heal(deps: Deps): Promise<void> {
  const healed = await healProjections(deps.store.db, changeLog(deps.store.db), [postsProjection]);
  if (healed > 0) deps.logger.warn({ healed }, 'projections healed from the change log');
}

/** Posts and pages (every event-sourced post type): the change log, its projections, and their routes. */
export const postsResource: ResourceManifest = {
  routes: POST_TYPES.filter((type) => type.slug === 'post' || type.slug === 'page').flatMap(postTypeRoutes),
  indexes: [...postIndexes, ...changeLogIndexes],
  seed: heal,
};
