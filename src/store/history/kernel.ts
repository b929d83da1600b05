import { setTimeout as delay } from 'node:timers/promises';
import { type Db } from 'mongodb';
import { type Logger } from '../../logger.js';
import {
  assertStorable,
  changeLog,
  type NewEvent,
  type StoredEvent,
  type TypedEvent,
  type TypedEventData,
} from '../log/change-log.js';
import { isDatabaseUnavailable, mayWriteAgain, READ_BACK_PAUSE_MS } from '../database/mongo.js';
import { forgetErasure, oweErasure, settleErasure, type Erasure } from '../log/erasure.js';
import { catchUpStream, projectionFaults, type Projection } from '../projections/projections.js';
import { ItemUnprojectableError, PreconditionFailedError, WriteConflictError } from '../log/store-errors.js';
import { currentWriteClaim } from '../log/write-claims.js';

/**
 * The change-log kernel: the command cycle every history type (post, page, menu item, template)
 * shares. A type brings its read model, its pure fold and its content fields; the kernel reads
 * the version, lets the type decide, proves the projection can be applied, appends at the
 * expected version (the commit point), and projects.
 */

/** What the kernel needs of an item: its place in the log and its entity tag. */
export interface Versioned {
  /** The seq of the last event applied to the read model. */
  readonly version: number;
  /** That event's position on the log, where the read model keeps it: the next append goes above it without looking it up. */
  readonly position?: number;
}

/** An item before a committed command (null: the command created it) and after it (null: it deleted the item). */
export interface CommittedChange<S> {
  readonly before: S | null;
  readonly after: S | null;
}

/**
 * A history type: what the kernel needs to run commands on its items. `E` is the union of its
 * events (`{ type: 'created'; data: PostCreated } | ...`), which its commands decide. `D` is what
 * its `afterCommit` needs of the dependencies (the kernel's own, unless the type asks for more):
 * a command on the type is run with at least that.
 */
export interface HistoryType<S extends Versioned, E extends TypedEventData = TypedEventData, D extends KernelDeps = KernelDeps> {
  readonly projection: Projection;
  /**
   * Whether an event is one of the type's: the one place its data is narrowed to `E`. The kernel
   * refuses to store a decision that is not (its fold would pass over it, leaving the item as it was).
   */
  isEvent(event: StoredEvent<object>): event is TypedEvent<E>;
  /** The stream type recorded on the item's events (its post type slug). */
  streamTypeOf(state: S): string;
  /** The item's read model, or null when there is none; without the fields named in `leftOut` where given. */
  load(db: Db, id: number, leftOut?: readonly string[]): Promise<S | null>;
  /**
   * The pure fold: the item after `event`, and every document the projection would write for it
   * (to prove, before the append, that each can be stored). It is given events as the log holds
   * them, and narrows them with `isEvent`.
   */
  fold(state: S | null, event: StoredEvent): { state: S | null; documents: object[] };
  /** The item's strong entity tag (its `ETag`). */
  etag(state: S): string;
  /** The fields of event data whose content a force delete (or a revision delete) erases. */
  readonly contentFields: readonly string[];
  /** The value an erased field is left with. */
  blank(field: string): unknown;
  /** The type's 404 (`rest_post_invalid_id` for posts). */
  readonly NotFound: new () => Error;
  /**
   * What follows each committed command on an item of the type (WordPress's `save_post`): run by
   * the kernel once per command whose event was stored, in order, with the item before and after
   * that event, once the read model holds it and before the command is answered. Never for a
   * refused or failed command, nor one that decided nothing. It runs outside the item's queue (it
   * may write other items). The write was made whatever it does: a failure it throws is logged,
   * and the command is still answered as committed.
   */
  afterCommit?(deps: D, change: CommittedChange<S>): Promise<void>;
}

/** The options of a read that leaves `fields` out of the documents it answers. */
export const leavingOut = (fields: readonly string[] = []): { projection?: Record<string, 0> } =>
  fields.length ? { projection: Object.fromEntries(fields.map((field) => [field, 0 as const])) } : {};

