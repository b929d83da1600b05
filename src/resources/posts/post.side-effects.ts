import { type Deps } from '../../deps.js';
import { formatRestDate } from '../../lib/site-dates.js';
import { addPublishedPageToMenus } from '../menus/menu.auto-add.js';
import { setTermCount } from '../terms/index.js';
import { updatePost } from './post.commands.js';
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
    const published = await updatePost(deps, doc._id, (current) => (current.status === 'future' ? { status: 'publish' } : {}), doc.author, { revisions: false });
    await afterPostWrite(deps, { ...published, status: 'future' }, published);
  }
  return due.length;
}

/**
 * What follows a write of an item, after its event was appended, so it never fails the write:
 * term counts, and a top-level page published for the first time joining the menus that add pages.
 */
export async function afterPostWrite(deps: Deps, before: PostDoc | null, after: PostDoc | null): Promise<void> {
  await refreshTermCounts(deps, before, after);
  try {
    await addPublishedPageToMenus(deps, before, after);
  } catch (error) {
    deps.logger.warn({ err: error, item: after?._id }, 'a published page was not added to its menus');
  }
}

/** What term counts depend on. */
export type TermFacts = Pick<PostDoc, '_id' | 'status' | 'terms'>;

/**
 * Term `count` is the number of published items carrying the term; recounted for the terms a
 * write touched. Run after the write's event was appended, so it never fails the write: a count
 * it could not refresh is set right by the next write touching the term.
 */
async function refreshTermCounts(deps: Deps, before: TermFacts | null, after: TermFacts | null): Promise<void> {
  try {
    await recountTerms(deps, before, after);
  } catch (error) {
    deps.logger.warn({ err: error, item: (after ?? before)?._id }, 'term counts not refreshed after a write');
  }
}

async function recountTerms(deps: Deps, before: TermFacts | null, after: TermFacts | null): Promise<void> {
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
      await setTermCount(deps.store.db, id, count);
    }
  }
}
