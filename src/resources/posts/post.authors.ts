import { type Deps } from '../../deps.js';
import { deletePost, siteChanges, updatePost } from './post.commands.js';
import { postHistory } from './post.history.js';
import { postsCollection } from './post.model.js';

/**
 * A deleted user's items (WordPress's `wp_delete_user`), through the commands so that the log
 * keeps them: given to `reassignTo` by an `updated` event each, or deleted for good as a force
 * delete does. Each item is its own write (there are no transactions): a deletion that fails
 * part-way leaves the user, and sending it again finishes it. Items a concurrent request
 * deleted first are skipped.
 */
export async function handOverPostsOf(deps: Deps, author: number, reassignTo: number | null, actor: number): Promise<number> {
  const posts = postsCollection(deps.store.db);
  const owned = await posts
    .find({ author, type: { $in: [...postHistory.projection.streamTypes] } }, { projection: { _id: 1, status: 1, terms: 1 } })
    .toArray();
  let count = 0;
  for (const doc of owned) {
    try {
      if (reassignTo !== null) {
        await updatePost(deps, doc._id, siteChanges({ author: reassignTo }), actor, { revisions: false, keepModified: true });
      } else {
        await deletePost(deps, doc._id, actor);
      }
      count++;
    } catch (error) {
      if (!(error instanceof postHistory.NotFound)) throw error;
    }
  }
  return count;
}
