import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** One measurement of a process's event loop, as `CMS_EVENT_LOOP_REPORT` receives it (one JSON line). */
export interface EventLoopReport {
  pid: number;
  /** `primary` or `worker`: which process of the service measured it. */
  role: string;
  /** `signal` (SIGUSR2: the measurement so far, then a new one begins) or `exit`. */
  reason: 'signal' | 'exit';
  /** The longest the event loop was blocked (beyond the sampling resolution), in milliseconds. */
  max_ms: number;
  p99_ms: number;
  mean_ms: number;
  samples: number;
}

/** How often the event loop is sampled: a block shorter than this may go unseen. */
const RESOLUTION_MS = 5;

/**
 * Measures how long this process's event loop is kept from turning (`monitorEventLoopDelay`)
 * and appends what it saw to `file`: on SIGUSR2, which then starts a new measurement, and at
 * exit. For `npm run bench:event-loop`; a service without `CMS_EVENT_LOOP_REPORT` runs none of it.
 * `serving()` starts the measurement again once start-up (indexes, themes, healing) is done.
 */
export function reportEventLoopDelay(file: string, role: string): { serving: () => void } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const ms = (ns: number) => Math.round(ns / 10_000) / 100;
  const write = (reason: EventLoopReport['reason']) => {
    const samples = histogram.count;
    const report: EventLoopReport = {
      pid: process.pid,
      role,
      reason,
      max_ms: samples ? ms(histogram.max) : 0,
      p99_ms: samples ? ms(histogram.percentile(99)) : 0,
      mean_ms: samples ? ms(histogram.mean) : 0,
      samples,
    };
    // One short append per line: lines of several processes never interleave.
    fs.appendFileSync(file, `${JSON.stringify(report)}\n`);
    histogram.reset();
  };
  process.on('SIGUSR2', () => write('signal'));
  process.on('exit', () => write('exit'));
  return { serving: () => histogram.reset() };
}
