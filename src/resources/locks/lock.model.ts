import { type Db } from 'mongodb';
import { ID_INDEX_NAME, type IndexSpec } from '../../store/database/mongo.js';

/**
 * One generation of an item's edit lock (WordPress's `_edit_lock` post meta, kept in a collection
 * of its own so that every process and node sees the same one). An item's generations run 1..n
 * without gaps, each claimed by inserting its document (`<key>#<n>`): the unique `_id` lets one
 * taker in, the only atomic step the embedded database offers (its conditional updates are read,
 * then written). The newest generation is the lock: held by `user`, or `released`. A head document
 * (`_id` = the key) copies the newest generation its writer knew, so that a read starts there and
 * looks one generation further; a head left behind (a writer that stopped between the claim and the
 * head) only makes that look longer.
 */
export interface LockDoc {
  /** `<key>#<generation>` for a generation, `<key>` for the head. */
  _id: string;
  /** `<post type>:<id>`: the item's type and the id its routes name it by (`cms_template:theme//slug`). */
  item: string;
  /** 1, 2, 3…: raised by every take, take-over and release (a refresh by the holder keeps it). */
  generation: number;
  /** Who holds it (who held it, once released). */
  user: number;
  /** When its holder took it. */
  since: Date;
  /** When its holder last took or refreshed it. */
  refreshedAt: Date;
  /** When it lapses unless refreshed: past it, the item is free. */
  lapsesAt: Date;
  /** Set on the generation that released the lock before it lapsed. */
  released?: boolean;
  /** Set on the generation that records the lock's lapse (`lock.lapsed`). */
  lapsed?: boolean;
  /** The item's id (its lock events' stream, negated) and type; absent on generations stored before lapses were recorded. */
  itemId?: number;
  itemType?: string;
  /**
   * On the head only, while its generation holds or has lapsed with no event saying so yet: what
   * the scheduler reads (`openLocks`) to record lapses. An equality on one top-level field, which
   * the embedded database pushes down, over the few locks being edited at a time.
   */
  open?: true;
}

export const LOCKS_COLLECTION = 'edit_locks';

export const locksCollection = (db: Db) => db.collection<LockDoc>(LOCKS_COLLECTION);

/** Every read and write names one document by `_id`, but the scheduler's look for open locks (`open`, on heads only). */
export const lockIndexes: IndexSpec[] = [
  { collection: LOCKS_COLLECTION, key: { _id: 1 }, name: ID_INDEX_NAME },
  { collection: LOCKS_COLLECTION, key: { open: 1 }, name: 'open', sparse: true },
];

/** The `_id` of an item's generation. */
export const generationId = (key: string, generation: number) => `${key}#${generation}`;

/** Whether the generation ended the lock: a release, or a lapse recorded. */
export const ends = (lock: LockDoc) => Boolean(lock.released || lock.lapsed);

/** Whether the lock holds at `now`: not released, and not lapsed. */
export const holds = (lock: LockDoc | null, now: Date): lock is LockDoc => lock !== null && !ends(lock) && lock.lapsesAt.getTime() > now.getTime();

/** Whether the lock has lapsed at `now` with no event saying so yet: its lapse is to be recorded. */
export const lapseDue = (lock: LockDoc | null, now: Date): lock is LockDoc => lock !== null && !ends(lock) && lock.lapsesAt.getTime() <= now.getTime();
