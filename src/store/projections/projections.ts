import { type Db } from 'mongodb';
import { type ChangeLog, keepLatest, type LastEvent, type StoredEvent } from '../log/change-log.js';
import { earliestRetainedPosition } from './change-feed.js';
import { keptPerDatabase } from '../coordination/site-changes.js';
import { isDuplicateKey } from '../database/mongo.js';
import { type KeptIndex } from './kept-index.js';

/**
 * A read model kept from the change log. `apply` must be idempotent: it may see an event it
 * already applied (a retry, another process catching up, or healing after a crash), and then
 * changes nothing.
 */
export interface Projection {
  readonly name: string;
  /** The stream types (post type slugs) whose streams this projection folds. */
  readonly streamTypes: readonly string[];
  /**
   * The type of a stream whose events were stored before events recorded it, read from the
   * stream's first event; undefined when the stream is not this projection's.
   */
  legacyStreamType?(first: StoredEvent): string | undefined;
  readonly handles: readonly string[];
  /** The versions the read model has reached for these streams (absent: nothing applied). */
  versionsOf(db: Db, streams: number[]): Promise<Map<number, number>>;
  /** The version the read model has reached for one stream (0: nothing applied), read by its key alone. */
  versionOf(db: Db, stream: number): Promise<number>;
  /** Event types after which the stream has no read model left (a force delete). */
  readonly endsStream: readonly string[];
  /**
   * `before` is the read model as the event found it (at version `seq - 1`, null before the
   * stream's first event), when the caller folded from it already: the projection then writes
   * without reading it again. Undefined: unknown, read it.
   */
  apply(db: Db, event: StoredEvent, before?: object | null): Promise<void>;
  /**
   * Applies a run of a stream's consecutive events (a group commit's), as applying each in turn
   * would, writing each document once. `before` is as for `apply`, for the run's first event.
   */
  applyRun(db: Db, events: StoredEvent[], before?: object | null): Promise<void>;
  /** Empties the read model before a full replay. */
  clear(db: Db): Promise<void>;
  /**
   * Writes a stream's read model from all its events at once, for a full replay: folding in
   * memory and writing once per stream instead of once per event.
   */
  rebuildStream?(db: Db, events: StoredEvent[]): Promise<void>;
  /** The list index each process keeps of the read model's items, told of every item written. */
  readonly keptIndex?: KeptIndex;
}

export function defineProjection(projection: Projection): Projection {
  return Object.freeze(projection);
}

/** Applies an event to every projection that handles it, right after its append. */
export async function applyEvent(db: Db, projections: readonly Projection[], event: StoredEvent): Promise<void> {
  for (const projection of projections) {
    if (projection.handles.includes(event.type)) await projection.apply(db, event);
  }
}

/** Brings one stream's read model up to the log: the events after the version it has reached. */
export async function catchUpStream(db: Db, log: ChangeLog, projection: Projection, stream: number): Promise<number> {
  const version = await projection.versionOf(db, stream);
  let applied = 0;
  for (const event of await log.readAfter(stream, version)) {
    if (projection.handles.includes(event.type)) await projection.apply(db, event);
    applied++;
  }
  return applied;
}

/**
 * Every projection the service keeps, found by stream type: the one list that healing, rebuild
 * and the command cycle use, built from the resource manifests.
 */
export class ProjectionRegistry {
  private readonly byType = new Map<string, Projection>();

  constructor(readonly projections: readonly Projection[]) {
    for (const projection of projections) {
      for (const type of projection.streamTypes) {
        if (this.byType.has(type)) throw new Error(`Stream type ${type} has two projections`);
        this.byType.set(type, projection);
      }
    }
  }

  forType(streamType: string | undefined): Projection | undefined {
    return streamType === undefined ? undefined : this.byType.get(streamType);
  }

