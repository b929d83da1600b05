import { type Db } from 'mongodb';
import { type Deps } from '../../deps.js';
import { changeLog } from '../../store/log/change-log.js';
import { checkpointOf, oncePerDatabase, recordCheckpoint } from '../../store/projections/projections.js';
import { siteChanges } from '../../store/coordination/site-changes.js';
import { scanTermedPosts } from '../posts/index.js';
import { type BackgroundWork } from '../manifest.js';
import { forgetTermCountRows, recordToggles } from './term.count-log.js';
import { COUNTED_TAXONOMIES, COUNTED_TYPES, countedTerms, settleTermCounts } from './term.counts.js';
import { termsCollection } from './term.model.js';

const CHECKPOINT = 'term-counts';
// Exact when counts began to be kept, from the items as they were then: no margin is needed before it.
const HEALED = `${CHECKPOINT}-heal`;

/**
 * Once per database, before the service answers: the toggles of the items that count now, and
 * each term's count set from them. A database whose counts were counted (by a query over the
 * published posts) so begins to keep them; a fresh one has nothing to record.
 */
export async function beginKeepingTermCounts(deps: Deps): Promise<number> {
  return oncePerDatabase(deps.store.db, CHECKPOINT, () => keepTermCountsFrom(deps.store.db, deps.clock()));
}

/**
 * Records the toggles of the items that count now, and sets each term's count from them: what
 * counts begin from, and what a rebuild or a bulk import (which write items without their
 * counting) start them again from (`replace`: the rows kept so far go first). Run while no
 * service writes; a read of every item of the counted types.
 */
export async function keepTermCountsFrom(db: Db, now: Date, options: { replace?: boolean } = {}): Promise<number> {
  if (options.replace) await forgetTermCountRows(db);
  const counts = new Map<number, number>();
  const rows: { term: number; post: number }[] = [];
  for (const type of COUNTED_TYPES) {
    for await (const item of scanTermedPosts(db, type)) {
      for (const term of countedTerms(item)) {
        rows.push({ term, post: item._id });
        counts.set(term, (counts.get(term) ?? 0) + 1);
      }
    }
  }
  await recordToggles(db, rows);
  const terms = termsCollection(db);
  for (const taxonomy of COUNTED_TAXONOMIES) {
    for (const term of await terms.find({ taxonomy }, { projection: { _id: 1 } }).toArray()) {
      await terms.updateOne({ _id: term._id }, { $set: { count: counts.get(term._id) ?? 0, countSeq: 0 } });
    }
  }
  await recordCheckpoint(db, CHECKPOINT, { at: now });
  await recordCheckpoint(db, HEALED, { at: now, exact: true });
  return rows.length;
}

/**
 * Events appended this long before a heal began may have had their hooks still running then
 * (as the projections' start-up heal allows for other processes and commands in flight).
 */
const MARGIN_MS = 10 * 60_000;

/**
 * What a crash between a write's commit and its term counts left unsettled: the items of the
 * counted types written to since the last heal began (less a margin), each settled against its
 * state now. Settling an item already settled changes nothing, so a heal can run beside writes.
 */
export async function healTermCounts(deps: Deps, options: { signal?: AbortSignal } = {}): Promise<number> {
  const startedAt = deps.clock();
  const saved = await checkpointOf(deps.store.db, HEALED);
  const since = saved ? new Date(saved.at.getTime() - (saved.exact ? 0 : MARGIN_MS)) : undefined;
  const last = await changeLog(deps.store.db, { postgres: deps.store.postgres }).lastEvents(since);
  let toggles = 0;
  for (const [stream, event] of last) {
    if (options.signal?.aborted) return toggles;
    if (event.streamType !== undefined && !COUNTED_TYPES.includes(event.streamType)) continue;
    toggles += await settleTermCounts(deps.store.db, stream);
  }
  // Counts changed behind every process's kept answers: they are told, as a write tells them.
  if (toggles > 0) await siteChanges(deps.store.db).changed('content');
  await recordCheckpoint(deps.store.db, HEALED, { at: startedAt });
  return toggles;
}

/** The heal, run once the service answers (it needs the items' projections healed first). */
export function startTermCountHeal(deps: Deps): BackgroundWork {
  const stopping = new AbortController();
  const running = healTermCounts(deps, { signal: stopping.signal })
    .then((toggles) => {
      if (toggles > 0) deps.logger.warn({ toggles }, 'term counts healed after writes whose counts were left unsettled');
    })
    .catch((error: unknown) => deps.logger.warn({ err: error }, 'term counts not healed; the next start tries again'));
  return {
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
