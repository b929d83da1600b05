import { setTimeout as delay } from 'node:timers/promises';
import { type Db, type UpdateFilter } from 'mongodb';
import { type Deps } from '../../deps.js';
import { type Logger } from '../../logger.js';
import { changeLog, type StoredEvent } from '../../store/log/change-log.js';
import { isDuplicateKey } from '../../store/database/mongo.js';
import { asServiceWork } from '../../store/queries/service-work.js';
import { siteChanges, type SiteChanges } from '../../store/coordination/site-changes.js';
import { type BackgroundWork } from '../manifest.js';
import { deliveryLease } from './webhook.lease.js';
import { ATTEMPTS_KEPT, deliveriesCollection, webhooksCollection, type DeliveryAttempt, type DeliveryDoc, type WebhookDoc } from './webhook.model.js';
import { eventItem, eventPayload, filterMatches, webhookEventType } from './webhook.payload.js';
import { nextAttemptDelay } from './webhook.retry.js';
import { send, type SendOutcome } from './webhook.send.js';
import { signatureHeader } from './webhook.signature.js';
import { targetPolicy, type TargetPolicy } from './webhook.targets.js';

/** Positions read at once while the log is quiet, and while it is busy (or every tenth quiet look, past a long gap). */
const QUIET_WINDOW = 8;
const BUSY_WINDOW = 128;
/**
 * Pending deliveries an endpoint may have before no more are queued for it (they wait in the log):
 * its queue is read whole (the embedded database then decodes only the rows it answers with) and
 * kept in memory, so this bounds both.
 */
export const QUEUE_AHEAD = 500;
/**
 * How long an endpoint's kept queue is used, at least, before it is read again after a write was
 * heard of: this process's own writes keep it current, so a read (which the embedded database
 * answers by decoding every pending row) is needed only for what others change (a redelivery, a
 * replay), and those move the change token.
 */
const QUEUE_READ_EVERY_MS = 1000;
/** How long queueing waits for a missing position before voiding it (the change log's own reader waits as long). */
const GAP_WAIT_MS = 5000;
/**
 * While endpoints are active and nothing was heard of, how often a process makes a whole round
 * anyway: one that does not hold the lease takes over from a holder that stopped, and the holder
 * finds what no write announced (a script's append, or that of a process killed before it could).
 */
const QUIET_ROUND_MS = 5000;
/** While no endpoint is active, how often a process looks for one that no write it heard of announced. */
const UNANNOUNCED_LOOK_MS = 15_000;

/** A pending delivery as the sending loop keeps it: without its attempts' log. */
type QueuedDelivery = Omit<DeliveryDoc, 'log'>;

/**
 * The deliveries of a queue (oldest first) that may be sent now: the oldest pending one of each
 * item, unless it is in flight or its next attempt is later.
 */
function* due(pending: readonly QueuedDelivery[], now: Date, inFlight: ReadonlyMap<string, unknown>): Generator<QueuedDelivery> {
  const seen = new Set<number>();
  for (const delivery of pending) {
    const item = delivery.stream ?? -1;
    if (seen.has(item)) continue;
    seen.add(item);
    if (inFlight.has(delivery._id) || (delivery.next_attempt_at && delivery.next_attempt_at > now)) continue;
    yield delivery;
  }
}

/** A delivery's id, its `webhook-id`: the endpoint, the generation and the event's position. */
export const deliveryId = (endpoint: string, generation: number, position: number) => `msg_${endpoint.slice(3)}_${generation}_${position}`;

/** The headers of one attempt (Standard Webhooks). */
export function webhookHeaders(endpoint: WebhookDoc, id: string, payload: string, now: Date): { headers: Record<string, string>; timestamp: number } {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    timestamp,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'cms-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(endpoint.secrets, id, timestamp, payload, now),
    },
  };
}

/** Sends one attempt of `delivery` to `endpoint` and says what happened, as the delivery log keeps it. */
export async function attempt(
  endpoint: WebhookDoc,
  delivery: Pick<DeliveryDoc, '_id' | 'payload' | 'attempts'>,
  options: { policy: TargetPolicy; timeoutMs: number; clock: () => Date; signal?: AbortSignal; mayStart?: () => boolean },
): Promise<{ outcome: SendOutcome; entry: DeliveryAttempt }> {
  const at = options.clock();
  const { headers, timestamp } = webhookHeaders(endpoint, delivery._id, delivery.payload, at);
  const outcome = await send(endpoint.url, headers, delivery.payload, { policy: options.policy, timeoutMs: options.timeoutMs, signal: options.signal, mayStart: options.mayStart });
  const entry: DeliveryAttempt = { attempt: delivery.attempts + 1, at, timestamp, status: outcome.status, duration_ms: outcome.duration_ms, error: outcome.error, response: outcome.response };
  return { outcome, entry };
}

