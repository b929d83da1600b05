/**
 * The first number after `from` (taken, or 0) that `taken` says is free, found by key alone:
 * numbers are taken from the bottom up, so doubling steps find a free one past the highest, and
 * halving steps then the first. A range query for the highest would read every row on the
 * embedded database. Used for log positions, ids and lease terms.
 */
export async function firstFreeAfter(from: number, taken: (n: number) => Promise<boolean>): Promise<number> {
  let below = from;
  let step = 1;
  while (await taken(from + step)) {
    below = from + step;
    step *= 2;
  }
  let above = from + step;
  while (above - below > 1) {
    const middle = Math.floor((below + above) / 2);
    if (await taken(middle)) below = middle;
    else above = middle;
  }
  return above;
}
