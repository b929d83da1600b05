import { setTimeout as delay } from 'node:timers/promises';
import { type Deps } from '../../deps.js';
import { inTurn } from '../../lib/in-turn.js';
import { invalidParams } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestEventStream, RestResponse, type ServerSentEvent } from '../../rest/rest-response.js';
import { allowAnyone, defineRoutes, READABLE, type RouteSpec } from '../../rest/route.js';
import { changeLog } from '../../store/log/change-log.js';
import { earliestRetainedPosition, positionWatch } from '../../store/projections/change-feed.js';
import { ChangesGone, invalidLastEventId, sinceBeyondHead } from './changes.errors.js';
import { readChanges, type ChangeSources, type ChangesPage, type ChangesQuery } from './changes.queries.js';
import { changesArgs, changesPageSchema, type Include } from './changes.schema.js';

const EVENT_STREAM = 'text/event-stream';
/** The header that repeats a page's `last_position`, for consumers that read headers only. */
export const LAST_POSITION_HEADER = 'X-CMS-Last-Position';
/**
 * The least pause between two reads of a waiting feed that found nothing new: the head may have
 * moved past an event whose item is still being projected, and the feed waits for that, not spins.
 */
const RETRY_PAUSE_MS = 20;
/**
 * Pages of the feed read at once in a process. Every waiting reader reads when a change lands;
 * taking turns, they leave the database's connections to the other requests, however many wait.
 */
const PAGE_READS_AT_ONCE = 2;
const pageReads = inTurn(PAGE_READS_AT_ONCE);

/** Anonymous page reads waiting for their turn or under way, by what they read: each process's own. */
const anonymousReads = new WeakMap<Deps, Map<string, Promise<ChangesPage>>>();

/**
 * The page after `since`; a woken reader's (`through`: the head its watch knows) reads no position
 * past it. Anonymous consumers woken by one change ask for the same page: one read answers them
 * all, sharing one page, frozen (the layer builds what it changes anew: links, `_fields`), where
 * a copy for each was as large as the page again per reader. (A read already under way may miss
 * the change that woke a later asker, who then finds it on its next read.)
 */
async function readPage(deps: Deps, sources: ChangeSources, req: RestRequest, since: number, through?: number): Promise<ChangesPage> {
  const query = queryOf(req, since);
  if (through !== undefined && through > since) query.limit = Math.min(query.limit, through - since);
  if (req.user.id !== 0) return pageReads(() => readChanges(deps, sources, req, query));
  let reads = anonymousReads.get(deps);
  if (!reads) anonymousReads.set(deps, (reads = new Map()));
  const key = JSON.stringify([query, req.context, req.fields, req.embedding]);
  let read = reads.get(key);
  if (!read) {
    const started = pageReads(() => readChanges(deps, sources, req, query)).then(frozen);
    const forget = () => void reads.delete(key);
    started.then(forget, forget);
    reads.set(key, (read = started));
  }
  return read;
}

/** A page no reader may change, its changes included: it is one answer shared by all who asked. */
function frozen(page: ChangesPage): ChangesPage {
  for (const change of page.changes) Object.freeze(change);
  Object.freeze(page.changes);
  return Object.freeze(page);
}

/**
 * `GET /changes`: the change log of every item the caller may read, in position order, a page at
 * a time (`feed=longpoll`: an empty page waits for the next change), or, with
 * `Accept: text/event-stream`, as server-sent events until the client goes. Anyone may ask: each
 * change is shown as the caller may see it (`readChanges`).
 */
export function changesRoutes(sources: ChangeSources): RouteSpec<Deps>[] {
  return defineRoutes<Deps>('cms/v2', [
    {
      path: '/changes',
      endpoints: [
        {
          methods: READABLE,
          args: changesArgs(sources.itemTypes),
          permission: allowAnyone,
          freshness: 'live',
          response: { body: changesPageSchema, eventStream: true },
          handler: (req, deps) => (wantsEventStream(req) ? streamChanges(sources, req, deps) : pageOfChanges(sources, req, deps)),
        },
      ],
    },
  ]);
}

