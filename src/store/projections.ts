import { type Db } from 'mongodb';
import { type ChangeLog, type StoredEvent } from './change-log.js';

/**
 * A read model kept from the change log. `apply` must be idempotent: it may see an event it
 * already applied (a retry, or healing after a crash), and then changes nothing.
 */
export interface Projection {
  readonly name: string;
  readonly handles: readonly string[];
  /** The versions the read model has reached for these streams (absent: nothing applied). */
  versionsOf(db: Db, streams: number[]): Promise<Map<number, number>>;
  /** Event types after which the stream has no read model left (a force delete). */
  readonly endsStream: readonly string[];
  apply(db: Db, event: StoredEvent): Promise<void>;
  /** Empties the read model before a full replay. */
  clear(db: Db): Promise<void>;
  /**
   * Writes a stream's read model from all its events at once, for a full replay: folding in
   * memory and writing once per stream instead of once per event.
   */
  rebuildStream?(db: Db, events: StoredEvent[]): Promise<void>;
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

/**
 * Applies the events a crash left unprojected: for every stream whose read model is behind the
 * log, the missing events in order. Run at start-up.
 */
export async function healProjections(db: Db, log: ChangeLog, projections: readonly Projection[]): Promise<number> {
  let healed = 0;
  const last = await log.lastEvents();
  const streams = [...last.keys()];
  for (const projection of projections) {
    for (let start = 0; start < streams.length; start += 1000) {
      const batch = streams.slice(start, start + 1000);
      const versions = await projection.versionsOf(db, batch);
      for (const stream of batch) {
        const { seq, type } = last.get(stream)!;
        const version = versions.get(stream) ?? 0;
        if (version >= seq || (version === 0 && projection.endsStream.includes(type))) continue;
        for (const event of await log.readStream<Record<string, unknown>>(stream, { afterSeq: version })) {
          if (projection.handles.includes(event.type)) await projection.apply(db, event);
          healed++;
        }
      }
    }
  }
  return healed;
}

/** Empties every projection and replays the whole log into it (`npm run projections:rebuild`). */
export async function rebuildProjections(db: Db, log: ChangeLog, projections: readonly Projection[]): Promise<number> {
  for (const projection of projections) await projection.clear(db);
  let count = 0;
  let stream: StoredEvent[] = [];
  const flush = async () => {
    for (const projection of projections) {
      const handled = stream.filter((event) => projection.handles.includes(event.type));
      if (!handled.length) continue;
      if (projection.rebuildStream) await projection.rebuildStream(db, handled);
      else for (const event of handled) await projection.apply(db, event);
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
  return count;
}