const succeeded = (status: number | null) => status !== null && status >= 200 && status < 300;

/**
 * The filter that fences a write of delivery state with the writer's term: the document must not
 * carry a later one (documents written before terms were recorded carry none). The write sets the
 * term, so that once a later holder wrote a document, an earlier one's writes to it match nothing.
 */
const notAfter = (term: number) => ({ term: { $not: { $gt: term } } });

/**
 * What this process has heard of since its last round, from the site's change token: writes of
 * any kind (content: new events), and those that changed more than content (an endpoint's among
 * them). Every write answered with success moves the token (`SiteChanges`), this process's own at
 * once and another's when this process next looks at it: a round is needed only after one.
 */
interface Heard {
  any: boolean;
  site: boolean;
  at: number;
}

/** Starts listening to the site's change token; what is heard is marked in the returned `Heard`. */
function listenForWrites(changes: SiteChanges): Heard {
  const heard = { any: true, site: true, at: performance.now() };
  changes.onChange(() => {
    heard.any = true;
    heard.at = performance.now();
  });
  changes.onChange(() => {
    heard.site = true;
  }, 'site');
  return heard;
}

/** An endpoint's queue as last read, oldest first, and when that read began. */
interface KeptQueue {
  docs: QueuedDelivery[];
  readAt: number;
}

/**
 * Each endpoint's queue as last read (oldest first, at most about `QUEUE_AHEAD`), kept current with
 * what this process writes itself, and read again from the database once it is
 * `QUEUE_READ_EVERY_MS` old and a write was heard of since (a redelivery or a replay through the
 * API, from any process, shows then). Deliveries settled after a read began are left out of what
 * that read found.
 */
function keptQueues(db: Db, heard: Heard, pollMs: number) {
  const kept = new Map<string, KeptQueue>();
  const settled = new Map<string, number>();
  let reads = 0;

  /**
   * Whether a kept queue is to be read again: it was read before a write this process heard of (a
   * redelivery or a replay, from any process, may be missing from it), long enough ago.
   */
  const stale = (queue: KeptQueue) => queue.readAt < heard.at && performance.now() - queue.readAt >= Math.max(pollMs, QUEUE_READ_EVERY_MS);

  /** The endpoint's queue: the kept one, unless it is stale, else read again. */
  async function queueOf(endpoint: WebhookDoc): Promise<QueuedDelivery[]> {
    const queue = kept.get(endpoint._id);
    if (queue && !stale(queue)) return queue.docs;
    const read = ++reads;
    const readAt = performance.now();
    const docs = await deliveriesCollection(db).find({ queue: endpoint._id }, { projection: { log: 0 } }).toArray();
    const fresh = (docs as QueuedDelivery[])
      .filter((doc) => (settled.get(doc._id) ?? 0) <= read)
      .sort((a, b) => a.generation - b.generation || a.position! - b.position!);
    kept.set(endpoint._id, { docs: fresh, readAt });
    for (const [id, at] of settled) if (at <= read) settled.delete(id);
    return fresh;
  }

  /** What this process wrote of a delivery, in its kept queue: gone once delivered or failed for good, else due again later. */
  function settle(delivery: QueuedDelivery, changes: Partial<QueuedDelivery>): void {
    settled.set(delivery._id, reads + 1);
    const queue = kept.get(delivery.endpoint);
    if (!queue) return;
    const index = queue.docs.findIndex((doc) => doc._id === delivery._id);
    if (index < 0) return;
    if (changes.state === 'pending') queue.docs[index] = { ...queue.docs[index], ...changes };
    else queue.docs.splice(index, 1);
  }

  return { kept, stale, queueOf, settle };
}

/** What the deliverer's parts share, made once by `startDeliverer`. */
interface DelivererContext {
  readonly deps: Deps;
  readonly db: Db;
  readonly logger: Logger;
  readonly lease: ReturnType<typeof deliveryLease>;
  readonly policy: TargetPolicy;
  readonly stopping: AbortController;
  readonly inFlight: Map<string, Promise<void>>;
  readonly heard: Heard;
  readonly queues: ReturnType<typeof keptQueues>;
  /** Ends the current poll's wait: a finished delivery starts the next round at once, so an item's next change need not wait a poll. */
  wake: () => void;
}

