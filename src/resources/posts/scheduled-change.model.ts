import { type Db } from 'mongodb';
import { type IndexSpec } from '../../store/database/mongo.js';

/**
 * A change to an item, to be applied as an update by its author at `dateGmt` (beyond WordPress,
 * whose scheduling only publishes a `future` post). `fields` holds the write parameters it carries
 * as the client sent them (after the save filters), serialized: their keys (meta) are a client's,
 * and never become BSON keys. Applying it replays them through the update's input policy, on the
 * item as it is then.
 */
export interface ScheduledChangeDoc {
  /** From the content id sequence, as revisions' ids are. */
  _id: number;
  /** The item it changes, and that item's post type. */
  item: number;
  itemType: string;
  /** Who scheduled it (who last edited it): the update is applied as this user. */
  author: number;
  /** When it is applied, as GMT (`YYYY-MM-DDTHH:MM:SS`). */
  dateGmt: string;
  /** The write parameters it carries, as a JSON object. */
  fields: string;
  /**
   * The item's version (its change log's seq) when the change was scheduled or its fields last
   * edited: what its author saw. Applying it names which of its fields the item's later events
   * changed. Absent on changes scheduled before it was kept.
   */
  basedOnSeq?: number;
  state: 'pending' | 'applied' | 'failed';
  created: Date;
  modified: Date;
  /** Raised by every edit: its `ETag`. */
  edits: number;
  /** `applied`: the item's change-log position and seq of the update that applied it. */
  appliedPosition?: number | null;
  appliedSeq?: number;
  /** `failed`: the error code the update was refused with (the author lost the right, the item is gone). */
  failure?: string;
}

export const SCHEDULED_CHANGES_COLLECTION = 'scheduled_changes';

export const scheduledChangesCollection = (db: Db) => db.collection<ScheduledChangeDoc>(SCHEDULED_CHANGES_COLLECTION);

export const scheduledChangeIndexes: IndexSpec[] = [
  // An item's pending changes; every pending change (the scheduler's look, the editors' list).
  { collection: SCHEDULED_CHANGES_COLLECTION, key: { item: 1, state: 1, dateGmt: 1, _id: 1 }, name: 'item_state_date' },
  { collection: SCHEDULED_CHANGES_COLLECTION, key: { state: 1, dateGmt: 1, _id: 1 }, name: 'state_date' },
];

/**
 * The pending changes, of one item or of the site, soonest first. Read whole by the equality
 * alone, then ordered here: the embedded database pushes down only that (a range, a sort or a
 * limit would have it decode every pending change anyway), and a site holds few at a time.
 */
export async function pendingChanges(db: Db, item?: number): Promise<ScheduledChangeDoc[]> {
  const docs = await scheduledChangesCollection(db).find(item === undefined ? { state: 'pending' } : { item, state: 'pending' }).toArray();
  return docs.sort((a, b) => (a.dateGmt < b.dateGmt ? -1 : a.dateGmt > b.dateGmt ? 1 : a._id - b._id));
}

/** A change's carried parameters, as a null-prototype object (keys are a client's). */
export function carriedFields(doc: Pick<ScheduledChangeDoc, 'fields'>): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, JSON.parse(doc.fields) as Record<string, unknown>);
}