export interface KernelDeps {
  readonly store: { readonly db: Db };
  readonly clock: () => Date;
  readonly logger: Logger;
}

/** What a command decides: one of its type's events (`E`), and what the event erases from the stream once committed. */
export type Decision<E extends TypedEventData = TypedEventData> = (E & { erase?: Erasure }) | null;

export interface CommandOptions<S> {
  /** The client's condition on the item's entity tag (`If-Match`); false: 412, nothing written. */
  precondition?: (etag: string) => boolean;
  /**
   * The item as the caller read it for this request (its permission check): the first attempt
   * decides on it rather than reading it again. A stale one only costs a lost race and a retry.
   */
  current?: S;
  /**
   * Commands on one item with the same batch key, waiting in this process at once, are appended
   * together (group commit). Only for commands whose decision reads nothing of the item's read
   * models but the state it is given and the documents the batch's earlier events write.
   */
  batch?: string;
}

export interface CommandResult<S> {
  /** The item after the command (null once deleted); the item as it was when nothing was decided. */
  state: S | null;
  event: StoredEvent | null;
  /**
   * Every document the projection writes for the event, as the fold computed them: what a caller
   * answers with, rather than reading it back (a read that fails after the commit would answer
   * an error for a write that was made).
   */
  documents: object[];
}

const MAX_ATTEMPTS = 16;
/** The longest pause, in ms, before deciding again after losing the race for an item's next seq. */
const MAX_RACE_PAUSE_MS = 16;
const PROJECTION_ATTEMPTS = 3;

/**
 * The item `id` of `type`, or the type's 404. A stream recorded as unprojectable is healed first;
 * if it still cannot be, the item answers `ItemUnprojectableError` instead of a stale read model.
 */
export async function loadItem<S extends Versioned>(deps: KernelDeps, type: HistoryType<S>, id: number): Promise<S> {
  const state = await findItem(deps, type, id);
  if (!state) throw new type.NotFound();
  return state;
}

/** The item `id` of `type` as `loadItem` reads it, or null when there is none: its caller answers that with its own 404. */
export async function findItem<S extends Versioned>(deps: KernelDeps, type: HistoryType<S>, id: number): Promise<S | null> {
  const { db } = deps.store;
  if (!(id > 0)) return null;
  const [state, fault] = await Promise.all([type.load(db, id), projectionFaults.of(db, id)]);
  if (!fault) return state;
  try {
    await catchUpStream(db, changeLog(db), type.projection, id);
  } catch (error) {
    deps.logger.warn({ stream: id, err: error }, 'the item still cannot be projected');
    throw new ItemUnprojectableError(id);
  }
  await projectionFaults.clear(db, id);
  return type.load(db, id);
}

/**
 * Proves that `event` can be applied to `state`: the fold runs, and every document it writes,
 * and the event row itself, fits in one database document. Otherwise nothing is appended.
 */
function prove<S extends Versioned>(type: HistoryType<S>, state: S | null, event: StoredEvent): { state: S | null; documents: object[] } {
  const kind = event.type;
  if (!type.isEvent(event)) throw new Error(`a ${kind} event is not one of its history type's`);
  const folded = type.fold(state, event);
  for (const doc of folded.documents) assertStorable(doc);
  return folded;
}

/**
 * Projects a run of appended events (one, or a group commit's). The append was the commit point,
 * so the writes are answered as successes whatever happens here: the projection is retried
 * (catching up on anything before it), and if it still fails, the next command or start-up heals
 * the read model; the answers are the commands' outcomes as the fold computed them. While the
 * database is unavailable (a primary stepping down just after it took the append, an election),
 * the retries go on, a pause apart, for as long as a write waits for it (`READ_BACK_TIMEOUTS`
 * database timeouts from the first attempt, as `readBack`): three attempts at once all met the
 * same refusal, and the event was left unprojected, its item answering 404 or its previous
 * version, and the change feed, which delivers an event only once its item's read model holds it,
 * stopped before it on every node until the item's next write or a restart.
 */
