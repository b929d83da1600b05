import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Logger } from '../logger.js';
import { lockDataDir } from './data-lock.js';
import { freePort, waitForMongo, type DatabaseServer } from './database-server.js';

export const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';
export const FERRETDB_VERSION = 'v1.24.2';

/**
 * Builds FerretDB once into the cache folder and returns the binary's path.
 *
 * This is what `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` would do, in
 * three steps: a plain `go install` of that version fails where the Go proxy refuses the
 * module's deprecation lookup, and a build from the module cache panics at start because
 * the module does not ship `build/version/version.txt` (FerretDB's own build generates it).
 */
export async function ensureFerretDbBinary(cacheDir: string, logger: Logger): Promise<string> {
  const binary = path.join(cacheDir, `ferretdb-${FERRETDB_VERSION}`, 'ferretdb');
  if (await exists(binary)) return binary;

  if (spawnSync('go', ['version']).status !== 0) {
    throw new Error('Go is not installed, so FerretDB cannot be built.');
  }
  logger.info({ version: FERRETDB_VERSION }, 'building FerretDB once (about a minute and a half)');
  const download = goCommand(['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], cacheDir);
  const moduleDir = (JSON.parse(download) as { Dir: string }).Dir;

  const workDir = await fs.mkdtemp(path.join(cacheDir, 'ferretdb-build-'));
  try {
    await fs.cp(moduleDir, workDir, { recursive: true });
    await makeWritable(workDir);
    await fs.writeFile(path.join(workDir, 'build/version/version.txt'), `${FERRETDB_VERSION}\n`);
    const built = path.join(workDir, 'ferretdb.bin');
    goCommand(['build', '-o', built, './cmd/ferretdb'], workDir);
    await fs.mkdir(path.dirname(binary), { recursive: true });
    await fs.rename(built, binary);
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
  return binary;
}

/**
 * The watchdog FerretDB runs under: it stops FerretDB when its stdin closes. The service holds
 * the other end of that pipe and never writes to it; the kernel closes it when the service dies
 * however it dies (`kill -9` included), so FerretDB is never orphaned. It prints FerretDB's pid,
 * and exits when FerretDB does, with its status.
 */
const WATCHDOG = `
const { spawn } = require('node:child_process');
const [command, ...args] = process.argv.slice(1);
const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
child.on('error', () => process.exit(127));
child.on('exit', (code, signal) => process.exit(code ?? 128));
process.stdout.write(child.pid + '\\n');
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 5000);
};
process.stdin.on('end', stop).on('close', stop).on('error', stop).resume();
process.on('SIGTERM', stop).on('SIGINT', stop);
`;

interface Running {
  watchdog: ChildProcess;
  /** FerretDB's own pid. */
  pid: number;
  exited: Promise<void>;
}

/**
 * Starts FerretDB with its SQLite backend, keeping its files under `dataDir`, and supervises it:
 * restarted on the same port when it dies (the driver reconnects by itself), stopped when the
 * service dies, and never started twice on the same files (the folder's lock).
 */
export async function startFerretDb(binary: string, dataDir: string, logger: Logger): Promise<DatabaseServer> {
  await fs.mkdir(dataDir, { recursive: true });
  const lock = await lockDataDir(dataDir);
  const port = await freePort();
  const uri = `mongodb://127.0.0.1:${port}/`;
  const args = [
    '--handler=sqlite',
    `--sqlite-url=file:${dataDir}/`,
    `--state-dir=${dataDir}`,
    `--listen-addr=127.0.0.1:${port}`,
    '--debug-addr=-',
    '--telemetry=disable',
    '--log-level=warn',
  ];
  let stopping = false;
  let stderr = '';

  const launch = async (): Promise<Running> => {
    const watchdog = spawn(process.execPath, ['-e', WATCHDOG, binary, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    watchdog.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()));
    const pid = await new Promise<number>((resolve, reject) => {
      watchdog.stdout!.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10)));
      void exited.then(() => reject(new Error(`exited with code ${watchdog.exitCode}`)));
    });
    await lock.recordDatabase(pid);
    try {
      await waitForMongo(uri, watchdog);
    } catch (error) {
      await stopWatchdog({ watchdog, pid, exited });
      throw new Error(`FerretDB did not start: ${(error as Error).message}\n${stderr}`);
    }
    logger.debug({ pid, watchdog: watchdog.pid, port }, 'FerretDB started');
    return { watchdog, pid, exited };
  };

  const supervise = (running: Running) => {
    void running.exited.then(async () => {
      if (stopping) return;
      logger.warn({ pid: running.pid, code: running.watchdog.exitCode, stderr: stderr.slice(-500) }, 'FerretDB exited; restarting it');
      for (let delay = 250; !stopping; delay = Math.min(delay * 2, 5000)) {
        try {
          current = await launch();
          if (stopping) await stopWatchdog(current);
          else supervise(current);
          return;
        } catch (error) {
          logger.error({ err: error, retryInMs: delay }, 'FerretDB did not restart');
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    });
  };

  let current: Running;
  try {
    current = await launch();
  } catch (error) {
    await lock.release();
    throw error;
  }
  supervise(current);
  // A service that exits without stopping it (an uncaught error) takes its database along.
  const stopOnExit = () => current.watchdog.kill('SIGTERM');
  process.once('exit', stopOnExit);

  return {
    uri,
    description: `embedded FerretDB ${FERRETDB_VERSION} (SQLite) in ${dataDir}`,
    get pid() {
      return current.pid;
    },
    stop: async () => {
      stopping = true;
      process.off('exit', stopOnExit);
      await stopWatchdog(current);
      await lock.release();
    },
  };
}

/** Asks the watchdog to stop FerretDB and waits for both; kills them when that takes too long. */
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

function goCommand(args: string[], cwd: string): string {
  const result = spawnSync('go', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`go ${args.join(' ')} failed:\n${result.stderr || result.error?.message}`);
  }
  return result.stdout;
}

async function makeWritable(dir: string): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    await fs.chmod(full, entry.isDirectory() ? 0o755 : 0o644);
  }
  await fs.chmod(dir, 0o755);
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
