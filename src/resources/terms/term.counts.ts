import { type Db } from 'mongodb';
import { type CommittedChange, type Deps, type WrittenPost } from '../../deps.js';
import { TAXONOMIES } from '../../registry/taxonomies.js';
import { findTermedPost, type TermedPost } from '../posts/index.js';
import { appendToggle, togglesOf } from './term.count-log.js';

/** What term counts depend on. */
type TermFacts = Pick<WrittenPost, 'type' | 'status' | 'terms'>;

// The taxonomies whose terms count posts (`_update_post_term_count`), and the post types each counts;
// menus keep no count (`hide_empty` looks for a published item).
const COUNTED = TAXONOMIES.filter((taxonomy) => taxonomy.slug !== 'nav_menu');

/** The taxonomies whose terms keep a count. */
export const COUNTED_TAXONOMIES = COUNTED.map((taxonomy) => taxonomy.slug);

/** The post types whose items any term counts. */
export const COUNTED_TYPES = [...new Set(COUNTED.flatMap((taxonomy) => taxonomy.types))];

/**
 * The terms an item in this state counts for: WordPress's `_update_post_term_count` counts, for a
 * term, the published items of the post types its taxonomy is registered for (attachments
 * would count through a published parent, but no taxonomy here is registered for them).
 */
export function countedTerms(item: TermFacts | TermedPost | null): Set<number> {
  const counted = new Set<number>();
  if (!item || item.status !== 'publish') return counted;
  for (const taxonomy of COUNTED) {
    if (!taxonomy.types.includes(item.type)) continue;
    for (const id of item.terms?.[taxonomy.slug] ?? []) counted.add(id);
  }
  return counted;
}

const sameTerms = (a: TermFacts, b: TermFacts) => a.type === b.type && a.status === b.status && JSON.stringify(a.terms) === JSON.stringify(b.terms);

/**
 * Term `count` is the number of published items carrying the term, kept (term.count-log.ts) after
 * each write that could change it. Run after the write's event was appended, so it never fails
 * the write: an item it could not settle is settled by its next write, or by the start-up heal.
 */
export async function refreshTermCounts(deps: Deps, { before, after }: CommittedChange<WrittenPost>): Promise<void> {
  if (before && after && sameTerms(before, after)) return;
  // A new item has no toggles: one that counts for nothing (a draft) has nothing to settle.
  if (!before && countedTerms(after).size === 0) return;
  const id = (after ?? before)!._id;
  try {
    await settleTermCounts(deps.store.db, id);
  } catch (error) {
    deps.logger.warn({ err: error, item: id }, 'term counts not refreshed after a write');
  }
}

/**
 * Brings an item's toggles in line with the item as it is now: for each term it counts for, or
 * has a toggle of, a toggle where the two differ. Reading the item as it is (not as one write
 * left it) makes the outcome the same however often, in whatever order, and by however many
 * processes this runs: a writer that toggled reads the item again, so the last toggle made
 * follows the item's last state. What it costs follows the item's terms and toggles, not the site.
 */
export async function settleTermCounts(db: Db, id: number): Promise<number> {
  let toggles = 0;
  for (let round = 0; ; round++) {
    const [item, made] = await Promise.all([findTermedPost(db, id), togglesOf(db, id)]);
    const wanted = countedTerms(item);
    const changes = [...new Set([...wanted, ...made.keys()])].filter((term) => wanted.has(term) !== ((made.get(term) ?? 0) % 2 === 1));
    if (!changes.length) return toggles;
    // A term another writer toggled meanwhile is looked at again, from the item's toggles read anew.
    for (const term of changes) if (await appendToggle(db, term, id, (made.get(term) ?? 0) + 1)) toggles++;
    if (round > 100) throw new Error(`the term counts of item ${id} did not settle`);
  }
}
