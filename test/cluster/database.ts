import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { ensureFerretDbBinary } from '../../src/store/database/ferretdb.js';
import { findPostgres } from '../../src/store/database/postgresql.js';
import { freePort, waitForMongo } from '../../src/store/database/wire-server.js';
import { sleep, startGroup, stopGroup, type GroupProcess } from './processes.js';

/** The role FerretDB connects as (initdb's superuser), and its database. */
const ROLE = 'ferretdb';
const DATABASE = 'ferretdb';
/** The standby's name in the primary's `synchronous_standby_names`. */
const STANDBY_NAME = 'standby';

/** Settings of both servers: small, on TCP on 127.0.0.1 only, ready to stream WAL. */
const SETTINGS = {
  listen_addresses: '127.0.0.1',
  unix_socket_directories: '',
  max_connections: '60',
  shared_buffers: '32MB',
  wal_level: 'replica',
  max_wal_senders: '4',
  hot_standby: 'on',
  log_min_messages: 'warning',
  plan_cache_mode: 'force_custom_plan',
};

interface Server {
  name: string;
  dir: string;
  port: number;
  process?: GroupProcess;
}

/**
 * A PostgreSQL primary with a synchronous streaming standby, and one FerretDB in front of them
 * whose URL names both hosts with `target_session_attrs=read-write`: after the standby is
 * promoted, FerretDB's new connections find it.
 */
export interface DatabasePair {
  /** `mongodb://127.0.0.1:<port>/`: FerretDB. */
  readonly uri: string;
  /** The servers' roles as they are now (a failover and a rejoin swap them). */
  readonly primary: Server;
  readonly standby: Server;
  /** `sync` when the primary waits for the standby to flush each commit. */
  replicationState(): string;
  /** Kills the primary's server with SIGKILL (every process of its group). */
  killPrimary(): Promise<void>;
  /** Promotes the standby (`pg_ctl promote`), and waits until it accepts writes. */
  promoteStandby(): Promise<number>;
  /**
   * After a failover: the old primary's folder made again as a copy of the new primary, started
   * as its synchronous standby (the operator's rejoin; `pg_rewind` would spare the copy). The roles
   * swap; FerretDB's URL already names both servers.
   */
  rejoinAsStandby(): Promise<number>;
  stop(): Promise<void>;
}

