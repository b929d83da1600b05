import { setTimeout as delay } from 'node:timers/promises';
import { type Collection, type FindOptions } from 'mongodb';
import { EVENT_READ, EVENT_READ_BATCH, type EventRow, OUTLINE_READ, POSITION_BLOCK, type StoredEvent, toEvent, voidRow } from './change-log-rows.js';
import { isDuplicateKey } from '../database/mongo.js';
import { PositionRows } from './position-rows.js';

/** How long a reader by position waits for a missing one before voiding it: an append in flight takes a few database round trips. */
export const GAP_WAIT_MS = 5000;
const GAP_POLL_MS = 20;
/** Positions a read by position asks for at first, and at most at once, each by key (past the first run, blocks are read). */
const FIRST_POSITION_RUN = 8;
const MAX_POSITION_RUN = 64;
const positionsFrom = (first: number, last: number): number[] => Array.from({ length: Math.max(0, last - first + 1) }, (_, offset) => first + offset);

/** The row at `position` once it is there, or, after `waitMs`, the void this reader stored (or whatever won the race to it). */
async function waitOrVoid(events: Collection<EventRow>, position: number, waitMs: number): Promise<EventRow> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const row = await events.findOne({ position });
    if (row) return row;
    if (performance.now() >= deadline) break;
    await delay(GAP_POLL_MS);
  }
  try {
    await events.insertOne(voidRow(position, new Date()));
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  return (await events.findOne({ position }))!;
}

/** The rows at `positions` up to the cap, by key, a run at a time, into `rows`. */
async function readPositionKeys(events: Collection<EventRow>, positions: number[], rows: PositionRows<EventRow>, read: FindOptions): Promise<void> {
  for (let start = 0; start < positions.length; start += MAX_POSITION_RUN) {
    const run = positions.slice(start, start + MAX_POSITION_RUN).filter((position) => position <= rows.cap);
    if (rows.bounded && read !== OUTLINE_READ) {
      // Read whole at once, a run of long events (eight 15 MB posts) would all be decoded before
      // the bound could let one go: which are there is asked at once, each one's data in turn.
      const present = await Promise.all(run.map((position) => events.findOne({ position }, OUTLINE_READ)));
      for (const outline of present) {
        if (!outline || outline.position! > rows.cap) continue;
        const row = await events.findOne({ position: outline.position }, read);
        if (row) rows.add(row);
        await rows.slices.pause();
      }
      continue;
    }
    const found = await Promise.all(run.map((position) => events.findOne({ position }, read)));
    for (const row of found) {
      if (row) rows.add(row);
      await rows.slices.pause();
    }
  }
}

/**
 * The rows at positions `start..end` the blocks of those positions hold, into `rows`, a block at
 * a time until one starts past the cap; the highest position kept (0: none). Each row is decoded
 * as the cursor hands it over, with a pause between rows, where `toArray` decoded a block of
 * long events (64 versions of a 340 KB post: 21 MB) in one go.
 */
async function readPositionBlocks(events: Collection<EventRow>, start: number, end: number, rows: PositionRows<EventRow>, read: FindOptions): Promise<number> {
  for (const positionBlock of positionsFrom(Math.floor(start / POSITION_BLOCK), Math.floor(end / POSITION_BLOCK))) {
    if (positionBlock * POSITION_BLOCK > rows.cap) break;
    for await (const row of events.find({ positionBlock }, read).batchSize(EVENT_READ_BATCH)) {
      if (row.position! >= start && row.position! <= end) rows.add(row);
      await rows.slices.pause();
    }
  }
  const highest = rows.highest(0);
  return highest >= start ? highest : 0;
}

/** Positions `start..end` by key, in doubling runs, until a run comes back with one missing. */
async function readPositionRuns(events: Collection<EventRow>, start: number, end: number, rows: PositionRows<EventRow>, read: FindOptions): Promise<void> {
  for (let run = FIRST_POSITION_RUN, next = start; next <= Math.min(end, rows.cap); run *= 2) {
    const positions = positionsFrom(next, Math.min(end, rows.cap, next + Math.min(run, MAX_POSITION_RUN) - 1));
    await readPositionKeys(events, positions, rows, read);
    if (positions.some((position) => position <= rows.cap && !rows.has(position))) return;
    next += positions.length;
  }
}

