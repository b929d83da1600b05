import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** A process the harness started as the leader of a process group of its own, as a machine's service would be. */
export interface GroupProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<number | null>;
  /** What it wrote to stderr, the last 8 KB. */
  stderr(): string;
  /** Sends `signal` to its whole group (nothing when it has exited). */
  signal(signal: NodeJS.Signals): void;
}

/** Every group this harness started and has not yet seen end: what `stopAll` ends. */
const running = new Set<GroupProcess>();

export function startGroup(name: string, command: string, args: string[], options: SpawnOptions = {}): GroupProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options, detached: true });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8192);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  const group: GroupProcess = {
    name,
    child,
    pid: child.pid!,
    exited,
    stderr: () => stderr,
    signal(signal) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // The group has ended.
      }
    },
  };
  running.add(group);
  void exited.then(() => running.delete(group));
  return group;
}

/** Sends `signal` to the group, then SIGKILL after `graceMs`, and waits for its leader to exit. */
export async function stopGroup(group: GroupProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<number | null> {
  group.signal(signal);
  const timer = setTimeout(() => group.signal('SIGKILL'), graceMs);
  const code = await group.exited;
  clearTimeout(timer);
  // Whatever the leader left behind in its group goes with it.
  group.signal('SIGKILL');
  return code;
}

/** Ends every group still running (the harness's exit, a failure included). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((group) => stopGroup(group, 'SIGKILL', 0)));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
