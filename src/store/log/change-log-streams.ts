import { type Collection } from 'mongodb';
import { Slices } from '../../lib/time-slices.js';
import { EVENT_BLOCK, EVENT_READ, EVENT_READ_BATCH, eventBlock, type EventRow, type StoredEvent, toEvent } from './change-log-rows.js';

/** Runs shorter than this are read event by event. */
const BLOCK_READ_FROM = 8;
/** Events read by key at once when the end of a stream is not known. */
const KEYED_BATCH = 4;
/** Reads by key sent together. */
const KEYED_READS_AT_ONCE = 32;

export interface ReadOptions {
  afterSeq?: number;
  limit?: number;
}

/**
 * The events `first..last` of a stream (a stream's seqs run 1..n without gaps, so a page of them
 * is known before it is read): a long run block by block, a short one, and any event stored
 * before events kept their block, each by its key `(stream, seq)`. Either way the embedded
 * database decodes only the rows of those blocks or events.
 */
async function readSeqs<D = Record<string, unknown>>(events: Collection<EventRow>, stream: number, first: number, last: number): Promise<StoredEvent<D>[]> {
  if (last < first) return [];
  const bySeq = new Map<number, EventRow>();
  if (last - first + 1 >= BLOCK_READ_FROM) {
    const blocks = Array.from({ length: Math.floor(last / EVENT_BLOCK) - Math.floor(first / EVENT_BLOCK) + 1 }, (_, offset) => eventBlock(stream, first + offset * EVENT_BLOCK));
    for (const rows of await Promise.all(blocks.map((block) => events.find({ block }).toArray()))) {
      for (const row of rows) if (row.seq >= first && row.seq <= last) bySeq.set(row.seq, row);
    }
  }
  const missing = Array.from({ length: last - first + 1 }, (_, offset) => first + offset).filter((seq) => !bySeq.has(seq));
  for (const row of await Promise.all(missing.map((seq) => events.findOne({ stream, seq })))) if (row) bySeq.set(row.seq, row);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq).map((row) => toEvent<D>(row));
}

/** The change log read by stream: one item's events in seq order. */
export function streamReads(events: Collection<EventRow>) {
  return {
    async readStream<D = Record<string, unknown>>(stream: number, options: ReadOptions = {}): Promise<StoredEvent<D>[]> {
      const rows = await events
        .find({ stream, seq: { $gt: options.afterSeq ?? 0 } })
        .sort({ stream: 1, seq: 1 })
        .limit(options.limit ?? 0)
        .toArray();
      return rows.map((row) => toEvent<D>(row));
    },

    readSeqs: <D = Record<string, unknown>>(stream: number, first: number, last: number) => readSeqs<D>(events, stream, first, last),

    /**
     * The events `first..last` of a stream in seq order, one at a time, as a fold over a long log
     * reads them: block by block, each row decoded as the cursor hands it over (a block's rows come
     * in any order; one out of turn waits for its turn), with a pause between rows (`slices`), and
     * each row a block did not hold (stored before blocks were kept) by its key. It ends early where
     * the stream does. `readSeqs` holds the whole run at once.
     */
    async *foldSeqs<D = Record<string, unknown>>(stream: number, first: number, last: number, slices = new Slices()): AsyncGenerator<StoredEvent<D>> {
      let next = first;
      for (let block = Math.floor(first / EVENT_BLOCK); next <= last; block++) {
        const blockEnd = Math.min(last, (block + 1) * EVENT_BLOCK - 1);
        const early = new Map<number, EventRow>();
        for await (const row of events.find({ block: eventBlock(stream, next) }, EVENT_READ).batchSize(EVENT_READ_BATCH)) {
          if (row.seq < next || row.seq > blockEnd) continue;
          early.set(row.seq, row);
          for (let turn = early.get(next); turn; turn = early.get(next)) {
            early.delete(next++);
            yield toEvent<D>(turn);
            await slices.pause();
          }
        }
        for (; next <= blockEnd; next++) {
          const row = early.get(next) ?? (await events.findOne({ stream, seq: next }, EVENT_READ));
          if (!row) return;
          yield toEvent<D>(row);
          await slices.pause();
        }
      }
    },

    /** Whether the stream holds an event at `seq`, read by key without its data. */
    async holds(stream: number, seq: number): Promise<boolean> {
      return (await events.findOne({ stream, seq }, { projection: { _id: 1 } })) !== null;
    },

    /**
     * Every event after `afterSeq`, read by key a few at a time until a seq is missing (a stream's
     * seqs have no gaps): what catching up and healing read, which is a few events at most, at a
     * cost that does not grow with the stream.
     */
    async readAfter<D = Record<string, unknown>>(stream: number, afterSeq: number): Promise<StoredEvent<D>[]> {
      const found: StoredEvent<D>[] = [];
      for (let first = afterSeq + 1; ; first += KEYED_BATCH) {
        const batch = await readSeqs<D>(events, stream, first, first + KEYED_BATCH - 1);
        found.push(...batch);
        if (batch.length < KEYED_BATCH) return found;
      }
    },

    async countStream(stream: number): Promise<number> {
      return events.countDocuments({ stream });
    },

    /** The first event of each of `streams` (the `created` event, which names a legacy stream's type). */
    async firstEvents<D = Record<string, unknown>>(streams: number[]): Promise<Map<number, StoredEvent<D>>> {
      // Each by its key, a few at a time: the embedded database matches an `$or` of keys by decoding every row.
      const first = new Map<number, StoredEvent<D>>();
      for (let start = 0; start < streams.length; start += KEYED_READS_AT_ONCE) {
        const rows = await Promise.all(streams.slice(start, start + KEYED_READS_AT_ONCE).map((stream) => events.findOne({ stream, seq: 1 })));
        for (const row of rows) if (row) first.set(row.stream, toEvent<D>(row));
      }
      return first;
    },
  };
}