/**
 * After a fenced write matched nothing: whether the document now carries a later term (then this
 * process lost its lease, and stops at once) rather than being gone or changed through the API.
 */
async function fencedOut(context: DelivererContext, collection: 'webhooks' | 'webhook_deliveries', id: string, term: number): Promise<boolean> {
  const doc = await context.db.collection<{ _id: string; term?: number }>(collection).findOne({ _id: id }, { projection: { term: 1 } });
  if (!doc || (doc.term ?? 0) <= term) return false;
  context.logger.warn({ term, later: doc.term }, 'webhook delivery lease taken over: this process stops delivering');
  context.lease.lost();
  context.queues.kept.clear();
  return true;
}

/** The pending delivery of `event` to `endpoint`, queued under `term`. */
function pendingDelivery(endpoint: WebhookDoc, event: StoredEvent, term: number, now: Date, siteUrl: string): DeliveryDoc {
  const item = eventItem(event);
  return {
    _id: deliveryId(endpoint._id, endpoint.generation, event.position!),
    endpoint: endpoint._id,
    type: webhookEventType(event),
    position: event.position!,
    generation: endpoint.generation,
    stream: item.id,
    stream_type: item.type,
    version: item.version,
    payload: eventPayload(event, siteUrl),
    state: 'pending',
    queue: endpoint._id,
    attempts: 0,
    retries: 0,
    next_attempt_at: now,
    created: now,
    updated: now,
    last_status: null,
    log: [],
    term,
  };
}

/**
 * Queueing: reads the change log by position from the lowest cursor of the endpoints, stores a
 * pending delivery per matching event and endpoint, then moves each endpoint's cursor. The window
 * read widens while the log is busy.
 */
function eventQueueing(context: DelivererContext) {
  const { db, lease, queues } = context;
  const log = changeLog(db);
  let quietLooks = 0;

  /** Queues the events past the endpoints' cursors; whether it moved any cursor (a full queue's waits). */
  return async function queue(endpoints: WebhookDoc[]): Promise<boolean> {
    const from = Math.min(...endpoints.map((endpoint) => endpoint.cursor));
    const window = quietLooks % 10 === 9 ? BUSY_WINDOW : quietLooks === 0 ? BUSY_WINDOW : QUIET_WINDOW;
    const { events, through } = await log.readPositions(from, window, { gapWaitMs: GAP_WAIT_MS, sideStreams: true });
    quietLooks = through === from ? quietLooks + 1 : 0;
    if (through === from) return false;
    let moved = false;
    for (const endpoint of endpoints) {
      const term = lease.term();
      if (term === undefined) return moved;
      if (endpoint.cursor >= through) continue;
      // A full queue takes no more until it drains: the events wait in the log, at the endpoint's cursor.
      if ((queues.kept.get(endpoint._id)?.docs.length ?? 0) >= QUEUE_AHEAD) continue;
      const rows = events
        .filter((event) => event.position! > endpoint.cursor && filterMatches(endpoint.events, webhookEventType(event)))
        .map((event) => pendingDelivery(endpoint, event, term, context.deps.clock(), context.deps.siteUrl));
      if (rows.length) {
        const kept = queues.kept.get(endpoint._id);
        try {
          await deliveriesCollection(db).insertMany(rows, { ordered: false });
          // Queued after everything queued before (a later position, or a later generation).
          if (kept) kept.docs.push(...rows.map(({ log: _log, ...queued }) => queued));
        } catch (error) {
          // Rows queued again after a crash are there already: reading the queue again finds each once.
          queues.kept.delete(endpoint._id);
          if (!isDuplicateKey(error)) throw error;
        }
      }
      // A replay begun meanwhile (another generation) has moved the cursor itself.
      const advanced = await webhooksCollection(db).updateOne({ _id: endpoint._id, generation: endpoint.generation, ...notAfter(term) }, { $set: { cursor: through, term } });
      if (!advanced.matchedCount && (await fencedOut(context, 'webhooks', endpoint._id, term))) return moved;
      moved = true;
    }
    return moved;
  };
}

/**
 * Starts the deliveries that are due; whether it started any. Each starts only while the term
 * covers the whole of it (renewed first when it no longer does), and is fenced with that term.
 */
