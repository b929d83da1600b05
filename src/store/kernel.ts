import { type Db } from 'mongodb';
import { type Logger } from '../logger.js';
import { ItemTooLarge, ItemUnavailable, NonFiniteNumber, PreconditionFailed, WriteConflict, type RestErrorClass } from '../rest/errors.js';
import {
  assertStorable,
  changeLog,
  ConcurrencyError,
  DocumentTooLargeError,
  NonFiniteNumberError,
  type NewEvent,
  type StoredEvent,
} from './change-log.js';
import { forgetErasure, oweErasure, settleErasure, type Erasure } from './erasure.js';
import { catchUpStream, projectionFaults, type Projection } from './projections.js';

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
}

export interface HistoryType<S extends Versioned> {
  readonly projection: Projection;
  /** The stream type recorded on the item's events (its post type slug). */
  streamTypeOf(state: S): string;
  /** The item's read model, or null when there is none. */
  load(db: Db, id: number): Promise<S | null>;
  /**
   * The pure fold: the item after `event`, and every document the projection would write for it
   * (to prove, before the append, that each can be stored).
   */
  fold(state: S | null, event: StoredEvent): { state: S | null; documents: object[] };
  /** The item's strong entity tag (its `ETag`). */
  etag(state: S): string;
  /** The fields of event data whose content a force delete (or a revision delete) erases. */
  readonly contentFields: readonly string[];
  /** The value an erased field is left with. */
  blank(field: string): unknown;
  /** The type's 404 (`rest_post_invalid_id` for posts). */
  readonly NotFound: RestErrorClass;
}

export interface KernelDeps {
  readonly store: { readonly db: Db };
  readonly clock: () => Date;
  readonly logger: Logger;
}

/** What a command decides: its event, and what the event erases from the stream once committed. */
export type Decision<D> = { type: string; data: D; erase?: Erasure } | null;

