import { spawn, type ChildProcess } from 'node:child_process';
import { type Logger } from '../logger.js';

/**
 * The watchdog a database server runs under: it stops the server when its stdin closes. The
 * service holds the other end of that pipe and never writes to it; the kernel closes it when the
 * service dies however it dies (`kill -9` included), so the server is never orphaned. It prints
 * the server's pid, and exits when the server does, with its status.
 */
const WATCHDOG = `
const { spawn } = require('node:child_process');
const [stopSignal, command, ...args] = process.argv.slice(1);
const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
child.on('error', () => process.exit(127));
child.on('exit', (code, signal) => process.exit(code ?? 128));
process.stdout.write(child.pid + '\\n');
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  child.kill(stopSignal);
  setTimeout(() => child.kill('SIGKILL'), 5000);
};
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
 * Starts a server under its watchdog and supervises it: started again (with growing delays) when
 * it dies, stopped when the service stops or dies.
 */
export async function superviseProcess(spec: ProcessSpec, logger: Logger): Promise<SupervisedProcess> {
  let stopping = false;
  let stderr = '';

  const launch = async (): Promise<Running> => {
    const watchdog = spawn(process.execPath, ['-e', WATCHDOG, spec.stopSignal ?? 'SIGTERM', spec.command, ...spec.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // Another account may not be able to enter the service's folder; the server is given absolute paths.
      ...(spec.account ? { ...spec.account, cwd: '/' } : {}),
    });
    watchdog.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()));
    const pid = await new Promise<number>((resolve, reject) => {
      watchdog.stdout!.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10)));
      void exited.then(() => reject(new Error(`exited with code ${watchdog.exitCode}: ${stderr.trim().split('\n').at(-1) ?? ''}`)));
    });
    await spec.started?.(pid);
    try {
      await spec.ready(watchdog);
    } catch (error) {
      await stopWatchdog({ watchdog, pid, exited });
      throw new Error(`${spec.name} did not start: ${(error as Error).message}\n${stderr}`);
    }
    logger.debug({ ...spec.logFields, pid, watchdog: watchdog.pid }, `${spec.name} started`);
    return { watchdog, pid, exited };
  };

  const supervise = (running: Running) => {
    void running.exited.then(async () => {
      if (stopping) return;
      logger.warn({ pid: running.pid, code: running.watchdog.exitCode, stderr: stderr.slice(-500) }, `${spec.name} exited; restarting it`);
      for (let delay = 250; !stopping; delay = Math.min(delay * 2, 5000)) {
        try {
          current = await launch();
          if (stopping) await stopWatchdog(current);
          else supervise(current);
          return;
        } catch (error) {
          logger.error({ err: error, retryInMs: delay }, `${spec.name} did not restart`);
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    });
  };

  let current = await launch();
  supervise(current);
  // A service that exits without stopping it (an uncaught error) takes its server along.
  const stopOnExit = () => current.watchdog.kill('SIGTERM');
  process.once('exit', stopOnExit);
  return {
    get pid() {
      return current.pid;
    },
    stop: async () => {
      stopping = true;
      process.off('exit', stopOnExit);
      await stopWatchdog(current);
    },
  };
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
