// How long one hostile request can keep a service process from answering anything else: the
// service runs as its own process (one, CMS_WORKERS=1) with an event-loop delay monitor
// (CMS_EVENT_LOOP_REPORT, `perf_hooks.monitorEventLoopDelay`), seeded through the API with 100
// posts that embed authors, terms and media; then each hostile request of the list below is sent
// a few times while `/healthz` is asked every 20 ms, and the longest event-loop delay each caused
// is printed (the worst round's and the median round's), with the slowest `/healthz` answer beside it. `--fuzz` then runs the schema fuzzer
// (`npm run test:fuzz`) with the same monitor in each of its service's processes.
//
//   npm run bench:event-loop [-- --rounds 3 --goal 100 --strict --priority=-10 --only REGEX --fuzz --fuzz-examples 5]
//
// Exits 1 when a hostile request's worst delay is over `--goal` milliseconds (with `--strict`).
// `--priority` runs the service at that nice value (negative: root only), so that on a shared
// machine the figures are mostly the service's own; `--only` runs the phases whose name matches REGEX.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type EventLoopReport } from '../../src/event-loop-report.js';
import { basic, BENCH_ADMIN_PASSWORD, benchDatabase, median, startBenchService } from './service.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    goal: { type: 'string', default: '100' },
    strict: { type: 'boolean', default: false },
    fuzz: { type: 'boolean', default: false },
    'fuzz-examples': { type: 'string', default: '5' },
    only: { type: 'string' },
    // On a shared machine, other processes' work shows as event-loop delay too: a higher priority
    // for the service (a negative nice value; root only) leaves mostly its own.
    priority: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const goalMs = Number(values.goal);

const reportDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-event-loop-'));
const reportFile = path.join(reportDir, 'event-loop.ndjson');
const { uri, stop: stopDatabase } = await benchDatabase();
const service = await startBenchService(uri, { CMS_WORKERS: '1', CMS_EVENT_LOOP_REPORT: reportFile, LOG_LEVEL: 'error' });

if (values.priority !== undefined) os.setPriority(service.pid, Number(values.priority));
const admin = basic('admin', BENCH_ADMIN_PASSWORD);
const wrongPassword = basic('admin', 'not-the-password');

interface Answer {
  status: number;
  code: string;
  ms: number;
}

/**
 * One request over node:http (fetch sends no body with GET), its body written whole; an answer
 * the service gives before reading the body (a 413) is taken as the answer.
 */
function send(method: string, route: string, options: { headers?: Record<string, string>; body?: string | Buffer; type?: string; timeoutMs?: number } = {}): Promise<Answer> {
  const started = performance.now();
  const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
  return new Promise((resolve) => {
    const request = http.request(`${service.url}${route}`, {
      method,
      headers: {
        ...options.headers,
        ...(body ? { 'Content-Type': options.type ?? 'application/json', 'Content-Length': String(body.length) } : {}),
      },
    });
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ status: 0, code: 'client timeout', ms: performance.now() - started });
    }, options.timeoutMs ?? 120_000);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString();
        let code = '';
        try {
          const parsed = JSON.parse(text) as { code?: unknown } | unknown[];
          code = Array.isArray(parsed) ? `${parsed.length} items` : String((parsed as { code?: unknown }).code ?? 'ok');
        } catch {
          code = text.slice(0, 40);
        }
        resolve({ status: response.statusCode ?? 0, code, ms: performance.now() - started });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      // The service answered and closed before the whole body was written: the answer came first.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') return;
      clearTimeout(timer);
      resolve({ status: 0, code: error.code ?? error.message, ms: performance.now() - started });
    });
    request.end(body);
  });
}

