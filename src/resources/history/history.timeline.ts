import { type Db } from 'mongodb';
import { changeLog, countEvents, type ScanOptions, type StoredEvent } from '../../store/log/change-log.js';
import { type PostgresConnection } from '../../store/database/postgresql.js';
import { timelineEntry, type TimelineEntry, type WireNames } from './history.serializer.js';

/** A timeline entry of the export: the history entry, with the item it belongs to. */
export type ExportEntry = { item: number; item_type: string } & TimelineEntry;

export interface TimelineQuery {
  /** Only items of this post type. */
  type?: string;
  /** Only this item. */
  id?: number;
  /** Only events at or after this instant (then in time order across items). */
  since?: Date;
}

/**
 * The CSV columns, in order; lists are joined with spaces and a missing revision is empty. Columns
 * added later go at the end, so that consumers reading by place keep working.
 */
export const CSV_COLUMNS = ['item', 'item_type', 'seq', 'type', 'date_gmt', 'author', 'fields', 'revision', 'redacted', 'position'] as const;

export function csvRow(entry: ExportEntry): Record<(typeof CSV_COLUMNS)[number], string | number> {
  return {
    item: entry.item,
    item_type: entry.item_type,
    seq: entry.seq,
    type: entry.type,
    date_gmt: entry.date_gmt,
    author: entry.author,
    fields: entry.fields.join(' '),
    revision: entry.revision ?? '',
    redacted: entry.redacted.join(' '),
    position: entry.position,
  };
}

const scanOptions = (query: TimelineQuery): ScanOptions => ({
  ...(query.id !== undefined ? { streams: [query.id] } : {}),
  ...(query.since ? { since: query.since } : {}),
});

/** How many events the timeline reads (before the type filter), for a progress bar (see `countEvents`). */
export function countTimelineEvents(db: Db, query: TimelineQuery, postgres?: PostgresConnection): Promise<number> {
  return countEvents(db, { ...(query.id !== undefined ? { stream: query.id } : {}), ...(query.since ? { since: query.since } : {}) }, { postgres });
}

// Remembered item types, bounded so that a timeline of any length keeps constant memory.
const TYPE_CACHE_SIZE = 10_000;

/** What the timeline needs of the history types, which their resources declare. */
export interface TimelineTypes {
  /** The type of a stream stored before events recorded it, named by its first event. */
  legacyTypeOf(first: StoredEvent): string | undefined;
  /** How a type names its stored fields. */
  wireNamesOf(type: string): WireNames | undefined;
}

/**
 * The type of each stream's item: recorded on its events. For events stored before that, a
 * stream opens with `created`, which names it, so a scan in stream order asks nothing; in time
 * order (`since`) an item's creation may be earlier, and its first event is read by its key.
 */
function itemTypes(db: Db, types: TimelineTypes) {
  const known = new Map<number, string>();
  const remember = (stream: number, type: string) => {
    if (known.size >= TYPE_CACHE_SIZE) known.delete(known.keys().next().value!);
    known.set(stream, type);
    return type;
  };
  return async (event: StoredEvent): Promise<string> => {
    if (event.streamType !== undefined) return event.streamType;
    if (event.seq === 1) return remember(event.stream, types.legacyTypeOf(event) ?? '');
    const cached = known.get(event.stream);
    if (cached !== undefined) return cached;
    const [first] = await changeLog(db).readSeqs(event.stream, 1, 1);
    return remember(event.stream, (first && types.legacyTypeOf(first)) ?? '');
  };
}

export interface TimelineReading {
  /** Told of each event read, kept or not, for progress. */
  onRead?: () => void;
  /** The embedded PostgreSQL behind `db`, read directly (`ChangeLogOptions`). */
  postgres?: PostgresConnection;
}

/** Every event of the query as an export entry, read from one cursor (constant memory). */
export async function* timeline(db: Db, types: TimelineTypes, query: TimelineQuery, reading: TimelineReading = {}): AsyncGenerator<ExportEntry> {
  const typeOf = itemTypes(db, types);
  for await (const event of changeLog(db, { postgres: reading.postgres }).scan(scanOptions(query))) {
    reading.onRead?.();
    const itemType = await typeOf(event);
    if (query.type !== undefined && itemType !== query.type) continue;
    yield { item: event.stream, item_type: itemType, ...timelineEntry(event, types.wireNamesOf(itemType)) };
  }
}
