import { type Deps } from '../../deps.js';
import { formatRestDate } from '../../lib/site-dates.js';
import { siteChanges } from '../../store/coordination/site-changes.js';
import { publishScheduledPost } from './post.commands.js';
import { postsCollection } from './post.model.js';

/** How often a process looks for scheduled items that are due: a scheduled item is published within this long of its time. */
const DUE_CHECK_INTERVAL_MS = 1000;
const nextDueCheck = new WeakMap<object, number>();

/**
 * Publishes scheduled items whose time has come (WordPress's `publish_future_post` cron) when items
 * are read: one indexed query a second at most. The scheduler (`post.scheduler.ts`) publishes them
 * at their time without a request; this keeps a read that comes first from showing a due item as
 * scheduled.
 */
export async function publishDuePosts(deps: Deps): Promise<number> {
  const clock = deps.clock();
  if ((nextDueCheck.get(deps.store.db) ?? 0) > clock.getTime()) return 0;
  nextDueCheck.set(deps.store.db, clock.getTime() + DUE_CHECK_INTERVAL_MS);
  return publishDue(deps);
}

/**
 * Publishes every scheduled item whose time has come, each through its command
 * (`publishScheduledPost`, which the kernel follows with the hooks of a write), and tells the other processes (their
 * kept answers showed the items as scheduled). An item another process published first is left
 * as it is. How many items were due (a reader that read one of them before reads it again).
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
