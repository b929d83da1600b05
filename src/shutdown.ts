/**
 * A process's stop, as every part of it sees it: requested once, by whichever comes first, and
 * never undone. Signalling a service's process group (a shell's job, a service manager's unit)
 * reaches the primary, the workers, the watchdogs and the database servers at about the same
 * time, in no set order; whatever part learns of the stop first requests it, and a supervisor
 * reads it before it restarts anything, so a stopping service never restarts what is being
 * stopped.
 */
export interface Shutdown {
  /** Aborted once a stop is requested; its `reason` says by what. */
  readonly signal: AbortSignal;
  /** Requests the stop (a second request changes nothing). */
  request(reason: string): void;
}

export function createShutdown(): Shutdown {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    request: (reason) => {
      if (!controller.signal.aborted) controller.abort(reason);
    },
  };
}

/** The signals that ask a service process to stop (a process manager's and a terminal's). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * A shutdown requested by the first SIGINT or SIGTERM this process receives. Installed first
 * thing, so that a signal during start-up is a stop too, never the default sudden death; later
 * signals are ignored while the stop runs.
 */
export function shutdownOnStopSignals(): Shutdown {
  const shutdown = createShutdown();
  for (const signal of STOP_SIGNALS) process.on(signal, () => shutdown.request(signal));
  return shutdown;
}

/** Runs `stop` once the shutdown is requested (at once if it already is). */
export function whenRequested(shutdown: Shutdown, stop: (reason: string) => void): void {
  if (shutdown.signal.aborted) return stop(String(shutdown.signal.reason));
  shutdown.signal.addEventListener('abort', () => stop(String(shutdown.signal.reason)), { once: true });
}
