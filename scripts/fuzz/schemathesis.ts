import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** The schemathesis release the suite is written against; the virtual environment is rebuilt when it differs. */
export const SCHEMATHESIS_VERSION = '4.32.5';

/** Where the virtual environment lives: git-ignored, kept between runs. */
export const VENV = path.resolve('.cache', `schemathesis-${SCHEMATHESIS_VERSION}`);

const st = path.join(VENV, 'bin', 'st');

/** Runs a command to its end; resolves with its exit code and what it printed. */
export function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; log?: string } = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = options.log ? createWriteStream(options.log) : undefined;
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
      log?.write(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => {
      log?.end();
      resolve({ code: code ?? 1, output });
    });
  });
}

/** Creates the virtual environment and installs the pinned schemathesis into it, unless it is there already. */
export async function ensureSchemathesis(): Promise<string> {
  if (existsSync(st)) {
    const { code, output } = await run(st, ['--version']);
    if (code === 0 && output.includes(SCHEMATHESIS_VERSION)) return st;
  }
  console.log(`installing schemathesis ${SCHEMATHESIS_VERSION} into ${path.relative(process.cwd(), VENV)}`);
  await fs.rm(VENV, { recursive: true, force: true });
  const python = process.env.PYTHON ?? 'python3';
  for (const [command, args] of [
    [python, ['-m', 'venv', VENV]],
    [path.join(VENV, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`]],
  ] as const) {
    const { code, output } = await run(command, [...args]);
    if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${output}`);
  }
  return st;
}

/** One failure kind of a schemathesis JSON report (`--report json`). */
export interface ReportFailure {
  code: string;
  title: string;
  count: number;
  operations: string[];
}

export interface RunReport {
  operations: { selected: number; tested: number; errored: number };
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: ReportFailure[];
  errors: { title: string; count: number }[];
  running_time: number;
}
