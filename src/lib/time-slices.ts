import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * How long work over a client-sized list (the items of a page, the embeds of a response) runs
 * before it lets the process answer something else: a page of 100 long posts renders for longer
 * than any request should keep the others waiting.
 */
export const SLICE_MS = 10;

/** `items.map(map)`, letting other work run whenever a slice of SLICE_MS has been used. */
export async function mapInSlices<T, U>(items: readonly T[], map: (item: T, index: number) => U): Promise<U[]> {
  const out: U[] = [];
  let sliceEnds = performance.now() + SLICE_MS;
  for (const [index, item] of items.entries()) {
    if (performance.now() > sliceEnds) {
      await nextTurn();
      sliceEnds = performance.now() + SLICE_MS;
    }
    out.push(map(item, index));
  }
  return out;
}
