import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const MAIN = path.resolve('dist/src/main.js');

export interface ServiceProcess {
  child: ChildProcess;
  stderr: () => string;
  /** Resolves with the first JSON log line that satisfies `match`. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  /** Every JSON log line written so far. */
  lines(): readonly Record<string, unknown>[];
}

/** Runs the built service (`npm start` without the build step) as its own process. */
export function runService(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let stderr = '';
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
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
