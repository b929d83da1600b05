import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { mapInSlices, SLICE_MS } from './time-slices.js';

describe('mapInSlices', () => {
  it('maps in order, and lets other work run once a slice is used up', async () => {
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    let turns = 0;
    let waiting = true;
    const other = (async () => {
      while (waiting) {
        await nextTurn();
        turns++;
      }
    })();
    const mapped = await mapInSlices(Array.from({ length: 20 }, (_, i) => i), (item) => {
      busy(SLICE_MS / 2);
      return item * 2;
    });
    waiting = false;
    await other;
    expect(mapped).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    // 20 items of half a slice each: the other work got several turns in between.
    expect(turns).toBeGreaterThanOrEqual(5);
  });
});
