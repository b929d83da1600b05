import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * How long work over a client-sized list (the items of a page, the embeds of a response) runs
 * before it lets the process answer something else: a page of 100 long posts renders for longer
 * than any request should keep the others waiting.
 */
export const SLICE_MS = 10;

/**
 * The turns of one piece of work: `pause()` between its steps lets other work run once a slice of
 * SLICE_MS has been used since the last turn, and costs nothing before.
 */
export class Slices {
  private sliceEnds = performance.now() + SLICE_MS;

  async pause(): Promise<void> {
    if (performance.now() <= this.sliceEnds) return;
    await nextTurn();
    this.sliceEnds = performance.now() + SLICE_MS;
  }
}

/** `items.map(map)`, letting other work run whenever a slice of SLICE_MS has been used. */
export async function mapInSlices<T, U>(items: readonly T[], map: (item: T, index: number) => U): Promise<U[]> {
  const out: U[] = [];
  const slices = new Slices();
  for (const [index, item] of items.entries()) {
    await slices.pause();
    out.push(map(item, index));
  }
  return out;
}