function wantsEventStream(req: RestRequest): boolean {
  return (req.headers.accept ?? '').split(',').some((type) => type.split(';')[0].trim().toLowerCase() === EVENT_STREAM);
}

function queryOf(req: RestRequest, since: number): ChangesQuery {
  const { limit, types, subtypes, include } = req.params as { limit: number; types?: string[]; subtypes?: string[]; include: Include };
  return { since, limit, include, ...(types ? { types } : {}), ...(subtypes ? { subtypes } : {}) };
}

/**
 * Refuses a `since` the log cannot answer: below what it still holds (410, with where to start
 * again), or past the last position it has handed out (400: no page ever named it).
 */
async function checkSince(deps: Deps, since: number, param: string, page?: ChangesPage): Promise<void> {
  const earliest = await earliestRetainedPosition(deps.store.db);
  if (since < earliest - 1) throw new ChangesGone(earliest);
  if (page && (page.changes.length || page.last > since)) return;
  const head = (await changeLog(deps.store.db).firstFreePosition()) - 1;
  if (since > head) throw invalidParams({ [param]: sinceBeyondHead(param, head) });
}

async function pageOfChanges(sources: ChangeSources, req: RestRequest, deps: Deps): Promise<RestResponse> {
  const since = req.params.since as number;
  await checkSince(deps, since, 'since');
  let page = await readPage(deps, sources, req, since);
  if (req.params.feed === 'longpoll') page = await untilChanges(sources, req, deps, page, req.params.timeout as number);
  return new RestResponse({ changes: page.changes, last_position: page.last }, 200, { [LAST_POSITION_HEADER]: String(page.last) });
}

/** The next page with changes after `page`, waited for up to `timeoutMs`; else the last read, which covers whatever was filtered meanwhile. */
async function untilChanges(sources: ChangeSources, req: RestRequest, deps: Deps, page: ChangesPage, timeoutMs: number, closed?: AbortSignal): Promise<ChangesPage> {
  const deadline = performance.now() + timeoutMs;
  const watch = positionWatch(deps.store.db);
  let current = page;
  while (!current.changes.length && !closed?.aborted) {
    const left = deadline - performance.now();
    if (left <= 0) break;
    await Promise.all([watch.waitBeyond(current.last, left, closed), delay(RETRY_PAUSE_MS)]);
    current = await readPage(deps, sources, req, current.last, watch.head());
  }
  return current;
}

/** Where an event stream starts: after `Last-Event-ID` (a reconnecting client's last event), else after `since`. */
function streamStart(req: RestRequest): { since: number; param: string } {
  const resumed = req.headers['last-event-id'];
  if (resumed === undefined || resumed.trim() === '') return { since: req.params.since as number, param: 'since' };
  if (!/^\d{1,15}$/.test(resumed.trim())) throw invalidParams({ 'Last-Event-ID': invalidLastEventId() });
  return { since: Number(resumed.trim()), param: 'Last-Event-ID' };
}

/**
 * Server-sent events: each change an event `change` whose `id` is its position (what a client
 * sends back as `Last-Event-ID`), and, whenever `heartbeat` passes without one, a comment naming
 * the last position covered. Nothing is held between pages but the position: no database cursor.
 */
async function streamChanges(sources: ChangeSources, req: RestRequest, deps: Deps): Promise<RestEventStream> {
  const start = streamStart(req);
  await checkSince(deps, start.since, start.param);
  const heartbeatMs = req.params.heartbeat as number;
  return new RestEventStream(async function* (closed): AsyncGenerator<ServerSentEvent> {
    const watch = positionWatch(deps.store.db);
    let since = start.since;
    while (!closed.aborted) {
      // At the head its process knows of, the stream waits before it reads: what woke it is new.
      const first = since < watch.head() || since === start.since ? await readPage(deps, sources, req, since) : { changes: [], last: since };
      const page = first.changes.length ? first : await untilChanges(sources, req, deps, first, heartbeatMs, closed);
      for (const change of page.changes) yield { id: String(change.position), event: 'change', data: change };
      if (!page.changes.length && !closed.aborted) yield { comment: `heartbeat ${page.last}` };
      since = page.last;
    }
  });
}
