import { type Db } from 'mongodb';
import { isDuplicateKey } from '../database/mongo.js';
import { siteChanges } from '../coordination/site-changes.js';

/**
 * Where the log's next appends go: positions handed out by one process (per database handle,
 * opened once at start-up). The unique position index alone decides who holds a position; the
 * clock only picks positions likely to be free, so that an append seldom loses a race for one.
 */
export interface PositionClock {
  /** `count` consecutive positions above `floor` (the stream's previous event): the first of them. */
  reserve(count: number, floor: number): Promise<number>;
  /**
   * `count` positions that replace a run refused at `position` (another writer, or a reader's
   * void, took it): the first of them. `losses`: how many times the append has lost so far.
   */
  replace(count: number, position: number, losses: number): Promise<number>;
}

/**
 * How long a process that saw another append (a position taken under it, or announced higher
 * than its own) takes the log to be shared: it then takes positions from the shared counter.
 */
export const SHARED_CLOCK_MS = 30_000;

/**
 * The shared counter's document in `counters`: `last` is the highest position handed out through
 * it. On MongoDB its `$inc` is atomic, so appends from several processes never pick the same
 * position. On FerretDB 1.24 it is not (two callers at once can get one value), and a counter
 * left behind the log (positions taken while one process was alone, a bulk seed) hands out
 * taken ones: either way the append loses its race, and `replace` finds the first free position
 * and raises the counter past it.
 */
const COUNTER_ID = 'position';
interface PositionCounter {
  _id: string;
  last: number;
}

interface ClockState {
  /** The highest position this process has handed out, once known. */
  last?: number;
  /** Until when another process is taken to be appending too (`performance.now()` time). */
  sharedUntil: number;
  /** Whether this process handed out positions alone since it last raised the counter past them. */
  counterBehind: boolean;
  starting?: Promise<number>;
}

const clocks = new WeakMap<Db, PositionClock>();

/**
 * The one clock of a database handle. `firstFreeAfter`: the first position after a taken one
 * (or 0) no row holds, by key (`first-free.ts`).
 *
 * A process alone hands out the positions after its last, with no round trip. Once the log is
 * shared, an append from every process would race for the same next position; each reservation
 * then takes its run from the shared counter (one `$inc`), which costs less than probing the
 * log's head by key before each append and still losing the race half the time.
 */
export function positionClock(db: Db, firstFreeAfter: (from: number) => Promise<number>): PositionClock {
  let clock = clocks.get(db);
  if (!clock) clocks.set(db, (clock = createClock(db, firstFreeAfter)));
  return clock;
}

/** The shared counter's two steps: raising it past positions taken, and taking a run from it. */
function positionCounter(db: Db, firstFreeAfter: (from: number) => Promise<number>) {
  const counters = db.collection<PositionCounter>('counters');

  /** Raises the counter to at least `last`: a counter behind the log hands out only taken positions. */
  async function raise(last: number): Promise<void> {
    try {
      await counters.insertOne({ _id: COUNTER_ID, last });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await counters.updateOne({ _id: COUNTER_ID }, { $max: { last } });
    }
  }

  /** `count` positions from the counter, above `known` (what this process handed out or learned): the first of them. */
  async function takeRun(count: number, known: number): Promise<number> {
    const counter = await counters.findOneAndUpdate({ _id: COUNTER_ID }, { $inc: { last: count } }, { returnDocument: 'after' });
    if (counter) return counter.last - count + 1;
    // Never raised (a database from before the counter): it starts at the log's head.
    const head = await firstFreeAfter(known);
    await raise(head + count - 1);
    return head;
  }

  return { raise, take: oneTakeAtATime(takeRun) };
}

interface WaitingTake {
  count: number;
  known: number;
  parts: { count: number; resolve: (first: number) => void; reject: (error: unknown) => void }[];
}

/**
 * Takes from the counter one at a time per process: those asked for while one is under way go
 * together in the next, one run shared out in the order they were asked. Concurrent appends of
 * one process then cost one round trip between them, and (on FerretDB, whose `$inc` is not
 * atomic) never get one value twice and lose a race to each other.
 */