async function dispatch(context: DelivererContext, endpoints: WebhookDoc[]): Promise<boolean> {
  const { lease, inFlight } = context;
  const before = inFlight.size;
  for (const endpoint of endpoints) {
    for (const delivery of due(await context.queues.queueOf(endpoint), context.deps.clock(), inFlight)) {
      if (inFlight.size >= context.deps.config.webhooksConcurrency || context.stopping.signal.aborted) return inFlight.size > before;
      if (!lease.covers() && !((await lease.tick()) && lease.covers())) return inFlight.size > before;
      const term = lease.term()!;
      const running = deliver(context, endpoint, delivery, term)
        .catch((error: unknown) => context.logger.warn({ err: error, delivery: delivery._id }, 'webhook delivery not recorded'))
        .finally(() => {
          inFlight.delete(delivery._id);
          context.wake();
        });
      inFlight.set(delivery._id, running);
    }
  }
  return inFlight.size > before;
}

/**
 * Sends one delivery under `term` and records what came of it, fenced with the term: a holder
 * whose term ended meanwhile (it was paused, or another process took over) records nothing, and
 * the delivery stays pending for the next holder to send again.
 */
async function deliver(context: DelivererContext, endpoint: WebhookDoc, delivery: QueuedDelivery, term: number): Promise<void> {
  const { db, lease, stopping, deps } = context;
  const { clock } = deps;
  const mayStart = () => lease.term() === term && !stopping.signal.aborted;
  const { outcome, entry } = await attempt(endpoint, delivery, { policy: context.policy, timeoutMs: deps.config.webhooksTimeoutMs, clock, signal: stopping.signal, mayStart });
  // Stopped mid-request: the attempt's fate is unknown, so it stays pending and is sent again.
  if (stopping.signal.aborted && outcome.status === null) return;
  if (lease.term() !== term) return;
  const now = clock();
  const deliveries = deliveriesCollection(db);
  const fenced = { _id: delivery._id, ...notAfter(term) };
  /** Records the attempt; false when a later term fenced it out (this process then stops). */
  const record = async (update: UpdateFilter<DeliveryDoc>): Promise<boolean> =>
    (await deliveries.updateOne(fenced, update)).matchedCount > 0 || !(await fencedOut(context, 'webhook_deliveries', delivery._id, term));
  const { settle } = context.queues;
  // The log is read only now, by key: the kept queue leaves it out.
  const { log: earlier = [] } = (await deliveries.findOne({ _id: delivery._id }, { projection: { log: 1 } })) ?? {};
  const base = { attempts: delivery.attempts + 1, updated: now, last_status: outcome.status, log: [...earlier, entry].slice(-ATTEMPTS_KEPT), term };
  if (succeeded(outcome.status)) {
    if (await record({ $set: { ...base, state: 'delivered', retries: 0, next_attempt_at: null }, $unset: { queue: '' } })) settle(delivery, { state: 'delivered' });
    return;
  }
  if (outcome.status === 410) {
    const disabled = await webhooksCollection(db).updateOne({ _id: endpoint._id, ...notAfter(term) }, { $set: { active: false, disabled_reason: 'The endpoint answered 410 Gone.', term } });
    if (!disabled.matchedCount && (await fencedOut(context, 'webhooks', endpoint._id, term))) return;
    context.logger.info({ webhook: endpoint._id }, 'webhook endpoint answered 410: disabled');
  }
  const retries = delivery.retries + 1;
  const wait = nextAttemptDelay(retries, outcome.retryAfterMs);
  if (wait === null) {
    if (await record({ $set: { ...base, retries, state: 'failed', dead: endpoint._id, next_attempt_at: null }, $unset: { queue: '' } })) settle(delivery, { state: 'failed' });
    return;
  }
  const retry = { ...base, retries, next_attempt_at: new Date(now.getTime() + wait) };
  if (!(await record({ $set: retry }))) return;
  const { log: _log, ...queued } = retry;
  settle(delivery, { ...queued, state: 'pending' });
}

/**
 * The deliverer's rounds: each reads the active endpoints, takes or renews the lease, queues and
 * starts deliveries. Between rounds, `roundDue` says whether one is needed and `keepTerm` lets an
 * idle holder keep its term.
 */