async function projectRun<S extends Versioned>(deps: KernelDeps, type: HistoryType<S>, events: StoredEvent[], before: Versioned | null): Promise<void> {
  const { db } = deps.store;
  const { stream, seq } = events.at(-1)!;
  const startedAt = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      // The read model was at the version the run was appended after, so the first attempt
      // applies just the run; a retry catches up on whatever the read model is still behind.
      if (attempt === 1) await type.projection.applyRun(db, events, before);
      else await catchUpStream(db, changeLog(db), type.projection, stream);
      return;
    } catch (error) {
      const unavailable = isDatabaseUnavailable(error);
      deps.logger.warn({ stream, seq, attempt, err: error }, 'projecting an appended event failed');
      if (unavailable ? !mayWriteAgain(db, startedAt) : attempt >= PROJECTION_ATTEMPTS) break;
      if (unavailable) await delay(READ_BACK_PAUSE_MS);
    }
  }
  deps.logger.error({ stream, seq }, 'appended event left unprojected; it is healed by the next write or start-up');
}

/**
 * Checks, once the item's next command may run, that its read model reached the event, and
 * catches it up if not: on FerretDB a filtered replace is not atomic, and another writer applying
 * an earlier event late can put the read model back.
 */
async function confirmProjected<S extends Versioned>(deps: KernelDeps, type: HistoryType<S>, event: StoredEvent): Promise<void> {
  const { db } = deps.store;
  if (type.projection.endsStream.includes(event.type)) return;
  try {
    if ((await type.projection.versionOf(db, event.stream)) < event.seq) await catchUpStream(db, changeLog(db), type.projection, event.stream);
  } catch (error) {
    deps.logger.warn({ stream: event.stream, seq: event.seq, err: error }, 'catching up an item whose read model fell behind failed; the next write or start-up heals it');
  }
}

/** Appends the first event of a new stream (its `created` event) and projects it. */
export async function createItem<S extends Versioned, E extends TypedEventData, K extends KernelDeps>(
  deps: K,
  type: HistoryType<S, E, K>,
  streamType: string,
  id: number,
  actor: number,
  decision: NonNullable<Decision<E>>,
): Promise<S> {
  const claim = currentWriteClaim();
  const event: NewEvent<E['data']> = { stream: id, streamType, type: decision.type, at: deps.clock(), actor, data: decision.data, ...(claim ? { claim } : {}) };
  const folded = prove(type, null, { ...event, seq: 1 } as StoredEvent).state;
  const stored = (await changeLog(deps.store.db).append(event, 0)) as StoredEvent;
  // As the stored event leaves it: the event now has its place on the clock.
  const placed = type.fold(null, stored).state ?? folded;
  await projectRun(deps, type, [stored], null);
  await afterCommit(deps, type, stored, placed, [{ deps, change: { before: null, after: placed }, answer: () => {} }]);
  return placed!;
}

/** Decides a command's event from the item's state. */
export type Decide<S, E extends TypedEventData = TypedEventData> = (state: S, earlier: readonly object[]) => Promise<Decision<E>>;

/**
 * The command cycle: read the item, check the client's precondition, decide, prove the
 * projection, append at the item's version, project. Losing the race for the version (a
 * duplicate `(stream, seq)`) brings the read model up to date and decides again; with a
 * precondition, the changed item then fails it (412).
 *
 * Commands on one item run one after another within a process, each deciding on the state the
 * one before left. Those waiting together with the same `batch` key are decided in turn and
 * appended in one insert (group commit): a hot item's writes then cost one round of the cycle
 * per batch rather than per command. Each is answered as it would have been alone.
 */
