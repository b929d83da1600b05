import { type CommittedWrite, type Deps, type WrittenPost } from '../../deps.js';
import { countPublishedWithTerm } from '../posts/index.js';
import { setTermCount } from './term.model.js';

/** What term counts depend on. */
type TermFacts = Pick<WrittenPost, '_id' | 'status' | 'terms'>;

/**
 * Term `count` is the number of published items carrying the term; recounted for the terms a
 * write touched. Run after the write's event was appended, so it never fails the write: a count
 * it could not refresh is set right by the next write touching the term.
 */
export async function refreshTermCounts(deps: Deps, { before, after }: CommittedWrite<WrittenPost>): Promise<void> {
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
  for (const [taxonomy, ids] of touched) {
    for (const id of ids) await setTermCount(deps.store.db, id, await countPublishedWithTerm(deps.store.db, taxonomy, id));
  }
}
