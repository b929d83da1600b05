// Throughput of authenticated requests (account password, with and without the verification
// cache, and application password) against anonymous ones, in one run on one machine.
//   npm run bench:auth [-- --seconds 10 --concurrency 16]
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { freePort, startDatabaseServer } from '../../src/store/database-server.js';
import { formatResult, load } from './load.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, concurrency: { type: 'string', default: '16' } } });
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const config = loadConfig(process.env);
const logger = createLogger('warn');
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-bench-'));
const database = await startDatabaseServer({ ...config, dataDir, logger });
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

/** Runs the built service as its own process, so the load generator does not share its event loop. */
async function startService(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, MONGODB_URI: `${database.uri.replace(/\/$/, '')}/bench`, PORT: String(port), LOG_LEVEL: 'warn', CMS_ADMIN_PASSWORD: 'bench-password', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let ready = false; !ready; ) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    ready = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function measure(label: string, env: Record<string, string>, cases: (url: string) => Promise<[string, string, Record<string, string>][]>) {
  // A separate LOG_LEVEL=warn service; pino-http's per-request info lines stay off the hot path.
  const service = await startService(env);
  try {
    for (const [name, route, headers] of await cases(service.url)) {
      await load(`${service.url}/cms-json${route}`, headers, 1, concurrency); // warm-up
      console.log(formatResult(`${label}: ${name}`, await load(`${service.url}/cms-json${route}`, headers, seconds, concurrency)));
    }
  } finally {
    await service.stop();
  }
}

try {
  console.log(`database: ${database.description}; ${seconds} s per case, ${concurrency} connections; node ${process.version}, ${os.cpus().length} cores`);
  await measure('cached', {}, async (url) => {
    const admin = basic('admin', 'bench-password');
    const created = await fetch(`${url}/cms-json/cms/v2/users/me/application-passwords`, {
      method: 'POST',
      headers: { ...admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const { password } = (await created.json()) as { password: string };
    return [
      ['anonymous GET /cms/v2/types', '/cms/v2/types', {}],
      ['account password GET /cms/v2/types', '/cms/v2/types', admin],
      ['account password GET /cms/v2/settings', '/cms/v2/settings', admin],
      ['application password GET /cms/v2/settings', '/cms/v2/settings', basic('admin', password)],
    ];
  });
  await measure('no cache', { CMS_AUTH_CACHE_SECONDS: '0' }, async () => [
    ['account password GET /cms/v2/settings', '/cms/v2/settings', basic('admin', 'bench-password')],
  ]);
} finally {
  await database.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