export function runCommand<S extends Versioned, E extends TypedEventData, K extends KernelDeps>(
  deps: K,
  type: HistoryType<S, E, K>,
  id: number,
  actor: number,
  decide: Decide<S, E>,
  options: CommandOptions<S> = {},
): Promise<CommandResult<S>> {
  return new Promise((resolve, reject) => {
    const queue = itemQueue(deps.store.db, id);
    // The request's claim is taken now: the batch may be appended in another request's context.
    const claim = currentWriteClaim();
    queue.waiting.push({ deps, type, id, actor, decide, options, claim, resolve, reject } as unknown as QueuedCommand);
    if (!queue.running) void drain(deps.store.db, id, queue);
  });
}

/** The most commands appended in one insert. */
const MAX_BATCH = 32;

interface QueuedCommand {
  deps: KernelDeps;
  type: HistoryType<Versioned>;
  id: number;
  actor: number;
  decide: Decide<Versioned>;
  options: CommandOptions<Versioned>;
  /** The `Idempotency-Key` claim of the request that made the command, carried by its event. */
  claim?: string;
  resolve(result: CommandResult<Versioned>): void;
  reject(error: unknown): void;
}

/** One item's commands in this process: those waiting, and the state the last batch left. */
interface ItemQueue {
  waiting: QueuedCommand[];
  running: boolean;
  left?: { type: object; state: Versioned | null };
}

const queues = new WeakMap<Db, Map<number, ItemQueue>>();

function itemQueue(db: Db, id: number): ItemQueue {
  let byItem = queues.get(db);
  if (!byItem) queues.set(db, (byItem = new Map()));
  let queue = byItem.get(id);
  if (!queue) byItem.set(id, (queue = { waiting: [], running: false }));
  return queue;
}

/**
 * Runs an item's waiting commands, batch after batch, until none is left. Within a process the
 * race for the item's next seq is then only run against other processes, and many clients writing
 * one item at once queue instead of re-deciding each other into a 409.
 */
async function drain(db: Db, id: number, queue: ItemQueue): Promise<void> {
  queue.running = true;
  while (queue.waiting.length) {
    const first = queue.waiting[0];
    let size = 1;
    if (first.options.batch !== undefined) {
      while (size < Math.min(MAX_BATCH, queue.waiting.length) && queue.waiting[size].type === first.type && queue.waiting[size].options.batch === first.options.batch) size++;
    }
    const batch = queue.waiting.splice(0, size);
    // A command is settled once: this only answers those a fault left unanswered.
    await runBatch(batch, queue).catch((error: unknown) => {
      for (const command of batch) command.reject(error);
    });
  }
  queue.running = false;
  queues.get(db)?.delete(id);
}

/** What a round decided for one command: its event (by index in the round), or its answer. */
type Step = { command: QueuedCommand; after: number } & ({ event: number } | { result: CommandResult<Versioned> } | { error: unknown });

interface Decided {
  event: NewEvent;
  folded: Versioned | null;
  documents: object[];
}

/** The item a batch writes, and the dependencies of its first command. */
interface BatchItem {
  deps: KernelDeps;
  type: HistoryType<Versioned>;
  id: number;
}

/** What one round decided: each command's step, the events in order, and what waits for the next round. */
interface Round {
  steps: Step[];
  decided: Decided[];
  /** The state the last decided command leaves. */
  current: Versioned;
  later: QueuedCommand[];
  /** The erasure owed by the round's last event, if it erases content. */
  erasure?: string;
  /** A precondition failed on a state this process last left: the item is read again first. */
  stale: boolean;
}

/**
 * Decides `open` in turn on the state each leaves, from `base` (`fresh`: as read now). A command
 * whose event erases content, or one after it, waits for the next round (`later`).
 */