  /** A stream's type: recorded on its events, or, for a stream stored before that, read from its first event. */
  typeOf(recorded: string | undefined, first: StoredEvent | undefined): string | undefined {
    if (recorded !== undefined) return recorded;
    if (first?.streamType !== undefined) return first.streamType;
    if (!first) return undefined;
    for (const projection of this.projections) {
      const type = projection.legacyStreamType?.(first);
      if (type !== undefined) return type;
    }
    return undefined;
  }
}

/**
 * A stream whose events could not be projected (healing or rebuild failed on it). The item
 * answers an error and `/healthz` reports it, while everything else is served.
 */
export interface ProjectionFault {
  /** The stream, as a string: FerretDB on SQLite pushes down only string `_id` filters. */
  _id: string;
  stream: number;
  streamType: string;
  projection: string;
  /** The event the projection could not apply. */
  seq: number;
  error: string;
  at: Date;
}

const faultsCollection = (db: Db) => db.collection<ProjectionFault>('projection_faults');

/**
 * Whether a database has any fault, kept until more than content changes (`SiteChanges`): items
 * are looked up on every request, and faults are rare. Only healing and a rebuild record one,
 * never a write: one recorded or cleared here is seen at once, any other within `FAULTS_CACHE_MS`.
 */
const FAULTS_CACHE_MS = 2000;
const anyFault = keptPerDatabase(FAULTS_CACHE_MS, async (db) => (await faultsCollection(db).findOne({}, { projection: { _id: 1 } })) !== null, 'site');

export const projectionFaults = {
  any: (db: Db): Promise<boolean> => anyFault.get(db),
  async record(db: Db, fault: Omit<ProjectionFault, '_id'>): Promise<void> {
    const row = { _id: String(fault.stream), ...fault };
    await faultsCollection(db)
      .replaceOne({ _id: row._id }, row, { upsert: true })
      .catch(async (error: { code?: number }) => {
        // FerretDB does not retry an upsert that lost a race for the key: the row exists now.
        if (!isDuplicateKey(error)) throw error;
        await faultsCollection(db).replaceOne({ _id: row._id }, row);
      });
    anyFault.forget(db);
  },
  async clear(db: Db, stream: number): Promise<void> {
    await faultsCollection(db).deleteOne({ _id: String(stream) });
    anyFault.forget(db);
  },
  async of(db: Db, stream: number): Promise<ProjectionFault | null> {
    if (!(await projectionFaults.any(db))) return null;
    return faultsCollection(db).findOne({ _id: String(stream) });
  },
  async list(db: Db, limit = 100): Promise<ProjectionFault[]> {
    return faultsCollection(db).find({}).limit(limit).toArray();
  },
};

export interface FaultLogger {
  error(details: object, message: string): void;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 500);

/** Each stream's type, from its last event or, for streams stored before types were recorded, its first. */
async function streamTypes(log: ChangeLog, registry: ProjectionRegistry, recorded: Map<number, string | undefined>): Promise<Map<number, string | undefined>> {
  const unknown = [...recorded].filter(([, type]) => type === undefined).map(([stream]) => stream);
  const first = unknown.length ? await log.firstEvents(unknown) : new Map<number, StoredEvent>();
  return new Map([...recorded].map(([stream, type]) => [stream, registry.typeOf(type, first.get(stream))]));
}

/**
 * Applies the events a crash left unprojected: for every stream whose read model is behind the
 * log, the missing events in order, through its own type's projection. Run at start-up. A stream
 * that cannot be projected is logged and recorded as a fault, never stopping the others.
 */
