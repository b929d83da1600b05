import { type StoredEvent } from '../../store/log/change-log.js';

/**
 * An item's lock events sit in the change log, in a stream of their own: the item's id negated
 * (item streams run from 1, voids are stream 0), one seq per lock generation. So each event has
 * its position on the one clock, in order with the item's own changes, and the item's stream, its
 * version, revisions and history are untouched by them. Readers by stream never see them (the log's
 * readers skip streams below 1); a reader by position asks for them (`readPositions`' `sideStreams`).
 */
export const LOCK_STREAM_TYPE = 'lock';

/**
 * What happened to the lock: `taken` (from no one), `taken_over` (from another holder), `released`,
 * `lapsed` (its window passed without a refresh or a release). Each holding generation ends in one
 * of `taken_over`, `released` or `lapsed`, so a reader of the events alone knows who holds it.
 */
export const LOCK_EVENT_TYPES = ['taken', 'taken_over', 'released', 'lapsed'] as const;
export type LockEventType = (typeof LOCK_EVENT_TYPES)[number];

/** The names the feed and webhooks give them: `lock.taken`, `lock.taken_over`, `lock.released`, `lock.lapsed`. */
export const LOCK_CHANGE_TYPES = LOCK_EVENT_TYPES.map((type) => `${LOCK_STREAM_TYPE}.${type}` as const);

/** A lock event's data: the item, the generation's holder and times, and for a take-over the holder before. */
export interface LockEventData {
  /** The locked item's id and type. */
  item: number;
  item_type: string;
  /** The lock's key (`<type>:<route id>`), which names its generations. */
  key: string;
  /** Who holds the lock from this event on (who held it, for a release or a lapse). */
  user: number;
  /** For `taken_over`: who held it before. */
  previous?: number;
  since: string;
  refreshedAt: string;
  /** When the generation lapses unless refreshed; for `lapsed`, the moment it lapsed (the event's `at` is when that was recorded). */
  lapsesAt: string;
}

export type LockEvent = StoredEvent<LockEventData>;

/** The stream of an item's lock events. */
export const lockStream = (itemId: number) => -itemId;

/** What a lock event is, beside its place in the log: its type and its data. */
export interface LockEventFields {
  type: LockEventType;
  data: LockEventData;
}

/**
 * Whether an event read from the log is a lock event: the one narrowing of its data. A lock's
 * stream (`lockStream`) holds only the events `lock.commands.ts` appends, each with its `LockEventData`.
 */
export const isLockEvent = <T extends Pick<StoredEvent, 'stream' | 'streamType'>>(event: T): event is T & LockEventFields =>
  event.stream < 0 && event.streamType === LOCK_STREAM_TYPE;