async function decideRound({ deps, type, id }: BatchItem, open: QueuedCommand[], base: Versioned, fresh: boolean): Promise<Round> {
  const { db } = deps.store;
  const steps: Step[] = [];
  const decided: Decided[] = [];
  let current = base;
  let earlier: object[] = [];
  let later: QueuedCommand[] = [];
  let erasure: string | undefined;
  let stale = false;
  for (const [index, command] of open.entries()) {
    const after = decided.length;
    try {
      if (command.options.precondition && !command.options.precondition(type.etag(current))) {
        // Refused only on the item as read now, not as this process last left it.
        if (!fresh && after === 0) {
          later = open.slice(index);
          stale = true;
          break;
        }
        steps.push({ command, after, error: new PreconditionFailedError() });
        continue;
      }
      const decision = await command.decide(current, earlier);
      if (!decision) {
        steps.push({ command, after, result: { state: current, event: null, documents: [] } });
        continue;
      }
      if (decision.erase && after > 0) {
        later = open.slice(index);
        break;
      }
      const event: NewEvent = { stream: id, streamType: type.streamTypeOf(current), type: decision.type, at: command.deps.clock(), actor: command.actor, data: decision.data as Record<string, unknown>, ...(command.claim ? { claim: command.claim } : {}) };
      const { state: folded, documents } = prove(type, current, { ...event, seq: current.version + 1 } as StoredEvent);
      // An erasure is owed before the append, so that a crash after it leaves the debt for start-up.
      if (decision.erase) {
        erasure = await oweErasure(db, { stream: id, seq: current.version + 1, erasure: decision.erase, contentFields: type.contentFields, blank: type.blank });
        if (erasure) event.erasure = erasure;
      }
      steps.push({ command, after, event: decided.length });
      decided.push({ event, folded, documents });
      if (decision.erase || !folded) {
        later = open.slice(index + 1);
        break;
      }
      current = folded;
      earlier = [...earlier, ...documents];
    } catch (error) {
      steps.push({ command, after, error });
    }
  }
  return { steps, decided, current, later, erasure, stale };
}

/**
 * After a round's append: the states the stored events leave, the read model projected, the
 * erasure settled or forgotten, and the commands answered whose events were stored, and those
 * decided before them. Returns the commands to decide again.
 */
async function answerRound({ deps, type, id }: BatchItem, { steps, decided, erasure }: Round, base: Versioned, stored: StoredEvent[]): Promise<QueuedCommand[]> {
  const { db } = deps.store;
  const committed = stored.length;
  // The decisions were folded before their events had a place on the clock: the states the
  // stored events leave hold it (the list index is told of them, and as-of reads rely on it).
  let placed: Versioned | null = base;
  for (let index = 0; index < committed && placed; index++) {
    placed = type.fold(placed, stored[index]).state;
    decided[index].folded = placed;
  }
  if (erasure && committed < decided.length) await forgetErasure(db, erasure).catch(() => {});

  if (committed) {
    const last = decided[committed - 1].folded;
    await projectRun(deps, type, stored, base);
    if (erasure && committed === decided.length) {
      // Committed: the answer is a success whatever happens here; what is left is finished at start-up.
      await settleErasure(db, erasure).catch((error: unknown) => deps.logger.error({ stream: id, seq: stored.at(-1)!.seq, err: error }, 'erasing content failed; start-up finishes it'));
    }
    // Each stored command's change, from the state it was decided on to the state its event left,
    // and its answer, given once what follows its commit is done.
    const changes: CommitHook[] = [];
    for (const step of steps) {
      if (!('event' in step) || step.event >= committed) continue;
      const { folded, documents } = decided[step.event];
      const before = step.event === 0 ? base : decided[step.event - 1].folded;
      const event = stored[step.event];
      changes[step.event] = { deps: step.command.deps, change: { before, after: folded }, answer: () => step.command.resolve({ state: folded, event, documents }) };
    }
    // Outside the item's queue: the next batch need not wait for these.
    void afterCommit(deps, type, stored.at(-1)!, last, changes);
  }
  const retry: QueuedCommand[] = [];
  for (const step of steps) {
    if ('event' in step && step.event < committed) continue;
    if (!('event' in step) && step.after <= committed) settle(step);
    else retry.push(step.command);
  }
  return retry;
}

/**
 * Decides and commits `commands`, round after round, settling each command once. A round
 * decides them in turn on the state each leaves (a command whose event erases content, or one
 * after it, waits for the next round), appends what they decided in one insert, and answers those
 * whose events were stored, and those decided before them; the rest are decided again.
 */