export async function startDatabasePair(root: string): Promise<DatabasePair> {
  const found = findPostgres();
  if (!found) throw new Error("the cluster suite needs PostgreSQL 14 or newer's server programs, and `pg_config --bindir` names none (Debian's postgresql package provides them)");
  const { binDir } = found;
  const account = process.getuid?.() === 0 ? accountOf('postgres') : undefined;
  const run = (command: string, args: string[]) => {
    const result = spawnSync(path.join(binDir, command), args, { encoding: 'utf8', ...(account ? { ...account, cwd: '/' } : {}) });
    if (result.status !== 0) throw new Error(`${command} failed: ${(result.stderr || result.error?.message || '').trim()}`);
    return result.stdout;
  };
  const sql = (port: number, text: string) => run('psql', ['-X', '-q', '-tA', '-h', '127.0.0.1', '-p', String(port), '-U', ROLE, '-d', 'postgres', '-c', text]).trim();

  // The account the servers run as passes through the harness's folder into folders of its own.
  await fs.chmod(root, 0o711);
  const folder = async (name: string) => {
    const dir = path.join(root, name);
    await fs.mkdir(dir, { mode: 0o700 });
    if (account) await fs.chown(dir, account.uid, account.gid);
    return dir;
  };
  let primary: Server = { name: 'pg1', dir: await folder('pg1'), port: await freePort() };
  let standby: Server = { name: 'pg2', dir: await folder('pg2'), port: await freePort() };

  const startServer = async (server: Server, extra: Record<string, string>) => {
    const settings = Object.entries({ ...SETTINGS, port: String(server.port), ...extra }).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
    server.process = startGroup(`PostgreSQL ${server.name}`, path.join(binDir, 'postgres'), ['-D', server.dir, ...settings], account ? { ...account, cwd: '/' } : {});
    const deadline = Date.now() + 60_000;
    while (spawnSync(path.join(binDir, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(server.port)]).status !== 0) {
      if (server.process.child.exitCode !== null) throw new Error(`PostgreSQL ${server.name} exited: ${server.process.stderr().trim()}`);
      if (Date.now() > deadline) throw new Error(`PostgreSQL ${server.name} did not accept connections within 60 s`);
      await sleep(100);
    }
  };

  /** Makes `copy` a streaming copy of `source` under the standby's name, and has `source` wait for it on every commit. */
  const follow = async (copy: Server, source: Server) => {
    run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(source.port), '-U', ROLE, '-D', copy.dir, '-X', 'stream', '-R', '-c', 'fast']);
    await startServer(copy, { primary_conninfo: `host=127.0.0.1 port=${source.port} user=${ROLE} application_name=${STANDBY_NAME}` });
    // Only now does the source wait for it: a commit is answered once the standby has flushed it.
    // (Set on the source alone, after the copy was made: the copy, once promoted, waits for nobody.)
    sql(source.port, `ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
    sql(source.port, `ALTER SYSTEM SET synchronous_commit = 'on'`);
    sql(source.port, 'SELECT pg_reload_conf()');
    for (let tries = 0; tries < 100 && sql(source.port, `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`) !== 'sync'; tries++) await sleep(100);
  };

  run('initdb', ['-D', primary.dir, '-U', ROLE, '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  await startServer(primary, {});
  sql(primary.port, `CREATE DATABASE ${DATABASE}`);
  await follow(standby, primary);
  const config = loadConfig({ HOME: process.env.HOME, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME });
  const binary = await ensureFerretDbBinary(config.cacheDir, createLogger('warn'));
  const ferretPort = await freePort();
  const stateDir = path.join(root, 'ferretdb-state');
  await fs.mkdir(stateDir);
  const hosts = `127.0.0.1:${primary.port},127.0.0.1:${standby.port}`;
  const postgresUrl = `postgres://${ROLE}@${hosts}/${DATABASE}?target_session_attrs=read-write&pool_max_conns=20`;
  const ferretdb = startGroup('FerretDB', binary, [
    '--handler=postgresql',
    `--postgresql-url=${postgresUrl}`,
    `--state-dir=${stateDir}`,
    `--listen-addr=127.0.0.1:${ferretPort}`,
    '--debug-addr=-',
    '--telemetry=disable',
    '--log-level=warn',
  ]);
  const uri = `mongodb://127.0.0.1:${ferretPort}/`;
  await waitForMongo(uri, ferretdb.child);

  return {
    uri,
    get primary() {
      return primary;
    },
    get standby() {
      return standby;
    },
    replicationState: () => {
      try {
        return sql(primary.port, `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`) || 'none';
      } catch (error) {
        return `unknown (${(error as Error).message.split('\n')[0]})`;
      }
    },
    async killPrimary() {
      if (primary.process) await stopGroup(primary.process, 'SIGKILL', 0);
    },
    async promoteStandby() {
      const started = performance.now();
      run('pg_ctl', ['promote', '-D', standby.dir, '-w', '-t', '30']);
      while (sql(standby.port, 'SELECT pg_is_in_recovery()') !== 'f') await sleep(100);
      return performance.now() - started;
    },
    async rejoinAsStandby() {
      const started = performance.now();
      const old = primary;
      if (old.process) await stopGroup(old.process, 'SIGKILL', 0);
      await fs.rm(old.dir, { recursive: true, force: true });
      await folder(path.basename(old.dir));
      [primary, standby] = [standby, old];
      await follow(standby, primary);
      return performance.now() - started;
    },
    async stop() {
      await stopGroup(ferretdb, 'SIGTERM', 5000);
      for (const server of [standby, primary]) if (server.process) await stopGroup(server.process, 'SIGINT', 10_000);
    },
  };
}

function accountOf(name: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
