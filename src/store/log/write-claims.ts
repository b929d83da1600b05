import { AsyncLocalStorage } from 'node:async_hooks';
import { type Db } from 'mongodb';
import { type IndexSpec } from '../database/mongo.js';

/**
 * The claim a write is made under: an `Idempotency-Key`'s claim (`rest/http/idempotency.ts`),
 * carried by every event the request appends (the `claim` field of the event row). The append is
 * the commit point, so a claim whose answer was never recorded (its process died, or the
 * acknowledgement of the record was lost) can still tell whether its request stored anything, and
 * what: the events that carry it. The store knows no more of it than that.
 */
const claims = new AsyncLocalStorage<string>();

/** Runs `task` so that every event it appends carries `claim`. */
export function withWriteClaim<T>(claim: string, task: () => T): T {
  return claims.run(claim, task);
}

/**
 * The claim of the request the caller runs for, if any. Read when a command is made (not when it
 * is appended: a group commit appends other requests' commands in the context of the first).
 */
export function currentWriteClaim(): string | undefined {
  return claims.getStore();
}

/** Sparse: only a request with an `Idempotency-Key` tags its events (on FerretDB a missing value is kept apart anyway). */
export const writeClaimIndexes: IndexSpec[] = [{ collection: 'events', key: { claim: 1 }, name: 'claim', sparse: true }];

/** An event as a claim's reader needs it: which item, and what happened to it. */
export interface ClaimedEvent {
  stream: number;
  streamType?: string;
  seq: number;
  type: string;
  position?: number;
}

/** The events appended under `claim`, in the order of the log: the item a request made or changed is its first one's stream. */
export async function eventsOfClaim(db: Db, claim: string): Promise<ClaimedEvent[]> {
  const rows = await db
    .collection<ClaimedEvent & { claim?: string }>('events')
    .find({ claim }, { projection: { _id: 0, stream: 1, streamType: 1, seq: 1, type: 1, position: 1 } })
    .toArray();
  return rows.sort((a, b) => (a.position ?? 0) - (b.position ?? 0) || a.seq - b.seq);
}
