import { Slices } from './time-slices.js';

/**
 * What one answer may still take: characters of what it carries, and milliseconds of the work
 * that builds them. An answer made of parts (the changes of a feed page) adds parts while the
 * budget lasts, and says where the rest starts; its first part always goes in, so every answer
 * moves its reader on. Work runs in slices of SLICE_MS, with other requests answered between.
 */
export class AnswerBudget {
  private chars = 0;
  private workMs = 0;
  /** The turns of the answer's work: what it reads and folds pauses here too, uncounted. */
  readonly slices = new Slices();

  constructor(
    readonly maxChars: number,
    readonly maxWorkMs: number,
  ) {}

  /** Whether the answer holds all it may: no part is added after this. */
  get spent(): boolean {
    return this.chars >= this.maxChars || this.workMs >= this.maxWorkMs;
  }

  /** Counts characters the answer carries. */
  add(chars: number): void {
    this.chars += chars;
  }

  /** Runs `work` and counts its time, first letting other requests in when a slice is used up. */
  async work<T>(work: () => T): Promise<T> {
    await this.slices.pause();
    const started = performance.now();
    try {
      return work();
    } finally {
      this.workMs += performance.now() - started;
    }
  }
}
