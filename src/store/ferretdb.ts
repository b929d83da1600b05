import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Logger } from '../logger.js';
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

/** Starts FerretDB with its SQLite backend, keeping its files under `dataDir`. */
export async function startFerretDb(binary: string, dataDir: string, logger: Logger): Promise<DatabaseServer> {
  await fs.mkdir(dataDir, { recursive: true });
  const port = await freePort();
  const child = spawn(
    binary,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dataDir}/`,
      `--state-dir=${dataDir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);

  const uri = `mongodb://127.0.0.1:${port}/`;
  try {
    await waitForMongo(uri, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`FerretDB did not start: ${(error as Error).message}\n${stderr}`);
  }
  logger.debug({ pid: child.pid, port }, 'FerretDB started');
  return {
    uri,
    description: `embedded FerretDB ${FERRETDB_VERSION} (SQLite) in ${dataDir}`,
    pid: child.pid,
    stop: async () => {
      process.off('exit', stopOnExit);
      await stopChild(child);
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
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