export interface CommandOptions<S> {
  /** The client's condition on the item's entity tag (`If-Match`); false: 412, nothing written. */
  precondition?: (etag: string) => boolean;
  /**
   * The item as the caller read it for this request (its permission check): the first attempt
   * decides on it rather than reading it again. A stale one only costs a lost race and a retry.
   */
  current?: S;
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
 * if it still cannot be, the item answers `ItemUnavailable` instead of a stale read model.
 */
export async function loadItem<S extends Versioned>(deps: KernelDeps, type: HistoryType<S>, id: number): Promise<S> {
  const { db } = deps.store;
  if (!(id > 0)) throw new type.NotFound();
  const [state, fault] = await Promise.all([type.load(db, id), projectionFaults.of(db, id)]);
  if (fault) {
    try {
      await catchUpStream(db, changeLog(db), type.projection, id);
    } catch (error) {
      deps.logger.warn({ stream: id, err: error }, 'the item still cannot be projected');
      throw new ItemUnavailable();
    }
    await projectionFaults.clear(db, id);
    const healed = await type.load(db, id);
    if (!healed) throw new type.NotFound();
    return healed;
  }
  if (!state) throw new type.NotFound();
  return state;
}

/**
 * Proves that `event` can be applied to `state`: the fold runs, and every document it writes,
 * and the event row itself, fits in one database document. Otherwise nothing is appended.
 */
function prove<S extends Versioned>(type: HistoryType<S>, state: S | null, event: StoredEvent): { state: S | null; documents: object[] } {
  try {
    const folded = type.fold(state, event);
    for (const doc of folded.documents) assertStorable(doc);
    return folded;
  } catch (error) {
    throw toRestError(error);
  }
}

function toRestError(error: unknown): unknown {
  if (error instanceof DocumentTooLargeError) return new ItemTooLarge({ bytes: error.bytes });
  if (error instanceof NonFiniteNumberError) return new NonFiniteNumber({ param: error.field });
  return error;
}

/**
 * Projects an appended event. The append was the commit point, so the write is answered as a
 * success whatever happens here: the projection is retried (catching up on anything before it),
 * and if it still fails, the item as the fold leaves it is returned and the next command or
 * start-up heals the read model.
 */
async function project<S extends Versioned>(deps: KernelDeps, type: HistoryType<S>, event: StoredEvent, before: S | null, folded: S | null): Promise<S | null> {
  const { db } = deps.store;
  const log = changeLog(db);
  for (let attempt = 1; attempt <= PROJECTION_ATTEMPTS; attempt++) {
    try {
      // The read model was at the version the event was appended after, so the first attempt
      // applies just this event; a retry catches up on whatever the read model is still behind.
      // The answer is this command's outcome, as the fold computed it, even if others have appended since.
      if (attempt === 1) await type.projection.apply(db, event, before);
      else await catchUpStream(db, log, type.projection, event.stream);
      return folded;
    } catch (error) {
      deps.logger.warn({ stream: event.stream, seq: event.seq, attempt, err: error }, 'projecting an appended event failed');
    }
  }
  deps.logger.error({ stream: event.stream, seq: event.seq }, 'appended event left unprojected; it is healed by the next write or start-up');
  return folded;
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

/** Tells the type's list index (and through it the other processes) of the item a committed event left. */
async function noteWritten<S extends Versioned>(deps: KernelDeps, type: HistoryType<S>, event: StoredEvent, state: S | null): Promise<void> {
  try {
    await type.projection.keptIndex?.wrote(deps.store.db, event.stream, state);
  } catch (error) {
    deps.logger.error({ stream: event.stream, seq: event.seq, err: error }, 'the list index was not told of a committed event; other processes list the item as it was for up to a minute');
  }
}

/** Appends the first event of a new stream (its `created` event) and projects it. */
export async function createItem<S extends Versioned, D>(
  deps: KernelDeps,
  type: HistoryType<S>,
  streamType: string,
  id: number,
  actor: number,
  decision: NonNullable<Decision<D>>,
): Promise<S> {
  const event: NewEvent<D> = { stream: id, streamType, type: decision.type, at: deps.clock(), actor, data: decision.data };
  const folded = prove(type, null, { ...event, seq: 1 } as StoredEvent).state;
  let stored: StoredEvent;
  try {
    stored = (await changeLog(deps.store.db).append(event, 0)) as StoredEvent;
  } catch (error) {
    throw toRestError(error);
  }
  const created = (await project(deps, type, stored, null, folded))!;
  await confirmProjected(deps, type, stored);
  await noteWritten(deps, type, stored, created);
  return created;
}

/**
 * The command cycle: read the item, check the client's precondition, decide, prove the
 * projection, append at the item's version, project. Losing the race for the version (a
 * duplicate `(stream, seq)`) brings the read model up to date and decides again; with a
 * precondition, the changed item then fails it (412).
 */
export function runCommand<S extends Versioned, D>(
  deps: KernelDeps,
  type: HistoryType<S>,
  id: number,
  actor: number,
  decide: (state: S) => Promise<Decision<D>>,
  options: CommandOptions<S> = {},
): Promise<CommandResult<S>> {
  return oneAtATime(deps.store.db, id, async (queue) => {
    // Queued behind another command of this process on the item: decide on the state it left
    // rather than reading the item again (a hot item's commands would each re-read it).
    const left = queue.left?.type === type ? (queue.left.state as S) : undefined;
    queue.left = undefined;
    const result = await attemptCommand(deps, type, id, actor, decide, left ? { ...options, current: left } : options);
    if (result.state) queue.left = { type, state: result.state };
    return result;
  }).then(async (result) => {
    // Outside the item's queue: the next command on the item need not wait for these.
    if (result.event) {
      await confirmProjected(deps, type, result.event);
      await noteWritten(deps, type, result.event, result.state);
    }
    return result;
  });
}

/** One item's commands in this process: the last one queued, and the state the last one to finish left. */
interface ItemQueue {
  tail: Promise<unknown>;
  left?: { type: object; state: Versioned };
}

const queues = new WeakMap<Db, Map<number, ItemQueue>>();

/**
 * Commands on one item run one after another within a process: the race for the item's next
 * seq is then only run against other processes, and many clients writing one item at once
 * queue instead of re-deciding each other into a 409. A command never runs another on its own item.
 */
function oneAtATime<T>(db: Db, id: number, task: (queue: ItemQueue) => Promise<T>): Promise<T> {
  let byItem = queues.get(db);
  if (!byItem) queues.set(db, (byItem = new Map()));
  const items = byItem;
  const queue = items.get(id) ?? { tail: Promise.resolve() };
  const start = () => task(queue);
  const run = queue.tail.then(start, start);
  const settled = run.catch(() => {
    queue.left = undefined;
  });
  queue.tail = settled;
  items.set(id, queue);
  void settled.then(() => {
    if (queue.tail === settled) items.delete(id);
  });
  return run;
}

async function attemptCommand<S extends Versioned, D>(
  deps: KernelDeps,
  type: HistoryType<S>,
  id: number,
  actor: number,
  decide: (state: S) => Promise<Decision<D>>,
  options: CommandOptions<S>,
): Promise<CommandResult<S>> {
  const { db } = deps.store;
  const log = changeLog(db);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const state = attempt === 0 && options.current ? options.current : await loadItem(deps, type, id);
    if (options.precondition && !options.precondition(type.etag(state))) throw new PreconditionFailed();
    const decision = await decide(state);
    if (!decision) return { state, event: null, documents: [] };
    const event: NewEvent<D> = { stream: id, streamType: type.streamTypeOf(state), type: decision.type, at: deps.clock(), actor, data: decision.data };
    const seq = state.version + 1;
    const { state: folded, documents } = prove(type, state, { ...event, seq } as StoredEvent);
    // An erasure is owed before the append, so that a crash after it leaves the debt for start-up.
    const erasure = decision.erase
      ? await oweErasure(db, { stream: id, seq, erasure: decision.erase, contentFields: type.contentFields, blank: type.blank })
      : undefined;
    if (erasure) event.erasure = erasure;
    let stored: StoredEvent;
    try {
      stored = (await log.append(event, state.version)) as StoredEvent;
    } catch (error) {
      // Only a lost race says for sure the event is not there; after any other failure (the database
      // may have stored it before the connection broke) the debt stays, for start-up to settle or drop.
      if (!(error instanceof ConcurrencyError)) throw toRestError(error);
      if (erasure) await forgetErasure(db, erasure).catch(() => {});
      await catchUpStream(db, log, type.projection, id).catch((failure: unknown) => {
        deps.logger.warn({ stream: id, err: failure }, 'catching up after a lost race failed');
      });
      // Lost again: another process is writing the item as fast as this one. A random pause,
      // growing with each loss, lets one of them through rather than both deciding at once again.
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(MAX_RACE_PAUSE_MS, 2 ** attempt)));
      continue;
    }
    const projected = await project(deps, type, stored, state, folded);
    if (erasure) {
      // Committed: the answer is a success whatever happens here; what is left is finished at start-up.
      await settleErasure(db, erasure).catch((error: unknown) => deps.logger.error({ stream: id, seq, err: error }, 'erasing content failed; start-up finishes it'));
    }
    return { state: projected, event: stored, documents };
  }
  throw new WriteConflict();
}
