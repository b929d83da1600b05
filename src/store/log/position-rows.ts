import { Slices } from '../../lib/time-slices.js';

/** What a read by position keeps of an event row: its place, and its data (the bulk of it). */
interface PositionedRow {
  position?: number;
  /** Absent from an outline (`readPositions`' `outline`). */
  data?: string;
}

/**
 * The rows a read by position (`readPositions`) has found, at most about `maxBytes` of them: past
 * that, the highest one found is let go, and so is any row found later above the one before it
 * (`cap`). What is kept is then the prefix a page can answer, whatever its blocks held: a page of
 * long events holds a few of them, where it held every row of its blocks. The first row always
 * stays, so a read moves its reader on. Reads pause between rows (`slices`): each row was decoded
 * as it came, a batch of long ones taking a slice of its own.
 */
export class PositionRows<R extends PositionedRow> {
  readonly found = new Map<number, R>();
  readonly slices = new Slices();
  private bytes = 0;

  constructor(
    /** The highest position a kept row may hold: the read's end, lowered as rows are let go. */
    public cap: number,
    private readonly maxBytes: number,
  ) {}

  /** Whether the rows kept are bounded by their bytes. */
  get bounded(): boolean {
    return Number.isFinite(this.maxBytes);
  }

  has(position: number): boolean {
    return this.found.has(position);
  }

  /** Keeps `row` unless it is above the cap, letting the highest rows go while more than `maxBytes` are kept. */
  add(row: R): void {
    const position = row.position!;
    if (position > this.cap || this.found.has(position)) return;
    this.found.set(position, row);
    this.bytes += row.data?.length ?? 0;
    while (this.bytes > this.maxBytes && this.found.size > 1) {
      let highest = 0;
      for (const kept of this.found.keys()) highest = Math.max(highest, kept);
      this.bytes -= this.found.get(highest)!.data?.length ?? 0;
      this.found.delete(highest);
      this.cap = highest - 1;
    }
  }

  /** The highest position kept (`floor` when none is). */
  highest(floor: number): number {
    let highest = floor;
    for (const position of this.found.keys()) highest = Math.max(highest, position);
    return highest;
  }
}
