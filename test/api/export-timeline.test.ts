import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { autosavePost, deletePost, trashPost, siteChanges, updatePost } from '../../src/resources/posts/post.commands.js';
import { EMBEDDED_POSTGRES_ENV } from '../../src/store/database/postgresql.js';
import { baseEnv } from '../support/service-process.js';
import { givenPost, givenTitleChanges } from '../support/post-fixtures.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { type TimelineEntry } from '../../src/resources/history/history.serializer.js';

// Runs the built script (the test command builds first), as `npm run export:timeline` does.
const SCRIPT = 'dist/scripts/export-timeline.js';
const COLUMNS = ['item', 'item_type', 'seq', 'type', 'date_gmt', 'author', 'fields', 'revision', 'redacted', 'position'];

let app: TestApp;
let tempDir: string;
let editorId: number;
const ids = { bigPost: 0, bigPage: 0, post: 0, deleted: 0, newPage: 0 };
let since = '';

type Entry = TimelineEntry & { item: number; item_type: string };

function run(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const uri = new ConnectionString(inject('mongodbUri'));
  uri.pathname = `/${app.databaseName}`;
  const result = spawnSync(process.execPath, [SCRIPT, ...args], {
    env: baseEnv({ MONGODB_URI: uri.toString(), ...env }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function ndjson(stdout: string): Entry[] {
  expect(stdout.endsWith('\n')).toBe(true);
  return stdout.slice(0, -1).split('\n').map((line) => JSON.parse(line) as Entry);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  app = await createTestApp();
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-timeline-'));
  editorId = (await app.asRole('editor')).id;

  ids.bigPost = (await givenPost(app.deps, { title: 'Big post' }))._id;
  await givenTitleChanges(app.deps, ids.bigPost, 2000, { project: false });
  ids.bigPage = (await givenPost(app.deps, { type: 'page', title: 'Big page', author: editorId }))._id;
  await givenTitleChanges(app.deps, ids.bigPage, 1000, { actor: editorId, project: false });
  ids.post = (await givenPost(app.deps, { title: 'Small post', status: 'publish' }))._id;
  await updatePost(app.deps, ids.post, siteChanges({ title: 'Small post, revised', excerpt: 'Now with an excerpt.' }), 1);
  await autosavePost(app.deps, ids.post, { content: '<p>The editor, drafting.</p>' }, editorId);
  ids.deleted = (await givenPost(app.deps, { title: 'Short-lived', password: 'secret' }))._id;
  await updatePost(app.deps, ids.deleted, siteChanges({ content: '<p>Changed.</p>' }), 1);
  await deletePost(app.deps, ids.deleted, 1);

  // `--since` takes whole seconds: start the second part of the history on a fresh second.
  await sleep(1100 - (Date.now() % 1000));
  since = new Date().toISOString().slice(0, 19);
  await updatePost(app.deps, ids.post, siteChanges({ title: 'Small post, again' }), editorId);
  ids.newPage = (await givenPost(app.deps, { type: 'page', title: 'New page' }))._id;
  await trashPost(app.deps, ids.post, 1);
}, 180_000);

afterAll(async () => {
  await app?.stop();
  if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
});

const TOTAL = 2001 + 1001 + 3 + 3 + 3;

describe('npm run export:timeline', () => {
  let all: Entry[];

  it('writes every event as NDJSON, item by item and oldest first, in the history route\'s shape', async () => {
    const result = run([]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    all = ndjson(result.stdout);
    expect(all).toHaveLength(TOTAL);

    const types = new Map([
      [ids.bigPost, 'post'],
      [ids.bigPage, 'page'],
      [ids.post, 'post'],
      [ids.deleted, 'post'],
      [ids.newPage, 'page'],
    ]);
    let previous: Entry | undefined;
    for (const entry of all) {
      expect(Object.keys(entry)).toEqual(COLUMNS);
      expect(entry.item_type).toBe(types.get(entry.item));
      expect(entry.seq).toBe(previous?.item === entry.item ? previous.seq + 1 : 1);
      if (previous && previous.item !== entry.item) expect(entry.item).toBeGreaterThan(previous.item);
      expect(entry.date_gmt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      previous = entry;
    }
    // Each event's position on the log's one clock, as stored.
    const positions = new Map<string, number>();
    for await (const row of app.deps.store.db.collection<{ stream: number; seq: number; position: number }>('events').find({ stream: { $gt: 0 } })) positions.set(`${row.stream}:${row.seq}`, row.position);
    expect(all.map((entry) => entry.position)).toEqual(all.map((entry) => positions.get(`${entry.item}:${entry.seq}`)));
    expect(new Set(all.map((entry) => entry.position)).size).toBe(all.length);

    const page = all.filter((entry) => entry.item === ids.bigPage);
    expect(page).toHaveLength(1001);
    expect(page.slice(1).every((entry) => entry.type === 'updated' && entry.author === editorId && entry.fields.join() === 'title')).toBe(true);

    // The same entries as GET /<type>/<id>/history, plus the item.
    const history = await app.api('GET', `/cms/v2/posts/${ids.post}/history`, { headers: app.admin });
    const routeEntries = history.body.map(({ _links, ...entry }: Record<string, unknown>) => ({ item: ids.post, item_type: 'post', ...entry }));
    expect(all.filter((entry) => entry.item === ids.post)).toEqual(routeEntries);
    expect(routeEntries.map((entry: Entry) => entry.type)).toEqual(['created', 'updated', 'autosaved', 'updated', 'trashed']);

    // An item deleted for good keeps its timeline, its type read from its creation, its content erased.
    expect(all.filter((entry) => entry.item === ids.deleted).map((entry) => [entry.type, entry.redacted])).toEqual([
      ['created', ['title', 'content', 'password']],
      ['updated', ['content']],
      ['deleted', []],
    ]);
  });

  it('writes CSV with a header row, one quoted-as-needed row per event', () => {
    const result = run(['--format', 'csv']);
    expect(result.status).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(TOTAL + 1);
    expect(lines[0]).toBe(COLUMNS.join(','));
    const rows = parse(result.stdout, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(TOTAL);
    rows.forEach((row, index) => {
      const entry = all[index];
      expect(row).toEqual({
        item: String(entry.item),
        item_type: entry.item_type,
        seq: String(entry.seq),
        type: entry.type,
        date_gmt: entry.date_gmt,
        author: String(entry.author),
        fields: entry.fields.join(' '),
        revision: entry.revision === null ? '' : String(entry.revision),
        redacted: entry.redacted.join(' '),
        position: String(entry.position),
      });
    });
    // A list of several fields holds spaces, never a separator; the created row lists them all.
    const created = lines.find((line) => line.startsWith(`${ids.post},post,1,created,`))!;
    expect(created).toMatch(/,(?:[a-z_]+ )+[a-z_]+,,,\d+$/);
  });

  it('narrows to one item with --id and to one type with --type', () => {
    const one = ndjson(run(['--id', String(ids.post)]).stdout);
    expect(one).toEqual(all.filter((entry) => entry.item === ids.post));

    const pages = ndjson(run(['--type', 'page']).stdout);
    expect(pages).toHaveLength(1002);
    expect(pages).toEqual(all.filter((entry) => entry.item_type === 'page'));

    expect(run(['--type', 'post', '--id', String(ids.bigPage)]).stdout).toBe('');
  });

  it('with --since, writes the events from that time on, in time order across items', () => {
    const recent = ndjson(run(['--since', since]).stdout);
    expect(recent.map((entry) => [entry.item, entry.item_type, entry.type])).toEqual([
      [ids.post, 'post', 'updated'],
      [ids.newPage, 'page', 'created'],
      [ids.post, 'post', 'trashed'],
    ]);
    expect(recent.every((entry) => entry.date_gmt >= since)).toBe(true);
    expect(ndjson(run(['--since', `${since}+00:00`, '--type', 'post']).stdout).map((entry) => entry.type)).toEqual(['updated', 'trashed']);
    expect(run(['--since', '2999-01-01']).stdout).toBe('');
  });

  it('writes to a file with --out, showing progress on standard error', async () => {
    const file = path.join(tempDir, 'timeline.csv');
    const result = run(['--format', 'csv', '--out', file]);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`100% | ${TOTAL}/${TOTAL} events`);
    expect(result.stderr).toContain(`Wrote ${TOTAL} events to ${file}.`);
    expect(await fs.readFile(file, 'utf8')).toBe(run(['--format', 'csv']).stdout);

    const pages = path.join(tempDir, 'pages.ndjson');
    const paged = run(['--type', 'page', '--out', pages]);
    // The bar counts the events read; the type filter keeps fewer of them.
    expect(paged.stderr).toContain(`100% | ${TOTAL}/${TOTAL} events`);
    expect(paged.stderr).toContain(`Wrote 1002 events to ${pages}.`);
    expect(ndjson(await fs.readFile(pages, 'utf8'))).toHaveLength(1002);
  });

  it('refuses bad arguments with the usage', () => {
    for (const args of [['--type', 'attachment'], ['--since', 'yesterday'], ['--id', 'x'], ['--format', 'xml'], ['--verbose']]) {
      const result = run(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Usage: npm run export:timeline --');
    }
  });
});

const postgres = inject('postgres');

describe.skipIf(!postgres)('npm run export:timeline on the embedded PostgreSQL (skipped on any other database)', () => {
  const direct = () => ({ [EMBEDDED_POSTGRES_ENV]: JSON.stringify(postgres) });

  it('reads the log from PostgreSQL directly and writes exactly what it writes through FerretDB', () => {
    for (const args of [[], ['--format', 'csv'], ['--id', String(ids.deleted)], ['--type', 'page'], ['--since', since], ['--since', since, '--format', 'csv']]) {
      const throughFerretDb = run(args);
      const fromPostgres = run(args, direct());
      expect(fromPostgres.stderr, args.join(' ')).toBe('');
      expect(fromPostgres.status, args.join(' ')).toBe(0);
      expect(fromPostgres.stdout, args.join(' ')).toBe(throughFerretDb.stdout);
    }
    // Erased content is listed by field name: arrays decoded as FerretDB stores them.
    expect(ndjson(run(['--id', String(ids.deleted)], direct()).stdout).some((entry) => entry.redacted.length > 0)).toBe(true);
    // Thirteen runs of the script, each a process of its own: on a loaded machine, past 30 s.
  }, 120_000);

  it('counts the events for its progress bar in PostgreSQL, exactly', async () => {
    const file = path.join(tempDir, 'recent.ndjson');
    const recent = ndjson(run(['--since', since]).stdout).length;
    const result = run(['--since', since, '--out', file], direct());
    expect(result.status).toBe(0);
    // The bar's first line shows the count it started with (its last, the events it read).
    expect(result.stderr.split('\n')[0]).toContain(`0% | 0/${recent} events`);
    expect(ndjson(await fs.readFile(file, 'utf8'))).toHaveLength(recent);
  });

  it('fails, rather than reading through FerretDB, when the PostgreSQL it is told of cannot be reached', () => {
    const result = run([], { [EMBEDDED_POSTGRES_ENV]: JSON.stringify({ ...postgres!, socketDir: path.join(tempDir, 'no-socket') }) });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('psql failed');
    expect(result.stdout).toBe('');
  });
});
