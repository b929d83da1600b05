// Throughput of authenticated requests (account password, with and without the verification
// cache, and application password) against anonymous ones, in one run on one machine.
//   npm run bench:auth [-- --seconds 10 --concurrency 16]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { formatResult, load } from './load.js';
import { basic, BENCH_ADMIN_PASSWORD, benchDatabase, startBenchService } from './service.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, concurrency: { type: 'string', default: '16' } } });
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const { database, uri, stop: stopDatabase } = await benchDatabase();

async function measure(label: string, env: Record<string, string>, cases: (url: string) => Promise<[string, string, Record<string, string>][]>) {
  // A separate LOG_LEVEL=warn service; pino-http's per-request info lines stay off the hot path.
  const service = await startBenchService(uri, env);
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
    const admin = basic('admin', BENCH_ADMIN_PASSWORD);
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
    ['account password GET /cms/v2/settings', '/cms/v2/settings', basic('admin', BENCH_ADMIN_PASSWORD)],
  ]);
} finally {
  await stopDatabase();
}