function deliveryRounds(context: DelivererContext, changes: SiteChanges) {
  const { db, lease, heard, queues, inFlight } = context;
  const queue = eventQueueing(context);
  /** The active endpoints as the last round found them, when it began, and whether it found or started any work. */
  let active: WebhookDoc[] = [];
  let lastRound = Number.NEGATIVE_INFINITY;
  let busy = true;

  async function round(): Promise<void> {
    heard.any = heard.site = false;
    lastRound = performance.now();
    busy = false;
    // Without an active endpoint there is nothing to deliver: no lease is taken or renewed, so an
    // idle site's processes write nothing.
    active = await webhooksCollection(db).find({ active: true }).toArray();
    // The queues of endpoints no longer active are read again if they are made active again.
    for (const endpoint of queues.kept.keys()) if (!active.some((each) => each._id === endpoint)) queues.kept.delete(endpoint);
    if (!active.length) return;
    if (!(await lease.tick())) {
      // Another process delivers: what this one kept of the queues is no longer kept current.
      queues.kept.clear();
      return;
    }
    busy = await queue(active);
    if (lease.holds()) busy = (await dispatch(context, active)) || busy;
  }

  /** Whether the holder keeps a delivery that may be sent now (a retry whose time has come). */
  function retryDue(): boolean {
    const now = context.deps.clock();
    return [...queues.kept.values()].some((kept) => !due(kept.docs, now, inFlight).next().done);
  }

  /**
   * Whether anything may be waiting: a write heard of, work under way or due, or a quiet round's
   * time. Otherwise a poll costs nothing, but for the holder one look at the change token (one
   * read by key, which a request under way shares), by which it hears of others' writes (new
   * events, redeliveries, replays, endpoint changes) within the poll.
   */
  async function roundDue(): Promise<boolean> {
    const quietFor = performance.now() - lastRound;
    if (!active.length) return heard.site || quietFor >= UNANNOUNCED_LOOK_MS;
    // Only a holder keeps queues: a retry due there is sent even if its term ran out meanwhile.
    if (busy || inFlight.size > 0 || heard.any || quietFor >= QUIET_ROUND_MS || lease.lookDue() || retryDue()) return true;
    if (!lease.holds()) return false;
    if ([...queues.kept.values()].some(queues.stale)) return true;
    await changes.catchUp();
    return heard.any;
  }

  /** The holder keeps its term while there is nothing to do (no I/O but every few seconds). */
  async function keepTerm(): Promise<void> {
    if (active.length && lease.holds()) await lease.tick();
  }

  return { round, roundDue, keepTerm };
}

/**
 * The webhook deliverer, run by every service process; only the holder of the delivery lease
 * works. Two loops: queueing reads the change log by position from the lowest cursor of the active
 * endpoints and stores a pending delivery per matching event and endpoint (its `_id` made of the
 * endpoint, generation and position, so queueing again after a crash stores nothing twice), then
 * moves each endpoint's cursor; sending reads each endpoint's queue oldest first and sends, at
 * most `webhooksConcurrency` at a time, only the oldest pending delivery of each item (a later
 * change of an item waits while an earlier one is retried). A delivery is marked delivered only
 * after its receiver answered 2xx, so a process killed mid-delivery leaves it pending, and the
 * next holder sends it again: at least once, in order per item per endpoint. Every write of
 * delivery state (a cursor, a queued or settled delivery, a disabled endpoint) carries the
 * holder's term and matches nothing once a later term wrote the document (`notAfter`), so a holder
 * that outlived its term cannot undo its successor's progress, and stops as soon as it finds it.
 */
export function startDeliverer(deps: Deps): BackgroundWork {
  const db = deps.store.db;
  const pollMs = deps.config.webhooksPollMs;
  const changes = siteChanges(db);
  const heard = listenForWrites(changes);
  const context: DelivererContext = {
    deps,
    db,
    logger: deps.logger.child({ component: 'webhooks' }),
    lease: deliveryLease(db, { timeoutMs: deps.config.webhooksTimeoutMs }),
    policy: targetPolicy(deps.config.webhooksAllowAddresses),
    stopping: new AbortController(),
    inFlight: new Map(),
    heard,
    queues: keptQueues(db, heard, pollMs),
    wake: () => {},
  };
  const { stopping, inFlight, lease, logger } = context;
  const rounds = deliveryRounds(context, changes);

  const running = asServiceWork('webhooks', async () => {
    while (!stopping.signal.aborted) {
      try {
        if (await rounds.roundDue()) await rounds.round();
        else await rounds.keepTerm();
      } catch (error) {
        if (!stopping.signal.aborted) logger.warn({ err: error }, 'webhook deliverer round failed');
        // Whatever the round was for is looked at again at the next poll.
        heard.any = heard.site = true;
      }
      const pause = new AbortController();
      const stop = () => pause.abort();
      stopping.signal.addEventListener('abort', stop, { once: true });
      context.wake = stop;
      await delay(pollMs, undefined, { signal: pause.signal }).catch(() => {});
      stopping.signal.removeEventListener('abort', stop);
    }
  });

  return {
    async stop() {
      stopping.abort();
      await running;
      await Promise.allSettled(inFlight.values());
      await lease.release().catch(() => {});
    },
  };
}
