import { type Deps } from '../../deps.js';
import { formatRestDate } from '../../lib/site-dates.js';
import { updatePost } from './post.commands.js';
import { postsCollection, type PostDoc } from './post.model.js';

/**
 * Publishes scheduled items whose time has come (WordPress's `publish_future_post` cron),
 * checked when items are read, so no process needs a timer. One indexed query when none is due.
 */
export async function publishDuePosts(deps: Deps): Promise<void> {
  const now = formatRestDate(deps.clock())!;
  const due = await postsCollection(deps.store.db).find({ status: 'future', dateGmt: { $lte: now } }, { projection: { _id: 1, author: 1 } }).toArray();
  for (const doc of due) {
    await updatePost(deps, doc._id, (current) => (current.status === 'future' ? { status: 'publish' } : {}), doc.author, { revisions: false });
  }
}

/** Term `count` is the number of published items carrying the term; recounted for the terms a write touched. */
export async function refreshTermCounts(deps: Deps, before: PostDoc | null, after: PostDoc | null): Promise<void> {
  if (before && after && before.status === after.status && JSON.stringify(before.terms) === JSON.stringify(after.terms)) return;
  const touched = new Map<string, Set<number>>();
  for (const doc of [before, after]) {
    for (const [taxonomy, ids] of Object.entries(doc?.terms ?? {})) {
      for (const id of ids) (touched.get(taxonomy) ?? touched.set(taxonomy, new Set()).get(taxonomy)!).add(id);
    }
  }
  const posts = postsCollection(deps.store.db);
  for (const [taxonomy, ids] of touched) {
    for (const id of ids) {
      const count = await posts.countDocuments({ status: 'publish', [`terms.${taxonomy}`]: id });
      await deps.store.db.collection('terms').updateOne({ _id: id } as never, { $set: { count } });
    }
  }
}