export async function healProjections(db: Db, log: ChangeLog, registry: ProjectionRegistry, logger?: FaultLogger, streams?: Map<number, LastEvent>): Promise<number> {
  let healed = 0;
  const last = streams ?? (await log.lastEvents());
  const types = await streamTypes(log, registry, new Map([...last].map(([stream, event]) => [stream, event.streamType])));
  const faulty = new Set((await projectionFaults.list(db, 100_000)).map((fault) => fault.stream));
  for (const projection of registry.projections) {
    const streams = [...last.keys()].filter((stream) => registry.forType(types.get(stream)) === projection);
    for (let start = 0; start < streams.length; start += 1000) {
      const batch = streams.slice(start, start + 1000);
      const versions = await projection.versionsOf(db, batch);
      for (const stream of batch) {
        const { seq, type } = last.get(stream)!;
        const version = versions.get(stream) ?? 0;
        if (version >= seq || (version === 0 && projection.endsStream.includes(type))) {
          if (faulty.has(stream)) await projectionFaults.clear(db, stream);
          continue;
        }
        let at = version;
        try {
          for (const event of await log.readAfter(stream, version)) {
            at = event.seq;
            if (projection.handles.includes(event.type)) await projection.apply(db, event);
            healed++;
          }
          await projection.keptIndex?.changed(db, [stream]);
          if (faulty.has(stream)) await projectionFaults.clear(db, stream);
        } catch (error) {
          const fault = { stream, streamType: types.get(stream)!, projection: projection.name, seq: at, error: describe(error), at: new Date() };
          logger?.error({ fault }, 'a stream of the change log cannot be projected; its item is unavailable');
          await projectionFaults.record(db, fault);
        }
      }
    }
  }
  return healed;
}

/** Empties every projection and replays the whole log into it (`npm run projections:rebuild`). */
export async function rebuildProjections(db: Db, log: ChangeLog, registry: ProjectionRegistry, logger?: FaultLogger): Promise<number> {
  for (const projection of registry.projections) await projection.clear(db);
  await db.collection('projection_faults').deleteMany({});
  anyFault.forget(db);
  let count = 0;
  let stream: StoredEvent[] = [];
  const flush = async () => {
    if (!stream.length) return;
    const streamType = registry.typeOf(stream.find((event) => event.streamType !== undefined)?.streamType, stream[0].seq === 1 ? stream[0] : undefined);
    const projection = registry.forType(streamType);
    const handled = projection ? stream.filter((event) => projection.handles.includes(event.type)) : [];
    try {
      if (projection && handled.length) {
        if (projection.rebuildStream) await projection.rebuildStream(db, handled);
        else for (const event of handled) await projection.apply(db, event);
      }
    } catch (error) {
      const fault = { stream: stream[0].stream, streamType: streamType!, projection: projection!.name, seq: stream.at(-1)!.seq, error: describe(error), at: new Date() };
      logger?.error({ fault }, 'a stream of the change log cannot be projected; its item is unavailable');
      await projectionFaults.record(db, fault);
    }
    stream = [];
  };
  // The scan is ordered by stream, then seq: each stream's events arrive together.
  for await (const event of log.scan<Record<string, unknown>>()) {
    if (stream.length && stream[0].stream !== event.stream) await flush();
    stream.push(event);
    count++;
  }
  await flush();
  for (const projection of registry.projections) await projection.keptIndex?.reset(db);
  return count;
}

/**
 * Events stamped this long before a heal began may still have been unprojected then (other
 * processes' clocks, and commands between stamping their event and appending it): the look back
 * of a heal after one that recorded only its time.
 */
const CHECKPOINT_MARGIN_MS = 10 * 60_000;
/** Positions a heal reads at once, without the events' data. */
const HEAL_PAGE = 4096;
/** How far below the head a heal with no position to start from reads by position: appends still in flight. */
const RECENT_POSITIONS = 256;
/**
 * A point a piece of start-up work reached. `exact`: nothing before `at` needs a margin (it was
 * read whole then). `position`: the log was read through it, so every event it did not see is
 * above it, whatever anyone's clock said.
 */
export interface Checkpoint {
  at: Date;
  exact?: boolean;
  position?: number;
}
const checkpoints = (db: Db) => db.collection<{ _id: string } & Checkpoint>('checkpoints');