function oneTakeAtATime(takeRun: (count: number, known: number) => Promise<number>): (count: number, known: number) => Promise<number> {
  let underWay = false;
  let waiting: WaitingTake | undefined;

  async function run(batch: WaitingTake): Promise<void> {
    underWay = true;
    try {
      let first = await takeRun(batch.count, batch.known);
      for (const part of batch.parts) {
        part.resolve(first);
        first += part.count;
      }
    } catch (error) {
      for (const part of batch.parts) part.reject(error);
    } finally {
      underWay = false;
      const next = waiting;
      waiting = undefined;
      if (next) void run(next);
    }
  }

  return (count, known) =>
    new Promise<number>((resolve, reject) => {
      const part = { count, resolve, reject };
      if (!underWay) {
        void run({ count, known, parts: [part] });
        return;
      }
      waiting ??= { count: 0, known: 0, parts: [] };
      waiting.count += count;
      waiting.known = Math.max(waiting.known, known);
      waiting.parts.push(part);
    });
}

/**
 * The log's head, looked up once per process, and the counter raised to it; a lookup the database
 * failed is tried again by the next append.
 */
async function startClock(state: ClockState, counter: ReturnType<typeof positionCounter>, firstFreeAfter: (from: number) => Promise<number>): Promise<void> {
  state.starting ??= (async () => {
    const head = await firstFreeAfter(0);
    await counter.raise(head - 1);
    return head;
  })().catch((error: unknown) => {
    state.starting = undefined;
    throw error;
  });
  const head = await state.starting;
  state.last = Math.max(state.last ?? 0, head - 1);
}

function createClock(db: Db, firstFreeAfter: (from: number) => Promise<number>): PositionClock {
  const counter = positionCounter(db, firstFreeAfter);
  const state: ClockState = { sharedUntil: 0, counterBehind: false };
  const shared = () => state.sharedUntil > performance.now();
  const share = () => {
    state.sharedUntil = performance.now() + SHARED_CLOCK_MS;
  };
  const handedOut = (last: number) => {
    state.last = Math.max(state.last ?? 0, last);
  };

  // Processes appending by turns learn of each other's positions through the site token.
  siteChanges(db).shareHighest('position', {
    highest: () => state.last,
    learn: (highest) => {
      if (state.last === undefined || highest <= state.last) return;
      state.last = highest;
      share();
    },
  });

  return {
    async reserve(count, floor) {
      if (state.last === undefined) await startClock(state, counter, firstFreeAfter);
      const fromCounter = shared();
      let first: number;
      if (!fromCounter) {
        first = state.last! + 1;
        state.counterBehind = true;
      } else {
        if (state.counterBehind) {
          // What this process took alone, and what it learned others took, goes under the counter's next run.
          await counter.raise(state.last!);
          state.counterBehind = false;
        }
        first = await counter.take(count, state.last!);
      }
      if (first <= floor) {
        // The counter is behind this stream's last event: raised past the run, so that its next
        // run is not taken too. What it handed out below is not voided: a counter behind the log
        // hands out positions others took (or, on FerretDB, hands them to another process too).
        if (fromCounter) await counter.raise(floor + count);
        first = floor + 1;
      }
      handedOut(first + count - 1);
      return first;
    },

    async replace(count, position, losses) {
      share();
      if (losses === 1 && !state.counterBehind) {
        // Most often two processes got one value from a counter whose `$inc` is not atomic: the
        // counter has moved on since.
        const first = await counter.take(count, state.last ?? 0);
        if (first > position) {
          handedOut(first + count - 1);
          return first;
        }
      }
      // Looked up by key: a counter behind the log would hand out taken positions one after
      // another. The counter is then raised past the run.
      const first = await firstFreeAfter(Math.max(position, state.last ?? 0));
      await counter.raise(first + count - 1);
      state.counterBehind = false;
      handedOut(first + count - 1);
      return first;
    },
  };
}
