import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { type Logger } from '../../logger.js';
import { type Shutdown } from '../../shutdown.js';
import { isRunning } from './data-lock.js';
import { superviseProcess, type Account, type SupervisedProcess } from './supervised-process.js';

/** The oldest PostgreSQL FerretDB 1.24 supports. */
const MIN_MAJOR_VERSION = 14;
/** The role FerretDB connects as, and the database it keeps its collections in. */
const ROLE = 'ferretdb';
const DATABASE = 'ferretdb';
/** A unix socket's path must fit in `sun_path` (108 bytes), `.s.PGSQL.5432` included. */
const MAX_SOCKET_DIR_LENGTH = 90;

/**
 * Sized for a small service on a small machine: FerretDB's pool (`pool_max_conns`) stays under
 * `max_connections`, and memory stays in tens of megabytes. Durability is PostgreSQL's default
 * (fsync, synchronous commit): a write answered is on disk.
 */
const SERVER_SETTINGS = {
  listen_addresses: '',
  unix_socket_permissions: '0700',
  max_connections: '40',
  shared_buffers: '32MB',
  work_mem: '4MB',
  maintenance_work_mem: '32MB',
  effective_cache_size: '256MB',
  max_wal_size: '256MB',
  log_min_messages: 'warning',
  // FerretDB's driver runs prepared statements, whose filter reads `_jsonb->$1 @> $2`. A plan made
  // for any parameters (a generic one) sees no field name, so no expression index matches it; a
  // plan made for each execution's values can use the index bridge's (index-bridge.ts).
  plan_cache_mode: 'force_custom_plan',
};
export const FERRETDB_POOL_MAX_CONNS = 20;

/** How this service reaches its cluster itself: `psql` from the server's own programs, on the cluster's socket. */
export interface PostgresConnection {
  readonly binDir: string;
  readonly socketDir: string;
  readonly role: string;
  readonly database: string;
}

/**
 * How a process given `MONGODB_URI` learns that FerretDB keeps that database in an embedded
 * PostgreSQL, and where (a `PostgresConnection` as JSON): the primary tells its workers so, for
 * the index bridge, and a script told so reads whole collections from it directly.
 */
export const EMBEDDED_POSTGRES_ENV = 'CMS_EMBEDDED_POSTGRES';

export function embeddedPostgresOf(env: NodeJS.ProcessEnv): PostgresConnection | undefined {
  const value = env[EMBEDDED_POSTGRES_ENV];
  return value ? (JSON.parse(value) as PostgresConnection) : undefined;
}

