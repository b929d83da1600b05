import { type FindOptions } from 'mongodb';

/**
 * Seqs per block of a stream. Each event row keeps its block (`<stream>:<seq / 16>`), so a run of
 * a stream's events is read a block at a time, by equality on `block`, which the embedded database
 * serves from an index (where two fields, stream and seq, cost it an intersection per event).
 */
export const EVENT_BLOCK = 16;
export const eventBlock = (stream: number, seq: number) => `${stream}:${Math.floor(seq / EVENT_BLOCK)}`;
/**
 * Positions per block of the whole log. Each event row keeps its block (`position / 64`), so a run
 * of positions (a page of the change feed) is read a block at a time, by equality on
 * `positionBlock`, which the embedded database serves from an index, not position by position.
 */
export const POSITION_BLOCK = 64;
/** A row's place on the log's clock: its position and that position's block. */
export const atPosition = (position: number) => ({ position, positionBlock: Math.floor(position / POSITION_BLOCK) });
/**
 * Event rows are read without checking that their strings are valid UTF-8: the service wrote them
 * from JavaScript strings, and the check scanned every character of every long text again (most
 * of what decoding a page of long events cost).
 */
export const EVENT_READ = { enableUtf8Validation: false } as const;
/** An event without its data: where it is and what it is. */
export const OUTLINE_READ: FindOptions = { ...EVENT_READ, projection: { data: 0 } };
/**
 * Rows a read of long events asks for at once: the driver assembles each answer whole before
 * decoding any of it, and an answer of a block of a long post's versions (21 MB) took a slice of
 * its own to assemble.
 */
export const EVENT_READ_BATCH = 8;

/**
 * One accepted change of an item: `seq` counts from 1 within the item's stream. `data` is
 * client-shaped JSON (meta keys belong to clients), so it is stored as a JSON string.
 */
export interface StoredEvent<D = Record<string, unknown>> {
  stream: number;
  /**
   * The type of item the stream belongs to (a post type slug), which names the projection that
   * replays it. Absent from events stored before types were recorded: see `streamTypeOf`.
   */
  streamType?: string;
  seq: number;
  type: string;
  at: Date;
  actor: number;
  data: D;
  /** Names of the fields whose content was erased (a deleted revision or a force-deleted item). */
  redacted?: string[];
  /** The erasure this event owes (its id in `owed_erasures`): start-up tells it from a rival command's. */
  erasure?: string;
  /** Its place on the one clock of the whole log (`positions` below); absent only before the upgrade gave it one. */
  position?: number;
  /** The `Idempotency-Key` claim of the request that appended it (`write-claims.ts`); not read back into events. */
  claim?: string;
}

/** One of a history type's events as its commands decide it: the type string stored, and the data that type carries. */
export interface TypedEventData {
  readonly type: string;
  readonly data: object;
}

/**
 * A stored event of a history type whose events are the union `E` (`{ type: 'created'; data:
 * PostCreated } | ...`): its data narrowed by `switch (event.type)`.
 */
export type TypedEvent<E extends TypedEventData> = E extends TypedEventData ? Omit<StoredEvent, 'type' | 'data'> & E : never;

/**
 * The one narrowing of events read from the log (`StoredEvent`, data as parsed JSON) to a history
 * type's union, by the type strings its commands store: each type's data is what the command that
 * stored it decided, typed by `Decision`, so the type string says the shape.
 */
export function eventsOfTypes<E extends TypedEventData>(types: readonly E['type'][]): (event: StoredEvent<object>) => event is TypedEvent<E> {
  const known: readonly string[] = types;
  return (event): event is TypedEvent<E> => known.includes(event.type);
}

/** An event as its row stores it: the data as a JSON string, and the blocks it is read by. */
export interface EventRow extends Omit<StoredEvent, 'data'> {
  data: string;
  /** The block of the stream it falls in (`eventBlock`); absent on events stored before blocks were kept. */
  block?: string;
  /** The block of the log its position falls in (`atPosition`); absent on events stored before position blocks were kept. */
  positionBlock?: number;
}

export type NewEvent<D = Record<string, unknown>> = Omit<StoredEvent<D>, 'seq' | 'redacted' | 'streamType' | 'position'> & { streamType: string };

export const toEvent = <D>(row: EventRow): StoredEvent<D> => ({
  stream: row.stream,
  ...(row.streamType !== undefined ? { streamType: row.streamType } : {}),
  seq: row.seq,
  type: row.type,
  at: row.at,
  actor: row.actor,
  // An outline (`readPositions`' `outline`) was read without its data.
  data: (row.data === undefined ? {} : JSON.parse(row.data)) as D,
  ...(row.redacted ? { redacted: row.redacted } : {}),
  ...(row.erasure ? { erasure: row.erasure } : {}),
  ...(row.position !== undefined ? { position: row.position } : {}),
});

/**
 * One clock for the whole log: every event row holds a `position`, a positive integer that a
 * unique index keeps to one row. The append itself claims it (no claim before, no transaction):
 * a process inserts its event at a position its clock picks (`position-clock.ts`: one past its
 * last while it appends alone, from a counter shared by every process once others append too),
 * above its stream's previous event, so a stream's positions rise with its seqs. Another process
 * holding that position makes the insert fail like a lost race; the append then takes others. Positions are not dense while appends are in flight: a reader by position
 * (`readPositions`) reads only a prefix without gaps, and voids a gap it has waited out (a row
 * of stream 0, which is no item, at seq `-position`, so it can meet no real `(stream, seq)`).
 * Every other reader of the log reads by stream, or leaves stream 0 out.
 */
export const VOID_EVENT = 'void';
export const voidRow = (position: number, at: Date): EventRow => ({ stream: 0, seq: -position, ...atPosition(position), type: VOID_EVENT, at, actor: 0, data: 'null' });
