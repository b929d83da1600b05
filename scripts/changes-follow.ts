// Follows the change feed (GET /cms/v2/changes) and prints each change as one JSON line:
//   npm run changes:follow -- [--since N] [--cursor FILE] [--url URL] [--user NAME] [--limit N]
//     [--types post,page] [--subtypes created,updated] [--include none|item|diff] [--follow]
// Starts after --since, else after the position the cursor file holds, else from the beginning,
// and writes the position it has printed up to into the cursor file after every page, so that a
// run stopped at any point resumes where it left off. Without --follow it stops at the end of the
// feed; with it, it waits for new changes (long polls). The password of --user (an application
// password or the account's) comes from CMS_PASSWORD; without --user the feed is read anonymously.
// A progress line goes to standard error.
import fs from 'node:fs/promises';
import { commandLine } from './command-line.js';

const USAGE =
  'Usage: npm run changes:follow -- [--since N] [--cursor FILE] [--url URL] [--user NAME] [--limit N] [--types a,b] [--subtypes a,b] [--include none|item|diff] [--follow]';
const LONGPOLL_MS = 25_000;
const PROGRESS_EVERY_MS = 250;

const cli = commandLine(USAGE, {
  since: { type: 'string' },
  cursor: { type: 'string', default: '.changes-cursor' },
  url: { type: 'string', default: process.env.CMS_URL ?? 'http://127.0.0.1:8080' },
  user: { type: 'string' },
  limit: { type: 'string', default: '500' },
  types: { type: 'string' },
  subtypes: { type: 'string' },
  include: { type: 'string', default: 'none' },
  follow: { type: 'boolean', default: false },
});
const { values } = cli;
// Annotated, so that the type checker knows a call to it ends the script.
const usageError: (message: string) => never = cli.usageError;
const position = (text: string, what: string) => {
  if (!/^\d{1,15}$/.test(text.trim())) usageError(`${what} must be a position (a whole number, 0 or more).`);
  return Number(text.trim());
};
if (!/^\d+$/.test(values.limit) || Number(values.limit) < 1 || Number(values.limit) > 500) usageError('--limit must be 1 to 500.');
if (!['none', 'item', 'diff'].includes(values.include)) usageError('--include must be none, item or diff.');
let root: URL;
try {
  root = new URL('/cms-json/cms/v2/changes', values.url);
} catch {
  usageError('--url must be the site URL, such as http://127.0.0.1:8080.');
}
const headers: Record<string, string> = { Accept: 'application/json' };
if (values.user !== undefined) {
  const password = process.env.CMS_PASSWORD;
  if (!password) usageError('--user needs its password in CMS_PASSWORD.');
  headers.Authorization = `Basic ${Buffer.from(`${values.user}:${password}`).toString('base64')}`;
}

async function savedCursor(): Promise<number> {
  try {
    return position(await fs.readFile(values.cursor, 'utf8'), `The cursor file ${values.cursor}`);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return 0;
    throw error;
  }
}

/** Replaces the cursor file whole (written aside, then renamed), so a stop never leaves half of it. */
async function saveCursor(at: number): Promise<void> {
  const aside = `${values.cursor}.${process.pid}`;
  await fs.writeFile(aside, `${at}\n`);
  await fs.rename(aside, values.cursor);
}

function pageUrl(since: number): string {
  const url = new URL(root);
  url.searchParams.set('since', String(since));
  url.searchParams.set('limit', values.limit);
  url.searchParams.set('include', values.include);
  if (values.types) url.searchParams.set('types', values.types);
  if (values.subtypes) url.searchParams.set('subtypes', values.subtypes);
  if (values.follow) {
    url.searchParams.set('feed', 'longpoll');
    url.searchParams.set('timeout', String(LONGPOLL_MS));
  }
  return url.toString();
}

function write(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.stdout.write(text, (error) => (error ? reject(error) : undefined))) resolve();
    else process.stdout.once('drain', resolve);
  });
}

const started = performance.now();
let printed = 0;
let cursor = values.since !== undefined ? position(values.since, '--since') : await savedCursor();
let shownAt = 0;
function progress(final = false): void {
  const now = performance.now();
  if (!final && now - shownAt < PROGRESS_EVERY_MS) return;
  shownAt = now;
  const seconds = (now - started) / 1000;
  const rate = seconds > 0 ? Math.round(printed / seconds) : 0;
  const line = `changes: ${printed} printed | position ${cursor} | ${rate} changes/s | ${seconds.toFixed(1)} s`;
  if (process.stderr.isTTY) process.stderr.write(`\r${line}${final ? '\n' : ''}`);
  else if (final) process.stderr.write(`${line}\n`);
}

let stopping = false;
const stop = new AbortController();
const requestStop = () => {
  stopping = true;
  // A long poll under way is given up: what was printed is in the cursor file already.
  stop.abort();
};
process.once('SIGINT', requestStop);
process.once('SIGTERM', requestStop);
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // The reader went away (`| head`): stop as if asked to.
  if (error.code === 'EPIPE') requestStop();
});

let exitCode = 0;
while (!stopping) {
  let response: Response;
  try {
    response = await fetch(pageUrl(cursor), { headers, signal: stop.signal });
  } catch (error) {
    if (stopping) break;
    console.error(`\nThe service did not answer: ${(error as Error).message}`);
    exitCode = 1;
    break;
  }
  const body = (await response.json().catch(() => null)) as { changes?: { position: number }[]; last_position?: number; code?: string; message?: string; data?: { earliest_position?: number } } | null;
  if (response.status === 410) {
    console.error(`\nThe feed no longer holds the changes after position ${cursor}: start again with --since ${(body?.data?.earliest_position ?? 1) - 1}.`);
    exitCode = 3;
    break;
  }
  if (!response.ok || !body?.changes || typeof body.last_position !== 'number') {
    console.error(`\nThe feed answered ${response.status}: ${body?.code ?? ''} ${body?.message ?? ''}`);
    exitCode = 1;
    break;
  }
  if (body.changes.length) await write(body.changes.map((change) => `${JSON.stringify(change)}\n`).join(''));
  printed += body.changes.length;
  const moved = body.last_position !== cursor;
  cursor = body.last_position;
  if (moved) await saveCursor(cursor);
  progress();
  if (!values.follow && !moved) break;
}
progress(true);
process.exitCode = exitCode;
