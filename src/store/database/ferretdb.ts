import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Logger } from '../../logger.js';
import { type Shutdown } from '../../shutdown.js';
import { type DataDirLock } from './data-lock.js';
import { freePort, waitForMongo, type DatabaseServer } from './wire-server.js';
import { superviseProcess } from './supervised-process.js';

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
  logger.info({ version: FERRETDB_VERSION }, 'building FerretDB once (about a minute and a half); later starts reuse it');
  logger.info('downloading FerretDB\'s source (go mod download)');
  const download = goCommand(['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], cacheDir);
  const moduleDir = (JSON.parse(download) as { Dir: string }).Dir;

  const workDir = await fs.mkdtemp(path.join(cacheDir, 'ferretdb-build-'));
  try {
    await fs.cp(moduleDir, workDir, { recursive: true });
    await makeWritable(workDir);
    await fs.writeFile(path.join(workDir, 'build/version/version.txt'), `${FERRETDB_VERSION}\n`);
    const built = path.join(workDir, 'ferretdb.bin');
    logger.info('compiling FerretDB (go build)');
    goCommand(['build', '-o', built, './cmd/ferretdb'], workDir);
    await fs.mkdir(path.dirname(binary), { recursive: true });
    await fs.rename(built, binary);
    logger.info({ binary }, 'FerretDB built');
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
  return binary;
}

/** Where FerretDB keeps its data: SQLite files in a folder, or a PostgreSQL database. */
export type FerretDbBackend =
  | { kind: 'sqlite'; dir: string }
  | { kind: 'postgresql'; url: string; label: string };

/**
 * Starts FerretDB on `backend`, with its state in `stateDir`, and supervises it: restarted on
 * the same port when it crashes (the driver reconnects by itself) unless `shutdown` is
 * requested, stopped when the service dies,
 * and never started twice on the same files (the lock of `stateDir`, taken by the caller).
 */
export async function startFerretDb(
  binary: string,
  backend: FerretDbBackend,
  stateDir: string,
  lock: DataDirLock,
  logger: Logger,
  shutdown?: Shutdown,
): Promise<DatabaseServer> {
  const port = await freePort();
  const uri = `mongodb://127.0.0.1:${port}/`;
  const backendArgs = backend.kind === 'sqlite'
    ? ['--handler=sqlite', `--sqlite-url=file:${backend.dir}/`]
    : ['--handler=postgresql', `--postgresql-url=${backend.url}`];
  const server = await superviseProcess(
    {
      name: 'FerretDB',
      command: binary,
      args: [...backendArgs, `--state-dir=${stateDir}`, `--listen-addr=127.0.0.1:${port}`, '--debug-addr=-', '--telemetry=disable', '--log-level=warn'],
      started: (pid) => lock.recordDatabase(pid),
      logFields: { port },
      ready: (watchdog) => waitForMongo(uri, watchdog),
    },
    logger,
    shutdown,
  );
  const where = backend.kind === 'sqlite' ? `(SQLite) in ${backend.dir}` : `on ${backend.label}`;
  return {
    uri,
    description: `embedded FerretDB ${FERRETDB_VERSION} ${where}`,
    get pid() {
      return server.pid;
    },
    stop: () => server.stop(),
  };
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
