// Loaded before the service (`NODE_OPTIONS=--import`) on a node whose wall clock is off by
// CLUSTER_CLOCK_OFFSET_MS: `Date` (what the service's clock and every timestamp read) is shifted,
// as a machine whose clock is set wrong would show it; monotonic time (timers, performance.now)
// is not, as it is not on such a machine either.
const offset = Number(process.env.CLUSTER_CLOCK_OFFSET_MS ?? 0);
const RealDate = Date;

class SkewedDate extends RealDate {
  constructor(...args: ConstructorParameters<typeof Date> | []) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...(args as ConstructorParameters<typeof Date>));
  }

  static override now(): number {
    return RealDate.now() + offset;
  }
}

if (offset !== 0) globalThis.Date = SkewedDate as DateConstructor;