/** The change log read by position: the whole log's events in the order of its one clock. */
export function positionReads(events: Collection<EventRow>) {
  return {
    /** When the row at `position` was stored (an event, or a void), by key; null while none is there. */
    async timeAt(position: number): Promise<Date | null> {
      return (await events.findOne({ position }, { projection: { at: 1 } }))?.at ?? null;
    },

    /**
     * The events at positions `after + 1` onwards, at most `limit` positions, as a gap-free
     * prefix: `through` is the last position it covers (voids included), where the next read
     * starts. A missing position with a later one present may belong to an append still in
     * flight: the reader waits for it up to `gapWaitMs`, then abandons it by storing a void
     * there. The unique position index lets either the event or the void in, never both; an
     * append refused by the void takes a later position. So no position a reader has gone past
     * is ever free, and a reader that has seen position N never later finds an event below N.
     * The first few positions are read by key, the rest of the page by block (`POSITION_BLOCK`;
     * the embedded database serves only equality from an index), and by key again those stored
     * before blocks were kept. A gap that reaches the end of what was read is taken for the end of
     * the log until a later read. `maxBytes`: about how much event data the read holds (one event
     * at least); past it the prefix ends sooner (`PositionRows`), and `through` says where.
     * `outline`: the events without their data (`data` is `{}`), for a reader that needs only who
     * changed which item when, and how.
     *
     * `sideStreams`: the events of side streams (below 0: an item's lock events) come too; every
     * other reader leaves them out, as it leaves voids out.
     *
     * `waitForGaps: false`: a reader that must not be held up (a list) neither waits for a missing
     * position nor voids it: `through` ends before the first, and `events` holds every event read,
     * those past it too; `highest` is the highest position read.
     */
    async readPositions<D = Record<string, unknown>>(
      after: number,
      limit: number,
      options: { gapWaitMs?: number; maxBytes?: number; outline?: boolean; waitForGaps?: boolean; sideStreams?: boolean } = {},
    ): Promise<{ events: StoredEvent<D>[]; through: number; highest: number }> {
      const gapWaitMs = options.gapWaitMs ?? GAP_WAIT_MS;
      const end = after + limit;
      const rows = new PositionRows<EventRow>(end, options.maxBytes ?? Number.POSITIVE_INFINITY);
      const read: FindOptions = options.outline ? OUTLINE_READ : EVENT_READ;
      // A reader at the head (a waiting feed, woken by every change) asks for a few positions by
      // key; only once they are all there is the rest of the page read, a block at a time.
      const firstRunEnd = Math.min(end, after + FIRST_POSITION_RUN);
      await readPositionKeys(events, positionsFrom(after + 1, firstRunEnd), rows, read);
      // One that does not wait reads on past a missing position too, once anything followed it.
      const readOn = rows.found.size === firstRunEnd - after || (options.waitForGaps === false && rows.found.size > 0);
      if (readOn && firstRunEnd < rows.cap) {
        const start = firstRunEnd + 1;
        const highest = await readPositionBlocks(events, start, end, rows, read);
        // Below the highest found, the rows stored before blocks were kept, and any append in
        // flight; above it, rows without a block (stored before, or by a process that kept none).
        await readPositionKeys(events, positionsFrom(start, highest).filter((position) => !rows.has(position)), rows, read);
        await readPositionRuns(events, Math.max(start, highest + 1), end, rows, read);
      }
      const last = rows.highest(after);
      const found: StoredEvent<D>[] = [];
      let through = last;
      for (let position = after + 1; position <= last; position++) {
        let row = rows.found.get(position);
        if (!row && options.waitForGaps === false) {
          through = Math.min(through, position - 1);
          continue;
        }
        row ??= await waitOrVoid(events, position, gapWaitMs);
        if (row.stream > 0 || (options.sideStreams && row.stream < 0)) found.push(toEvent<D>(row));
        await rows.slices.pause();
      }
      return { events: found, through, highest: last };
    },
  };
}
