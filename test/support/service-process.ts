import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const MAIN = path.resolve('dist/src/main.js');

export interface ServiceProcess {
  child: ChildProcess;
  stderr: () => string;
  /** Everything written to stdout so far, as it was written. */
  stdout: () => string;
  /** Resolves with the first JSON log line that satisfies `match`. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  /** Every JSON log line written so far. */
  lines(): readonly Record<string, unknown>[];
}

/**
 * Runs the built service (`npm start` without the build step) as its own process; `detached`
 * makes it the leader of a process group of its own, as a shell's job or a service manager's unit.
 * `wrapper` is a command line that the service's own is appended to, and that executes it.
 */
export function runService(env: Record<string, string>, options: { detached?: boolean; wrapper?: readonly string[] } = {}): ServiceProcess {
  // A wrapper (`unshare ...`) ends by executing the command it is given, in its own process.
  const [command, ...args] = [...(options.wrapper ?? []), process.execPath, MAIN];
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let stderr = '';
  let stdout = '';
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part));
      } catch {
        continue;
      }
    }
    waiters.forEach((wake) => wake());
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    lines: () => lines,
    waitForLog: (match, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching log line; stderr: ${stderr}`)), timeoutMs);
        const check = () => {
          const found = lines.find(match);
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        };
        waiters.push(check);
        exited.then(() => setTimeout(() => reject(new Error(`service exited; stderr: ${stderr}`)), 100));
        check();
      }),
  };
}

/** The environment a newcomer's shell would have, minus anything that picks the database. */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'GOPATH', 'GOCACHE', 'GOMODCACHE', 'GOPROXY', 'XDG_CACHE_HOME']) {
    if (process.env[name]) env[name] = process.env[name]!;
  }
  return { ...env, HOST: '127.0.0.1', PORT: '0', ...extra };
}

/** A process as /proc shows it (Linux). */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** One letter: R, S, D, Z (exited, not yet reaped)... */
  state: string;
  command: string;
}

/**
 * Every process of the machine; one that ends while it is read is left out. Read without
 * yielding, so that a process that outlives its parent only briefly is still seen.
 */
export function listProcesses(): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses.
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      found.push({ pid: Number(entry), ppid: Number(ppid), pgid: Number(pgid), state: state!, command });
    } catch {
      continue;
    }
  }
  return found;
}

/** Whether a process names `marker` in its command line or its environment (which its children inherit). */
export function names(pid: number, marker: string): boolean {
  return ['cmdline', 'environ'].some((file) => {
    try {
      return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}

/** The processes under `root` (children, their children...), as they are now. */
export function descendants(all: readonly ProcessInfo[], root: number): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const process of all) {
      if (parents.has(process.ppid) && !parents.has(process.pid)) {
        parents.add(process.pid);
        found.push(process);
        grew = true;
      }
    }
  }
  return found;
}
