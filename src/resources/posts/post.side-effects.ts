import { type Deps } from '../../deps.js';
import { formatRestDate } from '../../lib/site-dates.js';
import { siteChanges, updatePost } from './post.commands.js';
import { postsCollection, type PostDoc } from './post.model.js';

/** How often a process looks for scheduled items that are due: a scheduled item is published within this long of its time. */
const DUE_CHECK_INTERVAL_MS = 1000;
const nextDueCheck = new WeakMap<object, number>();

/**
 * Publishes scheduled items whose time has come (WordPress's `publish_future_post` cron),
 * checked when items are read, so no process needs a timer: one indexed query a second at most.
 */
export async function publishDuePosts(deps: Deps): Promise<number> {
  const clock = deps.clock();
  if ((nextDueCheck.get(deps.store.db) ?? 0) > clock.getTime()) return 0;
  nextDueCheck.set(deps.store.db, clock.getTime() + DUE_CHECK_INTERVAL_MS);
  const now = formatRestDate(clock)!;
  const due = await postsCollection(deps.store.db).find({ status: 'future', dateGmt: { $lte: now } }, { projection: { _id: 1, author: 1 } }).toArray();
  for (const doc of due) {
    const published = await updatePost(deps, doc._id, (current) => siteChanges(current.status === 'future' ? { status: 'publish' } : {}), doc.author, { revisions: false });
    await afterPostWrite(deps, { ...published, status: 'future' }, published);
  }
  return due.length;
}

/**
 * What follows a write of an item, after its event was appended and before it is answered: the
 * hooks other resources declare (term counts, a top-level page published for the first time
 * joining the menus that add pages), none of which fails the write.
 */
export function afterPostWrite(deps: Deps, before: PostDoc | null, after: PostDoc | null): Promise<void> {
  return deps.hooks.afterPostWrite(deps, { before, after });
}
