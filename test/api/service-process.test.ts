import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { baseEnv, descendants, listProcesses, names, runService } from '../support/service-process.js';

// Makes mongodb-memory-server fail at once, so the embedded path goes to FerretDB on any machine.
const NO_MONGOD = { MONGOMS_DOWNLOAD_URL: 'http://127.0.0.1:9/mongodb.tgz' };
const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-process-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the service process', () => {
  it.each([
    ['PORT', 'eighty'],
    ['LOG_LEVEL', 'loud'],
    ['CMS_SHUTDOWN_TIMEOUT_MS', '-1'],
  ])('refuses a bad %s at start, naming it', async (name, value) => {
    const service = runService(baseEnv({ [name]: value }));
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toContain(`Configuration error: ${name} must be`);
  });

  it('exits at once naming MONGODB_URI when no database can be had', async () => {
    const service = runService({
      ...baseEnv({ ...NO_MONGOD, CMS_DATA_DIR: await tempDir(), CMS_CACHE_DIR: await tempDir() }),
      PATH: '/nonexistent',
    });
    expect(await service.exited).toBe(1);
    const fatal = await service.waitForLog((line) => line.level === 60);
    expect(fatal.msg).toMatch(/^No database: set MONGODB_URI/);
  });

  it('serves on MONGODB_URI and stops cleanly on SIGTERM', async () => {
    const uri = new ConnectionString(inject('mongodbUri'));
    uri.pathname = '/process_test';
    const service = runService(baseEnv({ MONGODB_URI: uri.toString() }));
    const database = await service.waitForLog((line) => line.msg === 'database ready');
    expect(database.database).toMatch(/^MongoDB at /);
    const listening = await service.waitForLog((line) => line.msg === 'listening');
    const index = await fetch(`${listening.url}/cms-json/`);
    expect(index.status).toBe(200);
    expect((await index.json()).url).toBe(listening.url);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  it('runs CMS_WORKERS processes on one port, replaces one that dies, and stops them all', async () => {
    const uri = new ConnectionString(inject('mongodbUri'));
    uri.pathname = '/process_workers_test';
    const service = runService(baseEnv({ MONGODB_URI: uri.toString(), CMS_WORKERS: '2', CMS_ADMIN_PASSWORD: 'workers-test-password' }));
    const listening = await service.waitForLog((line) => line.msg === 'listening');
    expect(listening.workers).toBe(2);
    const workersReady = () => service.lines().filter((line) => line.msg === 'worker ready').map((line) => line.worker as number);
    const [first, second] = workersReady();
    expect(new Set([first, second, service.child.pid]).size).toBe(3);
    expect(service.lines().filter((line) => line.msg === 'administrator created')).toHaveLength(1);

    process.kill(first!, 'SIGKILL');
    const replacement = await service.waitForLog((line) => line.msg === 'worker ready' && ![first, second].includes(line.worker as number));
    for (let request = 0; request < 4; request++) {
      expect((await fetch(`${listening.url}/cms-json/cms/v2/posts`)).status).toBe(200);
    }

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    for (const pid of [second!, replacement.worker as number]) expect(isRunning(pid)).toBe(false);
  });

  it("tells a newcomer in plain words where the site, the API and the admin page are, and the generated password, which signs in", async () => {
    const uri = new ConnectionString(inject('mongodbUri'));
    uri.pathname = `/process_welcome_${process.pid}`;
    const service = runService(baseEnv({ MONGODB_URI: uri.toString(), CMS_WORKERS: '2', LOG_FORMAT: 'pretty' }));
    try {
      const deadline = Date.now() + 60_000;
      while (!service.stdout().includes('Stop with Ctrl+C.') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const text = service.stdout();
      expect(service.lines()).toEqual([]);
      const site = /Site: +(http:\/\/\S+)\/\n/.exec(text)?.[1];
      expect(site, text).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(text).toContain(`API root:    ${site}/cms-json/`);
      expect(text).toContain(`Reference:   ${site}/cms-api-reference/`);
      expect(text).toContain(`Admin page:  ${site}/cms-admin/`);
      const password = /sign in as "admin" with the password\n +(\S+)\n/.exec(text)?.[1];
      expect(password, text).toMatch(/^[A-Za-z0-9]{20}$/);
      const signIn = await fetch(`${site}/cms-admin/session`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password }),
      });
      expect(signIn.status).toBe(200);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
      const client = new MongoClient(uri.toString());
      await client.db().dropDatabase();
      await client.close();
    }
  });

  // Its own process group, as a shell's job or a service manager's unit: `kill -TERM -<pgid>`
  // reaches the primary, the workers, the watchdogs and the database servers at once, in no set
  // order. FerretDB first is the order in which the primary surely sees it go before its own signal.
  describe.skipIf(process.env.MONGODB_URI).each([
    ['the whole group at once', false],
    ['FerretDB first, then the group', true],
  ])('signalled with SIGTERM: %s', (_order, ferretDbFirst) => {
    it('stops every process of its own and restarts none', async () => {
      const dataDir = await tempDir();
      const env = baseEnv({ ...NO_MONGOD, CMS_DATA_DIR: dataDir, CMS_WORKERS: '2', CMS_ADMIN_PASSWORD: 'group-test-password' });
      const service = runService(env, { detached: true });
      await service.waitForLog((line) => line.msg === 'listening', 120_000);
      const started = descendants(listProcesses(), service.child.pid!);
      const commands = started.map((process) => process.command);
      expect(commands.filter((command) => command.endsWith('dist/src/main.js'))).toHaveLength(2);
      for (const server of [/\/ferretdb .*--state-dir=/, /\/postgres -D /]) {
        // The server, and its watchdog, which names it in its arguments.
        expect(commands.filter((command) => server.test(command))).toHaveLength(2);
      }

      if (ferretDbFirst) {
        const ferretDb = started.find((process) => /^\S*\/ferretdb /.test(process.command))!;
        process.kill(ferretDb.pid, 'SIGTERM');
        // Its watchdog gone too: the primary has been told, before any signal of its own.
        while (isRunning(ferretDb.ppid)) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      try {
        process.kill(-service.child.pid!, 'SIGTERM');
      } catch (error) {
        // The group may be gone already: a service whose database was stopped stops too.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      expect(await service.exited).toBe(0);
      const left = listProcesses()
        .filter((process) => process.state !== 'Z')
        .filter((process) => started.some((old) => old.pid === process.pid) || names(process.pid, dataDir))
        .map((process) => `${process.pid} (parent ${process.ppid}): ${process.command}`);
      expect(left).toEqual([]);
      const restarts = service.lines().filter((line) => Number(line.level) >= 40 && /exited; restarting it$|starting another$/.test(String(line.msg)));
      expect(restarts).toEqual([]);
    }, 180_000);
  });

  it('creates users from the command line', async () => {
    const uri = new ConnectionString(inject('mongodbUri'));
    uri.pathname = '/cli_test';
    const run = (args: string[]) => spawnSync(process.execPath, ['dist/scripts/user-create.js', ...args], {
      env: baseEnv({ MONGODB_URI: uri.toString() }),
      encoding: 'utf8',
    });
    const created = run(['--username', 'cli-editor', '--email', 'cli@example.test', '--password', 'pw', '--role', 'editor']);
    expect(created.stdout).toMatch(/^Created user \d+ \(cli-editor, editor\)\./);
    expect(created.status).toBe(0);
    const again = run(['--username', 'cli-editor', '--email', 'cli2@example.test', '--password', 'pw']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('Sorry, that username already exists!');
    const badRole = run(['--username', 'x', '--email', 'x@example.test', '--password', 'pw', '--role', 'wizard']);
    expect(badRole.status).toBe(2);
    const client = new MongoClient(uri.toString());
    const user = await client.db().collection('users').findOne({ username: 'cli-editor' });
    await client.db().dropDatabase();
    await client.close();
    expect(user).toMatchObject({ email: 'cli@example.test', roles: ['editor'] });
    expect(user!.passwordHash).toMatch(/^scrypt\$/);
  });

  it.skipIf(process.env.MONGODB_URI)(
    'keeps embedded data across restarts and leaves no database process behind',
    async () => {
      const env = baseEnv({ ...NO_MONGOD, CMS_DATA_DIR: await tempDir(), LOG_LEVEL: 'debug' });
      const first = runService(env);
      const started = await first.waitForLog((line) => line.msg === 'FerretDB started');
      await first.waitForLog((line) => line.msg === 'listening');
      const client = new MongoClient(`mongodb://127.0.0.1:${started.port}/`);
      await client.db('cms').collection('probe').insertOne({ _id: 1, kept: 'yes' } as never);
      await client.close();
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(isRunning(started.pid as number)).toBe(false);

      const second = runService(env);
      const restarted = await second.waitForLog((line) => line.msg === 'FerretDB started');
      await second.waitForLog((line) => line.msg === 'listening');
      const again = new MongoClient(`mongodb://127.0.0.1:${restarted.port}/`);
      expect(await again.db('cms').collection('probe').findOne({ _id: 1 } as never)).toEqual({ _id: 1, kept: 'yes' });
      await again.close();
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
      expect(isRunning(restarted.pid as number)).toBe(false);
    },
    120_000,
  );
});
