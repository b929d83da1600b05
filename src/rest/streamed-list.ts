import { jsonPieces } from '../lib/json-text.js';

/**
 * A collection sent as its items are made: the layer passes each item through context, links,
 * `_embed` and `_fields` as it comes, and the adapter writes the JSON array an item at a time, as
 * fast as the client reads it. A list of long items that WordPress answers whole (every revision
 * of a post, content included, without `per_page`) built whole held every item at once, twice
 * over once serialized.
 */
export class StreamedList implements AsyncIterable<unknown> {
  constructor(private readonly items: AsyncIterable<unknown>) {}

  /** The same list, each item through `map` as it comes. */
  map(map: (item: unknown) => unknown): StreamedList {
    const items = this.items;
    return new StreamedList(
      (async function* () {
        for await (const item of items) yield await map(item);
      })(),
    );
  }

  /** Every item at once: for a caller inside the service (an embed), which takes a bounded page. */
  async toArray(): Promise<unknown[]> {
    const all: unknown[] = [];
    for await (const item of this.items) all.push(item);
    return all;
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return this.items[Symbol.asyncIterator]();
  }
}

/** Whether `body` holds a streamed list: itself, or a value of its own (an `_envelope`). */
export function holdsStreamedList(body: unknown): boolean {
  if (body instanceof StreamedList) return true;
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.values(body).some((value) => value instanceof StreamedList);
}

/**
 * `body` as JSON text, in pieces: a streamed list (itself, or a value of its own) an item at a
 * time, and long strings a slice at a time (`jsonPieces` of lib/json-text).
 */
export async function* answerPieces(body: unknown): AsyncGenerator<string> {
  if (body instanceof StreamedList) {
    yield '[';
    let first = true;
    for await (const item of body) {
      if (!first) yield ',';
      yield* jsonPieces(item);
      first = false;
    }
    yield ']';
    return;
  }
  if (!holdsStreamedList(body)) {
    yield* jsonPieces(body);
    return;
  }
  let first = true;
  yield '{';
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined) continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* answerPieces(value);
  }
  yield '}';
}