const json = async (method: string, route: string, body?: unknown, headers: Record<string, string> = admin) => {
  const response = await fetch(`${service.url}/cms-json${route}`, {
    method,
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown> & { id: number };
};

// --- the site: 100 posts whose _embed reaches 20 authors, 30 categories, 30 tags and 10 images,
// and an older post (not on their first page) of 1 MB with revisions that differ on every line.
console.log('seeding: a post with 1 MB revisions, 20 authors, 60 terms, 10 images, 100 posts');
// Two 1 MB texts that differ on every line: the slowest a line diff can be.
const lines = (seed: string) => Array.from({ length: 25_000 }, (_, i) => `${seed} line ${i} ${'x'.repeat(24)}`).join('\n');
const diffPost = await json('POST', '/cms/v2/posts', { title: 'Long', content: lines('first'), status: 'publish' });
await json('POST', `/cms/v2/posts/${diffPost.id}`, { content: lines('second') });
await json('POST', `/cms/v2/posts/${diffPost.id}`, { content: lines('third') });
const revisions = (await (await fetch(`${service.url}/cms-json/cms/v2/posts/${diffPost.id}/revisions?_fields=id`, { headers: admin })).json()) as { id: number }[];
const authors: number[] = [];
for (let i = 0; i < 20; i++) {
  authors.push((await json('POST', '/cms/v2/users', { username: `author${i}`, email: `author${i}@example.test`, password: `author-password-${i}`, roles: ['author'] })).id);
}
// What an author alone can set up for the feed: a 340 KB post of 6,000 lines, updated 60 times,
// alternating two versions that differ on every line.
console.log('seeding: a 340 KB post updated 60 times, each time on every line');
const author = basic('author0', 'author-password-0');
let feedSince = 0;
for (let last = -1; last !== feedSince; ) {
  last = feedSince;
  feedSince = Number((await fetch(`${service.url}/cms-json/cms/v2/changes?limit=500&since=${last}`, { headers: admin })).headers.get('x-cms-last-position'));
}
const rewritten = (seed: string) => Array.from({ length: 6000 }, (_, i) => `${seed} line ${i} ${'y'.repeat(40)}`).join('\n');
const feedPost = await json('POST', '/cms/v2/posts', { title: 'Rewritten', content: rewritten('one'), status: 'publish' }, author);
for (let i = 0; i < 60; i++) await json('POST', `/cms/v2/posts/${feedPost.id}`, { content: rewritten(i % 2 ? 'one' : 'two') }, author);
// Also an author's: 40 posts of 1 MB, then a small change of each (its title), for feed pages that
// touch many long items and read little of their log.
console.log('seeding: 40 posts of 1 MB, each retitled');
const longPosts: number[] = [];
for (let i = 0; i < 40; i++) longPosts.push((await json('POST', '/cms/v2/posts', { title: `Long ${i}`, content: rewritten(`long ${i}`).repeat(3), status: 'publish' }, author)).id);
let retitledSince = feedSince;
for (let last = -1; last !== retitledSince; ) {
  last = retitledSince;
  retitledSince = Number((await fetch(`${service.url}/cms-json/cms/v2/changes?limit=500&since=${last}`, { headers: admin })).headers.get('x-cms-last-position'));
}
for (const id of longPosts) await json('POST', `/cms/v2/posts/${id}`, { title: `Retitled ${id}` }, author);
const categories: number[] = [];
const tags: number[] = [];
for (let i = 0; i < 30; i++) {
  categories.push((await json('POST', '/cms/v2/categories', { name: `Category ${i}` })).id);
  tags.push((await json('POST', '/cms/v2/tags', { name: `Tag ${i}` })).id);
}
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const media: number[] = [];
for (let i = 0; i < 10; i++) {
  const response = await fetch(`${service.url}/cms-json/cms/v2/media`, {
    method: 'POST',
    headers: { ...admin, 'Content-Type': 'image/png', 'Content-Disposition': `attachment; filename="image-${i}.png"` },
    body: new Uint8Array(png),
  });
  if (response.status !== 201) throw new Error(`media upload: ${response.status} ${await response.text()}`);
  media.push(((await response.json()) as { id: number }).id);
}
for (let i = 0; i < 100; i++) {
  await json('POST', '/cms/v2/posts', {
    title: `Post ${i}`,
    content: `<!-- wp:paragraph --><p>Post ${i}, with some words.</p><!-- /wp:paragraph -->`,
    status: 'publish',
    author: authors[i % authors.length],
    categories: [0, 1, 2].map((k) => categories[(i + k * 7) % categories.length]),
    tags: [0, 1, 2].map((k) => tags[(i + k * 11) % tags.length]),
    featured_media: media[i % media.length],
  });
}

// --- the hostile requests.
const names = (count: number) => Array.from({ length: count }, (_, i) => `f${String(i).padStart(7, '0')}`);
const fieldsText = names(4_000_000).join(',');
const fieldsBody = `{"_fields":"${fieldsText}"}`;
const fieldsArrayBody = JSON.stringify({ _fields: names(4_000_000) });
const ids = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
const wideBody = `{${Array.from({ length: 2_000_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
const wideWithinLimit = `{${Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
const emptyStrings = `[${Array(5_000_000).fill('""').join(',')}]`;
const deepBody = `{"meta":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
const manyParams = Array.from({ length: 5000 }, (_, i) => `p${i}=`).join('&').slice(0, 15_000);
const formBody = Array.from({ length: 100_000 }, (_, i) => `p${i}=1`).join('&');
const boundary = 'benchboundary';
const multipartBody = `${Array.from({ length: 10_000 }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="p${i}"\r\n\r\n1\r\n`).join('')}--${boundary}--\r\n`;

interface Phase {
  name: string;
  run: () => Promise<Answer>;
  /** Not hostile: shown for comparison, left out of the worst. */
  reference?: boolean;
}

const posts = '/cms-json/cms/v2/posts';
const phases: Phase[] = [
  { name: 'nothing (the noise of this machine)', reference: true, run: async () => (await new Promise((resolve) => setTimeout(resolve, 1000)), { status: 0, code: 'idle', ms: 1000 }) },
  { name: 'a page of 100 posts, anonymous', reference: true, run: () => send('GET', `${posts}?per_page=100&round=${Math.random()}`) },
  // Rendering stored content costs with its length, whoever asks: each round a new address, past the cache.
  { name: 'a post of 1 MB of text, read, anonymous', reference: true, run: () => send('GET', `${posts}/${diffPost.id}?round=${Math.random()}`) },
  { name: '_fields: 4M names, 35 MB body, anonymous GET', run: () => send('GET', `${posts}?per_page=100`, { body: fieldsBody }) },
  { name: '_fields: 4M names, 35 MB body, administrator', run: () => send('GET', `${posts}?per_page=100`, { body: fieldsBody, headers: admin }) },
  { name: '_fields: 4M names, 35 MB body, wrong password', run: () => send('GET', `${posts}?per_page=100`, { body: fieldsBody, headers: wrongPassword }) },
  { name: '_fields: JSON list of 4M names, administrator', run: () => send('GET', `${posts}?per_page=100`, { body: fieldsArrayBody, headers: admin }) },
  { name: '_fields: 15 KB in the URL, anonymous', run: () => send('GET', `${posts}?per_page=100&_fields=${fieldsText.slice(0, 15_000)}`) },
  { name: 'include: 100,000 ids in a JSON body, anonymous', run: () => send('GET', posts, { body: JSON.stringify({ include: ids(100_000) }) }) },
  { name: 'include: 100,000 ids in a JSON body, administrator', run: () => send('GET', posts, { body: JSON.stringify({ include: ids(100_000) }), headers: admin }) },
  { name: 'include: 2,500 ids in the URL, anonymous', run: () => send('GET', `${posts}?include=${ids(2500).join(',')}`) },
  { name: 'search: 15 KB in the URL, anonymous', run: () => send('GET', `${posts}?per_page=100&search=${'a'.repeat(15_000)}`) },
  { name: 'search: 1 MB in a JSON body, administrator', run: () => send('GET', `${posts}?per_page=100`, { body: JSON.stringify({ search: 'a'.repeat(1 << 20) }), headers: admin }) },
  { name: 'JSON nested 10,000 deep, administrator', run: () => send('POST', posts, { body: deepBody, headers: admin }) },
  { name: 'JSON object of 2M keys (25 MB), administrator', run: () => send('POST', posts, { body: wideBody, headers: admin }) },
  { name: 'JSON object of 2M keys (25 MB), wrong password', run: () => send('POST', posts, { body: wideBody, headers: wrongPassword }) },
  { name: 'JSON object of 1M keys (12 MB), administrator', run: () => send('POST', posts, { body: wideWithinLimit, headers: admin }) },
  { name: 'JSON list of 5M empty strings (15 MB), administrator', run: () => send('POST', posts, { body: emptyStrings, headers: admin }) },
  { name: 'query string of 5,000 parameters, anonymous', run: () => send('GET', `${posts}?${manyParams}`) },
  { name: 'form body of 100,000 parameters, administrator', run: () => send('POST', posts, { body: formBody, type: 'application/x-www-form-urlencoded', headers: admin }) },
  { name: 'multipart body of 10,000 fields, administrator', run: () => send('POST', posts, { body: multipartBody, type: `multipart/form-data; boundary=${boundary}`, headers: admin }) },
  { name: '_embed, per_page=100, anonymous', run: () => send('GET', `${posts}?per_page=100&_embed=1&round=${Math.random()}`) },
  { name: '_embed, per_page=100, administrator', run: () => send('GET', `${posts}?per_page=100&_embed=1&context=edit`, { headers: admin }) },
  { name: 'diff of two 1 MB revisions, administrator', run: () => send('GET', `${posts}/${diffPost.id}/revisions/${revisions[0].id}/diff`, { headers: admin }) },
  { name: 'feed page of diffs, limit=100, over that post, anonymous', run: () => send('GET', `/cms-json/cms/v2/changes?since=${feedSince}&limit=100&include=diff`) },
  { name: 'feed page of diffs, limit=500, over that post, anonymous', run: () => send('GET', `/cms-json/cms/v2/changes?since=${feedSince}&limit=500&include=diff`) },
  { name: 'feed page of items, limit=500, over that post, anonymous', run: () => send('GET', `/cms-json/cms/v2/changes?since=${feedSince}&limit=500&include=item`) },
  { name: 'feed page, limit=500, over that post, anonymous', run: () => send('GET', `/cms-json/cms/v2/changes?since=${feedSince}&limit=500`) },
  // WordPress lists every revision without per_page: 60 of 340 KB, content raw and rendered.
  { name: 'feed page, limit=500, over 40 retitled 1 MB posts, anonymous', run: () => send('GET', `/cms-json/cms/v2/changes?since=${retitledSince}&limit=500`) },
  { name: 'feed page of items, limit=500, over 40 retitled 1 MB posts, anonymous', run: () => send('GET', `/cms-json/cms/v2/changes?since=${retitledSince}&limit=500&include=item`) },
  { name: 'feed page of diffs, limit=500, over 40 retitled 1 MB posts, anonymous', run: () => send('GET', `/cms-json/cms/v2/changes?since=${retitledSince}&limit=500&include=diff`) },
  { name: 'all revisions of that post (no per_page), its author', run: () => send('GET', `${posts}/${feedPost.id}/revisions?context=edit`, { headers: author }) },
  { name: 'history page of that post, its author', run: () => send('GET', `${posts}/${feedPost.id}/history`, { headers: author }) },
  { name: '20 MB of post content, administrator', run: () => send('POST', posts, { body: JSON.stringify({ title: 'Big', content: 'a'.repeat(20 << 20) }), headers: admin }) },
  // The largest body a logged-in caller may send, taken: what a write of that size costs.
  { name: '15 MB of post content (stored), administrator', reference: true, run: () => send('POST', posts, { body: JSON.stringify({ title: 'Big', content: 'a'.repeat(15 << 20) }), headers: admin }) },
];

/** The service's event-loop delay since the previous call (SIGUSR2 makes it append a line and start again). */
let linesRead = 0;
async function measured(): Promise<EventLoopReport> {
  process.kill(service.pid, 'SIGUSR2');
  for (;;) {
    const text = await fs.readFile(reportFile, 'utf8').catch(() => '');
    const reports = text.split('\n').filter(Boolean);
    if (reports.length > linesRead) {
      linesRead = reports.length;
      return JSON.parse(reports[reports.length - 1]) as EventLoopReport;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Asks `/healthz` every 20 ms until stopped; resolves with the slowest answer's time. */
function probeHealth(): { stop: () => Promise<number> } {
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${service.url}/healthz`).then((response) => response.arrayBuffer(), () => undefined);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return { stop: async () => ((running = false), await loop, slowest) };
}

const rows: { name: string; reference: boolean; answers: string; maxMs: number; medianMs: number; healthMs: number }[] = [];
console.log(
  `\n${'request ((ref): not hostile, for comparison)'.padEnd(58)} ${'max delay'.padStart(9)} ${'median'.padStart(9)} ${'/healthz'.padStart(9)}   answers (${rounds} rounds)`,
);
await measured();
for (const phase of phases) {
  if (values.only && !new RegExp(values.only, 'i').test(phase.name)) continue;
  const probe = probeHealth();
  await measured();
  const answers = new Map<string, number>();
  // Each round measured on its own: one slow round (a collection, another process) shows as the max, not the median.
  const delays: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const answer = await phase.run();
    const key = `${answer.status} ${answer.code}`;
    answers.set(key, (answers.get(key) ?? 0) + 1);
    delays.push((await measured()).max_ms);
  }
  const healthMs = await probe.stop();
  const row = {
    name: phase.name,
    reference: phase.reference ?? false,
    answers: [...answers].map(([key, count]) => `${count} x ${key}`).join(', '),
    maxMs: Math.max(...delays),
    medianMs: median(delays),
    healthMs,
  };
  rows.push(row);
  const ms = (value: number) => `${value.toFixed(0)} ms`.padStart(9);
  console.log(`${`${row.reference ? '(ref) ' : ''}${row.name}`.padEnd(58)} ${ms(row.maxMs)} ${ms(row.medianMs)} ${ms(row.healthMs)}   ${row.answers}`);
}
await service.stop();
await stopDatabase();

let fuzzMax: number | undefined;
if (values.fuzz) {
  const fuzzReport = path.join(reportDir, 'fuzz.ndjson');
  console.log(`\nrunning the fuzzer (npm run test:fuzz -- --examples ${values['fuzz-examples']}) with the monitor in its service`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['dist/scripts/fuzz/fuzz.js', '--examples', values['fuzz-examples']!], {
      env: { ...process.env, CMS_EVENT_LOOP_REPORT: fuzzReport },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('exit', (exitCode) => resolve(exitCode ?? 1));
  });
  const reports = (await fs.readFile(fuzzReport, 'utf8').catch(() => '')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as EventLoopReport);
  // The workers serve the requests; the primary only starts them and the database.
  fuzzMax = Math.max(0, ...reports.filter((report) => report.role === 'worker').map((report) => report.max_ms));
  console.log(`fuzzer exited with ${code}; worst event-loop delay of a service worker while it served the fuzzer: ${fuzzMax} ms`);
}
await fs.rm(reportDir, { recursive: true, force: true });

const worst = rows.filter((row) => !row.reference).reduce((a, b) => (b.maxMs > a.maxMs ? b : a), { name: '-', reference: false, maxMs: 0, medianMs: 0, healthMs: 0, answers: '' });
console.log(`\nworst event-loop delay: ${worst.maxMs.toFixed(0)} ms (${worst.name}); goal: under ${goalMs} ms`);
if (values.strict && (worst.maxMs >= goalMs || (fuzzMax ?? 0) >= goalMs)) process.exitCode = 1;