async function runBatch(commands: QueuedCommand[], queue: ItemQueue): Promise<void> {
  const { deps, type, id } = commands[0];
  const item: BatchItem = { deps, type, id };
  const { db } = deps.store;
  const log = changeLog(db);
  const known = queue.left?.type === type ? queue.left.state : commands[0].options.current;
  queue.left = undefined;
  let state: Versioned | null | undefined = known;
  let fresh = false;
  let losses = 0;
  let open = commands;
  while (open.length) {
    if (!state) {
      try {
        state = await loadItem(deps, type, id);
      } catch (error) {
        for (const command of open) command.reject(error);
        return;
      }
      fresh = true;
    }
    const base: Versioned = state;
    const round = await decideRound(item, open, base, fresh);
    const { steps, decided, current, later } = round;
    if (round.stale) state = undefined;

    let stored: StoredEvent[] = [];
    if (decided.length) {
      try {
        stored = await log.appendRun(decided.map((each) => each.event), base.version, base.position);
      } catch (error) {
        // Nothing is known to be stored (the database may have stored it before the connection
        // broke: an owed erasure stays, for start-up to settle or drop). What was decided before
        // the first event is answered; the rest fail.
        for (const step of steps) settle(step, 'event' in step ? error : undefined);
        open = later;
        state = undefined;
        continue;
      }
    }
    const committed = stored.length;
    const retry = await answerRound(item, round, base, stored);
    open = [...retry, ...later];
    if (committed < decided.length) {
      if (++losses >= MAX_ATTEMPTS) {
        for (const command of open) command.reject(new WriteConflictError());
        return;
      }
      await catchUpStream(db, log, type.projection, id).catch((failure: unknown) => {
        deps.logger.warn({ stream: id, err: failure }, 'catching up after a lost race failed');
      });
      // Lost again: another process is writing the item as fast as this one. A random pause,
      // growing with each loss, lets one of them through rather than both deciding at once again.
      if (losses > 1) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(MAX_RACE_PAUSE_MS, 2 ** (losses - 1))));
      state = undefined;
    } else if (state !== undefined) {
      state = committed ? decided[committed - 1].folded : current;
      fresh = false;
    }
  }
  if (state !== undefined) queue.left = { type, state };
}

/** Answers a command decided without an event of its own: its result, or its error. */
function settle(step: Step, failure?: unknown): void {
  if (failure !== undefined) step.command.reject(failure);
  else if ('error' in step) step.command.reject(step.error);
  else if ('result' in step) step.command.resolve(step.result);
}

/** A committed command's change and the dependencies it was run with, for the type's `afterCommit`, and its answer. */
interface CommitHook {
  deps: KernelDeps;
  change: CommittedChange<Versioned>;
  answer(): void;
}

/**
 * What follows a commit outside the item's queue: the read model confirmed, this process's list
 * index given the item (other processes' indexes follow the event itself), and the type's
 * `afterCommit` run for each command committed, in order, each command answered once its own has
 * run. Never fails: the writes were made.
 */
async function afterCommit(
  deps: KernelDeps,
  // As the queue holds it: each change's `deps` are those its command was run with, which the
  // type's `afterCommit` asked for (`runCommand`, `createItem`).
  type: HistoryType<Versioned>,
  event: StoredEvent,
  state: Versioned | null,
  changes: readonly CommitHook[],
): Promise<void> {
  await confirmProjected(deps, type, event);
  try {
    type.projection.keptIndex?.wrote(deps.store.db, event.stream, state);
  } catch (error) {
    // The event is stored, and that is every command's answer: the kept lists find it by the log.
    deps.logger.error({ stream: event.stream, err: error }, 'noting a committed write for the kept lists failed; the write stands');
  }
  for (const { deps: commandDeps, change, answer } of changes) {
    try {
      await type.afterCommit?.(commandDeps, change);
    } catch (error) {
      deps.logger.error({ stream: event.stream, err: error }, 'what follows a committed write failed; the write stands');
    }
    answer();
  }
}
