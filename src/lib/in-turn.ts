/** Runs tasks given to it with at most `concurrency` under way at once; the others wait their turn, in order. */
export type InTurn = <T>(task: () => Promise<T>) => Promise<T>;

export function inTurn(concurrency: number): InTurn {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running < concurrency) running++;
    // A finished task hands its place to the next waiting one.
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