export interface EmbeddedPostgres {
  /** FerretDB's `--postgresql-url`. */
  readonly url: string;
  readonly connection: PostgresConnection;
  readonly version: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** The folder of PostgreSQL's server programs (`pg_config --bindir`) when they are new enough, with their version. */
export function findPostgres(): { binDir: string; version: string } | undefined {
  const bindir = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const binDir = bindir.status === 0 ? bindir.stdout.trim() : undefined;
  if (!binDir) return undefined;
  const probe = spawnSync(path.join(binDir, 'postgres'), ['--version'], { encoding: 'utf8' });
  const version = /(\d+)(\.\d+)?/.exec(probe.stdout ?? '')?.[0];
  if (probe.status !== 0 || !version || Number.parseInt(version, 10) < MIN_MAJOR_VERSION) return undefined;
  return { binDir, version };
}

/**
 * A PostgreSQL cluster in `dir` (created on first use), served on a unix socket in a private
 * folder and nowhere else, supervised like FerretDB. `initdb` and `postgres` refuse to run as
 * root: a service running as root runs them as the `postgres` account (or `nobody`), which then
 * owns the cluster's folder. A server left running by a killed service is stopped first.
 */
export async function startPostgres(
  dir: string,
  binDir: string,
  version: string,
  logger: Logger,
  shutdown?: Shutdown,
): Promise<EmbeddedPostgres> {
  const account = process.getuid?.() === 0 ? (accountOf('postgres') ?? accountOf('nobody')) : undefined;
  const cluster = path.join(dir, 'cluster');
  await fs.mkdir(dir, { recursive: true });
  if (account) await letAccountReach(dir);
  const socketDir = await privateFolder(await socketFolder(dir), account);
  if (!(await exists(path.join(cluster, 'PG_VERSION')))) {
    await fs.rm(cluster, { recursive: true, force: true });
    await privateFolder(cluster, account);
    logger.info({ cluster }, 'creating the PostgreSQL cluster');
    run(path.join(binDir, 'initdb'), ['-D', cluster, '-U', ROLE, '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8'], account);
  }
  await stopLeftOver(cluster);

  const settings = Object.entries(SERVER_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const server: SupervisedProcess = await superviseProcess(
    {
      name: 'PostgreSQL',
      command: path.join(binDir, 'postgres'),
      args: ['-D', cluster, '-k', socketDir, ...settings],
      account,
      stopSignal: 'SIGINT',
      ready: (watchdog) => waitForPostgres(binDir, socketDir, () => watchdog.exitCode !== null),
    },
    logger,
    shutdown,
  );
  try {
    const exists = run(path.join(binDir, 'psql'), ['-h', socketDir, '-U', ROLE, '-d', 'postgres', '-tAc', `SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`]);
    if (exists.trim() !== '1') run(path.join(binDir, 'createdb'), ['-h', socketDir, '-U', ROLE, DATABASE]);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const query = new URLSearchParams({ host: socketDir, pool_max_conns: String(FERRETDB_POOL_MAX_CONNS) });
  return {
    url: `postgres://${ROLE}@/${DATABASE}?${query}`,
    connection: { binDir, socketDir, role: ROLE, database: DATABASE },
    version,
    get pid() {
      return server.pid;
    },
    stop: () => server.stop(),
  };
}

function accountOf(name: string): Account | undefined {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Where the socket goes: in the folder, unless that path is too long for a socket (then a private temporary folder). */
async function socketFolder(dir: string): Promise<string> {
  const wanted = path.join(dir, 'socket');
  return wanted.length <= MAX_SOCKET_DIR_LENGTH ? wanted : fs.mkdtemp(path.join(os.tmpdir(), 'cms-pg-'));
}

/** A folder of the server's own: mode 0700, owned by the account that runs it. */
async function privateFolder(folder: string, account: Account | undefined): Promise<string> {
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  await fs.chmod(folder, 0o700);
  if (account) await fs.chown(folder, account.uid, account.gid);
  return folder;
}

/**
 * The server's account must pass through the folders above its own: the data folder (the
 * service's) is opened to it for passing only (o+x); a folder further up that is closed is
 * named in the error, since opening it is the operator's choice.
 */
async function letAccountReach(dir: string): Promise<void> {
  const own = [path.resolve(dir), path.dirname(path.resolve(dir))];
  for (const folder of own) {
    const { mode } = await fs.stat(folder);
    if ((mode & 0o001) === 0) await fs.chmod(folder, mode | 0o001);
  }
  for (let folder = path.dirname(own[1]); folder !== path.dirname(folder); folder = path.dirname(folder)) {
    const { mode } = await fs.stat(folder);
    if ((mode & 0o001) === 0) {
      throw new Error(`PostgreSQL runs as another account, which cannot pass through ${folder}: choose a CMS_DATA_DIR it can reach`);
    }
  }
}

/** A server a killed service left behind (its watchdog gone too) is shut down before a new one starts. */
async function stopLeftOver(cluster: string): Promise<void> {
  const pidFile = await fs.readFile(path.join(cluster, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number.parseInt(pidFile.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid)) return;
  const command = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!command.includes('postgres') || !command.includes(cluster)) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 15_000;
  while (isRunning(pid)) {
    if (Date.now() > deadline) process.kill(pid, 'SIGQUIT');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function waitForPostgres(binDir: string, socketDir: string, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited()) throw new Error('PostgreSQL exited while starting');
    const probe = spawnSync(path.join(binDir, 'pg_isready'), ['-q', '-h', socketDir, '-U', ROLE, '-d', 'postgres']);
    if (probe.status === 0) return;
    if (Date.now() > deadline) throw new Error('PostgreSQL did not accept connections within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Between the fields of a row `psql` prints: a character no name or plan line holds. */
const FIELD_SEPARATOR = '\x1f';

/**
 * Runs `sql` (statements separated by semicolons, each committed on its own) in one `psql`
 * session, stopping at the first error, and returns the rows it printed, their fields split.
 */
export async function psql(connection: PostgresConnection, sql: string): Promise<string[][]> {
  const { binDir, socketDir, role, database } = connection;
  const args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-tA', '-F', FIELD_SEPARATOR, '-h', socketDir, '-U', role, '-d', database, '-f', '-'];
  const child = spawn(path.join(binDir, 'psql'), args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  // A psql that stops early closes its input; its exit code and message say why.
  child.stdin.on('error', () => {});
  child.stdin.end(sql);
  const code = await exited;
  if (code !== 0) throw new Error(`psql failed: ${stderr.trim()}`);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(FIELD_SEPARATOR));
}

/** Rows `psqlLines` asks its cursor for at once. */
const FETCH_COUNT = 1000;

/**
 * The rows of one query of a single column, each on its own line (what a row of `jsonb` prints
 * never holds a line break), as they come: `psql` reads them through a cursor (`FETCH_COUNT`), so
 * neither it nor this process holds the whole answer. A reader that stops early stops `psql`.
 */
export async function* psqlLines(connection: PostgresConnection, sql: string): AsyncGenerator<string> {
  const { binDir, socketDir, role, database } = connection;
  const args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-v', `FETCH_COUNT=${FETCH_COUNT}`, '-tA', '-h', socketDir, '-U', role, '-d', database, '-c', sql];
  const child = spawn(path.join(binDir, 'psql'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  // Awaited once the lines end; a failure to start shows there, not as an unhandled rejection.
  exited.catch(() => {});
  let ended = false;
  try {
    for await (const line of readline.createInterface({ input: child.stdout, crlfDelay: Infinity })) if (line !== '') yield line;
    ended = true;
  } finally {
    if (!ended) child.kill();
  }
  const code = await exited;
  if (code !== 0) throw new Error(`psql failed: ${stderr.trim()}`);
}

/** A name in SQL, quoted. */
export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A string constant in SQL, quoted. */
export function sqlLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function run(command: string, args: string[], account?: Account): string {
  const result = spawnSync(command, args, { encoding: 'utf8', ...(account ? { ...account, cwd: '/' } : {}) });
  if (result.status !== 0) throw new Error(`${path.basename(command)} failed: ${(result.stderr || result.error?.message || '').trim()}`);
  return result.stdout;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