/** The checkpoint `name`, if one is on record. */
export async function checkpointOf(db: Db, name: string): Promise<Checkpoint | null> {
  const saved = await checkpoints(db).findOne({ _id: name });
  return saved ? { at: saved.at, ...(saved.exact ? { exact: true } : {}) } : null;
}

/** Records the checkpoint `name`, replacing the one on record. */
export async function recordCheckpoint(db: Db, name: string, checkpoint: Checkpoint): Promise<void> {
  await checkpoints(db).replaceOne({ _id: name }, checkpoint, { upsert: true });
}

/**
 * Runs `work` once per database: skipped when the checkpoint `name` is on record, which is recorded
 * once it finished (two processes finishing it at once record it once). Returns what `work`
 * counted, 0 when it had been done before. For rewrites of rows stored before a field existed.
 */
export async function oncePerDatabase(db: Db, name: string, work: () => Promise<number>): Promise<number> {
  if (await checkpoints(db).findOne({ _id: name })) return 0;
  const count = await work();
  await checkpoints(db).replaceOne({ _id: name }, { at: new Date() }, { upsert: true }).catch((error: unknown) => {
    if (!isDuplicateKey(error)) throw error;
  });
  return count;
}

/**
 * The last seq and type of every stream with an event after `position`, and the position the log
 * was read through: the end of its gap-free prefix, so every event not seen lands above it. A
 * missing position (an append in flight, or one a crash left) is neither waited for nor voided:
 * start-up would wait on each; the events past it are read all the same, and the next heal
 * starts below it again.
 */
async function streamsAppendedAfter(log: ChangeLog, position: number): Promise<{ last: Map<number, LastEvent>; through: number }> {
  const last = new Map<number, LastEvent>();
  let through: number | undefined;
  for (let after = position; ; ) {
    const page = await log.readPositions(after, HEAL_PAGE, { outline: true, waitForGaps: false });
    for (const event of page.events) keepLatest(last, event);
    if (through === undefined && page.through < page.highest) through = page.through;
    if (page.highest <= after) return { last, through: through ?? after };
    after = page.highest;
  }
}

/**
 * Start-up healing that does not grow with the log: only streams appended to after the position
 * the last heal read the log through are looked at, by position, so no process's clock decides
 * what is missed. A heal recorded before heals kept their position looks from its time, less a
 * margin, through the events' `at` index. The first start, or one with projection faults on
 * record, looks at every stream.
 */
export async function healFromCheckpoint(db: Db, log: ChangeLog, registry: ProjectionRegistry, logger: FaultLogger, now: Date): Promise<number> {
  const saved = await checkpoints(db).findOne({ _id: 'projections' });
  const partial = saved !== null && !(await projectionFaults.any(db));
  const byPosition = partial && saved.position !== undefined;
  // Read before healing, so that the heal covers every event through it: later ones are the
  // next heal's. Without a position to start from, the read starts a little before the head,
  // to find the end of its gap-free prefix; what lies below it is read otherwise.
  const from = byPosition ? saved.position! : (await log.firstFreePosition()) - 1 - RECENT_POSITIONS;
  const appended = await streamsAppendedAfter(log, Math.max(from, (await earliestRetainedPosition(db)) - 1, 0));
  let streams: Map<number, LastEvent> | undefined;
  if (byPosition) streams = appended.last;
  else if (partial) streams = latestOf(await log.lastEvents(new Date(saved.at.getTime() - CHECKPOINT_MARGIN_MS)), appended.last);
  const healed = await healProjections(db, log, registry, logger, streams);
  await checkpoints(db).replaceOne({ _id: 'projections' }, { at: now, position: appended.through }, { upsert: true });
  return healed;
}

/** Each stream's later last event of the two maps. */
function latestOf(one: Map<number, LastEvent>, other: Map<number, LastEvent>): Map<number, LastEvent> {
  const latest = new Map(one);
  for (const [stream, event] of other) keepLatest(latest, { stream, ...event });
  return latest;
}
