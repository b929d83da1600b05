import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning } from '../../src/store/database/data-lock.js';
import { findPostgres } from '../../src/store/database/postgresql.js';
import { baseEnv, runService, type ServiceProcess } from '../support/service-process.js';
import { basic } from '../support/test-app.js';

// Makes mongodb-memory-server fail at once, so the embedded path goes to FerretDB on any machine.
const NO_MONGOD = { MONGOMS_DOWNLOAD_URL: 'http://127.0.0.1:9/mongodb.tgz' };
const PASSWORD = 'embedded-secret';
const admin = basic('admin', PASSWORD);

const running: ServiceProcess[] = [];
const tempDirs: string[] = [];
afterAll(async () => {
  for (const service of running) service.child.kill('SIGKILL');
  await Promise.all(running.map((service) => service.exited));
  // Their watchdogs stop the databases once the services are gone.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await Promise.all(tempDirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

async function environment(): Promise<Record<string, string>> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-embedded-'));
  tempDirs.push(dir);
  return baseEnv({ ...NO_MONGOD, CMS_DATA_DIR: dir, LOG_LEVEL: 'debug', CMS_ADMIN_PASSWORD: PASSWORD, CMS_DATABASE_TIMEOUT_MS: '2000' });
}

async function start(env: Record<string, string>): Promise<{ service: ServiceProcess; url: string; databasePid: number }> {
  const service = runService(env);
  running.push(service);
  const started = await service.waitForLog((line) => line.msg === 'FerretDB started');
  const listening = await service.waitForLog((line) => line.msg === 'listening');
  return { service, url: listening.url as string, databasePid: started.pid as number };
}

async function until<T>(attempt: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const describeEmbedded = describe.skipIf(process.env.MONGODB_URI);

describeEmbedded('the embedded FerretDB', () => {
  it('is restarted when it dies, and requests recover without restarting the service', async () => {
    const { service, url, databasePid } = await start(await environment());
    const created = await fetch(`${url}/cms-json/cms/v2/posts`, {
      method: 'POST',
      headers: { ...admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'survives its database' }),
    });
    expect(created.status).toBe(201);
    const { id } = await created.json();

    process.kill(databasePid, 'SIGKILL');
    const during = await fetch(`${url}/cms-json/cms/v2/posts/${id}`, { headers: admin });
    if (during.status !== 200) {
      // A 500 here names what the service logged, for whoever meets it.
      expect(during.status, JSON.stringify(service.lines().filter((line) => Number(line.level) >= 50))).toBe(503);
      expect(await during.json()).toMatchObject({ code: 'db_connect_fail', data: { status: 503 } });
    }
    const restarted = await service.waitForLog((line) => line.msg === 'FerretDB started' && line.pid !== databasePid, 20_000);
    expect(isRunning(restarted.pid as number)).toBe(true);
    const post = await until(async () => {
      const response = await fetch(`${url}/cms-json/cms/v2/posts/${id}`, { headers: admin });
      return response.status === 200 ? response.json() : undefined;
    }, 15_000);
    expect(post.title.rendered).toBe('survives its database');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(service.child.exitCode).toBeNull();
  }, 90_000);

  it('stops when its service is killed with SIGKILL, and the next start takes the folder over', async () => {
    const env = await environment();
    const first = await start(env);
    const created = await fetch(`${first.url}/cms-json/cms/v2/posts`, {
      method: 'POST',
      headers: { ...admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'kept across a crash', status: 'publish' }),
    });
    const { id } = await created.json();

    first.service.child.kill('SIGKILL');
    await first.service.exited;
    await until(async () => (isRunning(first.databasePid) ? undefined : true), 10_000);

    const second = await start(env);
    expect(second.databasePid).not.toBe(first.databasePid);
    // The folder holds FerretDB's files: no time is spent looking for a mongod first.
    expect(second.service.lines().some((line) => line.msg === 'no embedded mongod; falling back to FerretDB')).toBe(false);
    expect(first.service.lines().some((line) => line.msg === 'no embedded mongod; falling back to FerretDB')).toBe(true);
    const post = await (await fetch(`${second.url}/cms-json/cms/v2/posts/${id}`)).json();
    expect(post.title.rendered).toBe('kept across a crash');
  }, 90_000);

  it('is never started twice on the same files: a second service on the folder exits, naming it', async () => {
    const env = await environment();
    const first = await start(env);
    const second = runService(env);
    running.push(second);
    expect(await second.exited).toBe(1);
    const fatal = await second.waitForLog((line) => line.level === 60);
    // The folder of the backend in use: postgresql, or ferretdb (SQLite) where the machine has no PostgreSQL.
    const backendFolder = `${env.CMS_DATA_DIR}/${findPostgres() ? 'postgresql' : 'ferretdb'}`;
    expect(fatal.msg).toContain(`The database folder ${backendFolder} is in use by another service (process ${first.service.child.pid})`);
    expect(isRunning(first.databasePid)).toBe(true);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  }, 90_000);
});
