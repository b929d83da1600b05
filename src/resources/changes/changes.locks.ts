import { type Db } from 'mongodb';
import { type Principal } from '../../auth/capabilities.js';
import { formatRestDate } from '../../lib/site-dates.js';
import { type StoredEvent } from '../../store/log/change-log.js';
import { type Versioned } from '../../store/history/kernel.js';
import { type TimelineEntry } from '../history/index.js';
import { type LockEventData, type LockEventFields } from '../locks/index.js';
import { type ChangeSource } from '../manifest.js';

/** The item a lock event names, as a page reads it once for all its lock events. */
export interface LockedItemLook {
  source: ChangeSource;
  /** The item now without its long fields; null once it is gone. */
  current: Versioned | null;
}

/** A lock event as the feed shows it: an entry shaped as the item's own, with the lock's holders. */
export type LockChangeJson = { item: number; item_type: string } & TimelineEntry & {
  object?: Record<string, unknown> | null;
  diff?: null;
  holder: number;
  previous_holder?: number;
  lapses?: string;
};

/** What the feed's page asks of lock events: the sources by item type, and its filters. */
export interface LockChangesQuery {
  sourceOf(itemType: string): ChangeSource | undefined;
  types?: readonly string[];
  subtypes?: readonly string[];
}

/**
 * The lock events of a page, as the caller sees them: only who may read the item's history (who
 * may edit it) sees who is editing it, as only they see an item's `lock` field. An item gone is
 * no longer edited: its lock events are left out. Each item is read once a page.
 */
export function lockChanges(db: Db, user: Principal, query: LockChangesQuery) {
  const items = new Map<number, Promise<LockedItemLook | undefined>>();
  const lookOf = (data: LockEventData) => {
    let look = items.get(data.item);
    if (!look) {
      const source = query.sourceOf(data.item_type);
      look = source ? source.history.load(db, data.item, source.longFields).then((current) => ({ source, current })) : Promise.resolve(undefined);
      items.set(data.item, look);
    }
    return look;
  };

  /** The change of a lock event, with the look of its item; undefined when the caller does not see it or filtered it out. */
  return async (event: StoredEvent & LockEventFields): Promise<{ change: LockChangeJson; look: LockedItemLook } | undefined> => {
    const { data } = event;
    const type = `lock.${event.type}`;
    if (query.types && !query.types.includes(data.item_type)) return undefined;
    if (query.subtypes && !query.subtypes.includes(type)) return undefined;
    const look = await lookOf(data);
    if (!look?.current || !look.source.mayReadHistory(user, look.current)) return undefined;
    const change: LockChangeJson = {
      item: data.item,
      item_type: data.item_type,
      seq: event.seq,
      type,
      date_gmt: formatRestDate(event.at)!,
      author: event.actor,
      fields: [],
      revision: null,
      redacted: [],
      position: event.position!,
      holder: data.user,
      ...(data.previous !== undefined ? { previous_holder: data.previous } : {}),
      // When the lock lapsed; `date_gmt` is when that was recorded.
      ...(event.type === 'lapsed' ? { lapses: formatRestDate(new Date(data.lapsesAt))! } : {}),
    };
    return { change, look };
  };
}
