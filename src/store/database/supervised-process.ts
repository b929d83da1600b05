import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Logger } from '../../logger.js';
import { type Shutdown } from '../../shutdown.js';

/**
 * The watchdog a database server runs under: it stops the server when its stdin closes. The
 * service holds the other end of that pipe and never writes to it; the kernel closes it when the
 * service dies however it dies (`kill -9` included), so the server is never orphaned. It prints
 * the server's pid (a service gone before it reads it stops the server too), and exits when the
 * server does: with 0 when the server was stopped on purpose (by this watchdog, asked by the
 * service or by a signal; or by anyone with a signal the server stops cleanly on, after which it
 * exits 0 itself), otherwise with the server's status, as a crash.
 */
const WATCHDOG = `
const { spawn } = require('node:child_process');
const [stopSignal, command, ...args] = process.argv.slice(1);
const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  child.kill(stopSignal);
  setTimeout(() => child.kill('SIGKILL'), 5000);
};
const stopped = (code, signal) => stopping || code === 0 || signal === 'SIGTERM' || signal === 'SIGINT';
child.on('error', () => process.exit(127));
child.on('exit', (code, signal) => process.exit(stopped(code, signal) ? 0 : code || 128));
process.stdout.on('error', stop);
process.stdout.write(child.pid + '\\n');
process.stdin.on('end', stop).on('close', stop).on('error', stop).resume();
process.on('SIGTERM', stop).on('SIGINT', stop);
`;

/** An operating-system account to run a server as (PostgreSQL refuses to run as root). */
export interface Account {
  uid: number;
  gid: number;
}

export interface ProcessSpec {
  /** Names the server in the log: `<name> started`, `<name> exited; restarting it`. */
  name: string;
  command: string;
  args: string[];
  account?: Account;
  /** The signal that stops the server cleanly (PostgreSQL's fast shutdown is SIGINT). */
  stopSignal?: NodeJS.Signals;
  /** Resolves once the server answers; rejects when it cannot (`child` is its watchdog). */
  ready(child: ChildProcess): Promise<void>;
  /** Told the pid of each server started, before it is waited for. */
  started?(pid: number): Promise<void>;
  /** Said with `<name> started` in the log (a port, a folder). */
  logFields?: Record<string, unknown>;
}

export interface SupervisedProcess {
  /** The server's own pid (a restart changes it). */
  readonly pid: number;
  /** Stops the server for good, and waits for it. */
  stop(): Promise<void>;
}

interface Running {
  watchdog: ChildProcess;
  pid: number;
  exited: Promise<void>;
}

/**
 * Starts a server under its watchdog and supervises it: a server that crashes is started again
 * (with growing delays); one stopped on purpose (the watchdog exits 0) is not, and requests the
 * service's `shutdown`, since the service cannot serve without it. Nothing is restarted once the
 * shutdown is requested, whichever of the service's processes learnt of it first; `stop()` waits
 * for a restart under way, so that nothing it started outlives the service.
 */
export async function superviseProcess(spec: ProcessSpec, logger: Logger, shutdown?: Shutdown): Promise<SupervisedProcess> {
  const stopped = new AbortController();
  const halted = shutdown ? AbortSignal.any([stopped.signal, shutdown.signal]) : stopped.signal;
  const launches: LaunchState = { stderr: '' };
  let restarting: Promise<void> | undefined;

  const launch = () => launchServer(spec, logger, launches);

  const restart = async () => {
    for (let delay = 250; !halted.aborted; delay = Math.min(delay * 2, 5000)) {
      try {
        current = await launch();
        // Stopped meanwhile: `stop()` stops `current` once this returns.
        if (!halted.aborted) supervise(current);
        return;
      } catch (error) {
        if (halted.aborted) return;
        logger.error({ err: error, retryInMs: delay }, `${spec.name} did not restart`);
        await sleep(delay, undefined, { signal: halted }).catch(() => {});
      }
    }
  };

  const supervise = (running: Running) => {
    void running.exited.then(() => {
      if (halted.aborted) return;
      const code = running.watchdog.exitCode;
      if (code === 0) {
        logger.warn({ pid: running.pid }, `${spec.name} was stopped; not restarting it`);
        shutdown?.request(`${spec.name} stopped`);
        return;
      }
      logger.warn({ pid: running.pid, code, stderr: launches.stderr.slice(-500) }, `${spec.name} exited; restarting it`);
      restarting = restart();
    });
  };

  let current = await launch();
  supervise(current);
  // A service that exits without stopping it (an uncaught error) takes its server along.
  const stopOnExit = () => {
    current.watchdog.kill('SIGTERM');
    launches.launching?.kill('SIGTERM');
  };
  process.once('exit', stopOnExit);
  return {
    get pid() {
      return current.pid;
    },
    stop: async () => {
      stopped.abort();
      process.off('exit', stopOnExit);
      // A server being started again is stopped as it starts (its readiness wait then fails).
      launches.launching?.kill('SIGTERM');
      await restarting;
      await stopWatchdog(current);
    },
  };
}

/** What the launches of one server share: the end of its watchdog's stderr, and the watchdog being started. */
interface LaunchState {
  stderr: string;
  launching?: ChildProcess;
}

/** Starts the server under a new watchdog and waits until it answers; stops it and throws when it does not. */
async function launchServer(spec: ProcessSpec, logger: Logger, state: LaunchState): Promise<Running> {
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, spec.stopSignal ?? 'SIGTERM', spec.command, ...spec.args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // Another account may not be able to enter the service's folder; the server is given absolute paths.
    ...(spec.account ? { ...spec.account, cwd: '/' } : {}),
  });
  state.launching = watchdog;
  watchdog.stderr!.on('data', (chunk: Buffer) => {
    state.stderr = (state.stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()));
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      watchdog.stdout!.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10)));
      void exited.then(() => reject(new Error(`exited with code ${watchdog.exitCode}: ${state.stderr.trim().split('\n').at(-1) ?? ''}`)));
    });
    await spec.started?.(pid);
    try {
      await spec.ready(watchdog);
    } catch (error) {
      await stopWatchdog({ watchdog, pid, exited });
      throw new Error(`${spec.name} did not start: ${(error as Error).message}\n${state.stderr}`);
    }
    logger.debug({ ...spec.logFields, pid, watchdog: watchdog.pid }, `${spec.name} started`);
    return { watchdog, pid, exited };
  } finally {
    state.launching = undefined;
  }
}

/** Asks the watchdog to stop the server and waits for both; kills them when that takes too long. */
async function stopWatchdog(running: Running): Promise<void> {
  const { watchdog, pid } = running;
  if (watchdog.exitCode === null && watchdog.signalCode === null) {
    watchdog.kill('SIGTERM');
    const timer = setTimeout(() => {
      watchdog.kill('SIGKILL');
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }, 7000);
    await running.exited;
    clearTimeout(timer);
  }
}
