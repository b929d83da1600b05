import { postTypesSupporting } from '../../registry/post-types.js';
import { type ResourceManifest } from '../manifest.js';
import { postIndexes } from './post.model.js';
import { backfillAutosaveKeys, backfillRevisionBlocks, postsProjection } from './post.projection.js';
import { handOverPostsOf } from './post.authors.js';
import { publishedAuthorIds } from './post.lookups.js';
import { postTypeRoutes } from './post.routes.js';
import { startScheduler } from './post.scheduler.js';
import { scheduledChangeIndexes } from './scheduled-change.model.js';
import { scheduledChangeRoutes, scheduledChangesListRoutes } from './scheduled-change.routes.js';
import { autosaveRoutes } from '../autosaves/index.js';
import { historyRoutes } from '../history/index.js';
import { lockRoutes } from '../locks/index.js';
import { revisionRoutes } from '../revisions/index.js';
import { postChangeSource, postHistorySubject } from './post.changes.js';
import { postAutosaves, postRevisions } from './post.revisions.js';

// What other resources take of posts: media (attachments are posts), menu items (which link to
// posts and keep revisions beside theirs), and the lookups and reads of the collection it owns.
export { autosavePost, deleteRevision, newestRevision, restoreRevision, siteChanges, siteNow, uniqueSlug, updatePost } from './post.commands.js';
export { POST_EVENT_TYPES } from './post.events.js';
export { changesFromRequest, rawText } from './post.input.js';
export { findTaggedPost, findTermedPost, postExists, scanTermedPosts, type TermedPost } from './post.lookups.js';
export { autosaveOf, postsCollection, revisionsCollection, storedRevision, type PostDoc, type PostFields, type RevisionDoc } from './post.model.js';
export { canDeletePost, canEditPost, canReadPost } from './post.permissions.js';
export { findPostOfType, postEtag, postHistory } from './post.history.js';
export { dateBounds, PostInvalidPage, postListQuery, searchColumnsFilter } from './post.queries.js';
export { POST_LIST_FILTER_ARGS, postListArgs, postWriteArgs, postTypeSchema } from './post.schema.js';
export { permalink, prepareMany, prepareOne, preparePost } from './post.serializer.js';

/**
 * Posts and pages (the types the posts controller serves): their routes, indexes and projection;
 * for the types that support them, as WordPress registers them, their revisions, autosaves and
 * history over the shared routes, and their changes in the feed; their scheduled changes; and the
 * scheduler, which publishes scheduled items of every post type, and applies scheduled changes, at
 * their time.
 */
export const postsResource: ResourceManifest = {
  routes: [
    ...postTypesSupporting('posts').flatMap(postTypeRoutes),
    ...postTypesSupporting('posts', 'revisions').flatMap((type) => revisionRoutes(postRevisions(type))),
    ...postTypesSupporting('posts', 'autosave').flatMap((type) => autosaveRoutes(postAutosaves(type))),
    ...postTypesSupporting('posts', 'revisions').flatMap((type) => historyRoutes(postHistorySubject(type))),
    ...postTypesSupporting('posts').flatMap((type) => lockRoutes(postRevisions(type))),
    ...postTypesSupporting('posts').flatMap(scheduledChangeRoutes),
    ...scheduledChangesListRoutes,
  ],
  changeSources: [postChangeSource(postTypesSupporting('posts', 'revisions'))],
  indexes: [...postIndexes, ...scheduledChangeIndexes],
  projections: [postsProjection],
  seed: async (deps) => {
    const blocked = await backfillRevisionBlocks(deps.store.db);
    if (blocked > 0) deps.logger.info({ revisions: blocked }, 'revision rows given their block of the log');
    const keyed = await backfillAutosaveKeys(deps.store.db);
    if (keyed > 0) deps.logger.info({ autosaves: keyed }, 'autosave rows given their key');
  },
  hooks: {
    beforeUserDelete: async (deps, { user, reassignTo, actor }) => {
      await handOverPostsOf(deps, user, reassignTo, actor);
    },
    answers: { publishedAuthorIds },
  },
  background: startScheduler,
};
