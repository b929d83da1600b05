import { type Deps } from '../../deps.js';
import { formatRestDate } from '../../lib/site-dates.js';
import { siteChanges } from '../../store/coordination/site-changes.js';
import { publishScheduledPost } from './post.commands.js';
import { postsCollection } from './post.model.js';

/**
 * Publishes every scheduled item whose time has come (WordPress's `publish_future_post` cron),
 * each through its command (`publishScheduledPost`, which the kernel follows with the hooks of a
 * write), and tells the other processes (their kept answers showed the items as scheduled). Run by
 * the scheduler (`post.scheduler.ts`) alone: reads never write. An item another process published
 * first is left as it is. How many items were due.
 */
export async function publishDue(deps: Deps): Promise<number> {
  const now = formatRestDate(deps.clock())!;
  const due = await postsCollection(deps.store.db).find({ status: 'future', dateGmt: { $lte: now } }, { projection: { _id: 1, author: 1 } }).toArray();
  let published = 0;
  for (const doc of due) {
    if (await publishScheduledPost(deps, doc._id, doc.author)) published++;
  }
  if (published > 0) await siteChanges(deps.store.db).changed('content');
  return due.length;
}
