import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DIFF_CHARS } from '../../src/lib/text-diff.js';
import { MAX_PAGE_CHARS, MAX_PAGE_READ_CHARS } from '../../src/resources/changes/changes.schema.js';
import { type CommandStartedEvent } from 'mongodb';
import { changeLog, EVENT_READ_BATCH } from '../../src/store/log/change-log.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

// No answer grows with what the site holds beyond a bound docs/history.md states ("What an answer
// holds"): a page of the change feed over a long post rewritten on every line, again and again, is
// answered within its bound, its diffs cut short and marked, and the rest reached page after page,
// nothing skipped.

let app: TestApp;
/** Told of every command the service sends, while a test listens. */
let listening: ((event: CommandStartedEvent) => void) | undefined;
let author: Awaited<ReturnType<TestApp['asRole']>>;
/** The last position before the long post: where the feed's pages over it start. */
let since: number;
let post: number;
// Enough that the post's events (about 300 KB each) pass what one page of the feed reads.
const UPDATES = 16;

/** Two versions of a 300 KB text of 6,000 lines that differ on every line. */
const version = (name: string) => Array.from({ length: 6000 }, (_, i) => `${name} line ${i} ${'x'.repeat(32)}`).join('\n');

/** A page holds its changes' diffs and items up to MAX_PAGE_CHARS, one change more, and each change's entry. */
const PAGE_BOUND = MAX_PAGE_CHARS + 3 * MAX_DIFF_CHARS + 64 * 1024;

beforeAll(async () => {
  app = await createTestApp({ env: { CMS_RESPONSE_CACHE_BYTES: '0' }, onCommand: (event) => listening?.(event) });
  author = await app.asRole('author');
  since = (await changeLog(app.deps.store.db).firstFreePosition()) - 1;
  const created = await app.api('POST', '/cms/v2/posts', { headers: author.headers, json: { title: 'Long', content: version('first'), status: 'publish' } });
  expect(created.status).toBe(201);
  post = created.body.id;
  for (let i = 0; i < UPDATES; i++) {
    const updated = await app.api('POST', `/cms/v2/posts/${post}`, { headers: author.headers, json: { content: version(i % 2 ? 'first' : 'second') } });
    expect(updated.status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** Every page from `since` to the log's end, each checked against the bound; the changes of all of them, in order. */
async function followToTheEnd(query: Record<string, string | number>, headers: Record<string, string>) {
  const head = (await changeLog(app.deps.store.db).firstFreePosition()) - 1;
  const pages: { changes: Record<string, any>[]; chars: number }[] = [];
  let cursor = since;
  while (cursor < head) {
    const page = await app.api('GET', '/cms/v2/changes', { query: { ...query, since: cursor, limit: 100 }, headers });
    expect(page.status).toBe(200);
    expect(page.text.length).toBeLessThan(PAGE_BOUND);
    expect(page.body.last_position).toBeGreaterThan(cursor);
    pages.push({ changes: page.body.changes, chars: page.text.length });
    cursor = page.body.last_position;
  }
  return { pages, changes: pages.flatMap((page) => page.changes) };
}

describe('a page of the change feed over a long post rewritten on every line', () => {
  it('with include=diff, anonymous: bounded, its diffs cut short and marked, the rest on the next pages', async () => {
    const { pages, changes } = await followToTheEnd({ include: 'diff' }, {});
    expect(pages.length).toBeGreaterThan(1);
    // Nothing skipped, nothing twice: every change of the post once, in order.
    expect(changes.map((change) => [change.item, change.seq])).toEqual(Array.from({ length: UPDATES + 1 }, (_, i) => [post, i + 1]));
    for (const change of changes.slice(1)) {
      const content = change.diff.content;
      expect(content).toMatchObject({ changed: true, minimal: false, truncated: true });
      const [hunk] = content.hunks;
      const chars = hunk.lines.reduce((sum: number, line: string) => sum + line.length, 0);
      expect(chars).toBeLessThanOrEqual(MAX_DIFF_CHARS);
      // Still a true patch of the texts' start: its counts are the lines it holds.
      expect(hunk.oldLines).toBe(hunk.lines.filter((line: string) => line.startsWith('-')).length);
      expect(hunk.newLines).toBe(hunk.lines.filter((line: string) => line.startsWith('+')).length);
      expect(hunk.oldLines).toBeGreaterThan(0);
      expect(hunk.newLines).toBeGreaterThan(0);
      expect(change.diff.title).toEqual({ changed: false, hunks: [] });
    }
  });

  it('with include=diff, as its author: the same bound, the same changes', async () => {
    const { changes } = await followToTheEnd({ include: 'diff' }, author.headers);
    expect(changes.map((change) => change.seq)).toEqual(Array.from({ length: UPDATES + 1 }, (_, i) => i + 1));
    expect(changes[0].diff.content).toMatchObject({ changed: true, truncated: true });
  });

  it('with include=item: each change carries the post, so a page holds as many as the bound allows', async () => {
    const { pages, changes } = await followToTheEnd({ include: 'item' }, {});
    expect(pages.length).toBeGreaterThan(1);
    expect(changes.map((change) => change.seq)).toEqual(Array.from({ length: UPDATES + 1 }, (_, i) => i + 1));
    for (const change of changes) expect(change.object).toMatchObject({ id: post });
  });

  it('without include, anonymous or its author: a page reads about MAX_PAGE_READ_CHARS of events, the rest on the next pages', async () => {
    // Each change carries the post's whole text in the log: a page reads up to the bound, and one more.
    const mostChanges = Math.floor(MAX_PAGE_READ_CHARS / version('first').length) + 1;
    for (const headers of [{}, author.headers]) {
      const { pages, changes } = await followToTheEnd({}, headers);
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) expect(page.changes.length).toBeLessThanOrEqual(mostChanges);
      expect(changes.map((change) => [change.item, change.seq])).toEqual(Array.from({ length: UPDATES + 1 }, (_, i) => [post, i + 1]));
    }
  });

  it('waiting readers of one anonymous page share one answer, each given the whole of it', async () => {
    const query = { since, limit: 100, include: 'diff' };
    const answers = await Promise.all(Array.from({ length: 4 }, () => app.api('GET', '/cms/v2/changes', { query })));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(answers[0].text);
    }
  });
});

describe("the long post's revisions, listed without per_page", () => {
  it('come all of them, as WordPress answers, each written as it is made (chunked, no length known before)', async () => {
    const listed = await app.api('GET', `/cms/v2/posts/${post}/revisions`, { headers: author.headers, query: { context: 'edit' } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-length')).toBeNull();
    expect(listed.headers.get('transfer-encoding')).toBe('chunked');
    expect(listed.headers.get('x-wp-total')).toBe(String(UPDATES));
    // Newest first: the last update wrote the text the loop's last turn chose.
    expect(listed.body.map((revision: { content: { raw: string } }) => revision.content.raw)).toEqual(
      Array.from({ length: UPDATES }, (_, i) => version((UPDATES - 1 - i) % 2 ? 'first' : 'second')),
    );
    expect(listed.body[0]._links.parent[0].href).toMatch(new RegExp(`/posts/${post}$`));

    // The layer's global parameters apply to each item as it goes.
    const ids = listed.body.map((revision: { id: number }) => revision.id);
    const fields = await app.api('GET', `/cms/v2/posts/${post}/revisions`, { headers: author.headers, query: { _fields: 'id,parent' } });
    expect(fields.body).toEqual(ids.map((id: number) => ({ id, parent: post })));
    const envelope = await app.api('GET', `/cms/v2/posts/${post}/revisions`, { headers: author.headers, query: { _fields: 'id', _envelope: '1' } });
    expect(envelope.body).toMatchObject({ status: 200, headers: { 'X-WP-Total': String(UPDATES) }, body: ids.map((id: number) => ({ id })) });
    const jsonp = await app.api('GET', `/cms/v2/posts/${post}/revisions`, { headers: author.headers, query: { _fields: 'id', _jsonp: 'take' } });
    expect(jsonp.text).toBe(`/**/take(${JSON.stringify(ids.map((id: number) => ({ id })))})`);
    const head = await app.api('HEAD', `/cms/v2/posts/${post}/revisions`, { headers: author.headers });
    expect([head.status, head.text, head.headers.get('x-wp-total')]).toEqual([200, '', String(UPDATES)]);
  });
});

/** Whether a read with this projection brings the events' data: none, one that keeps it, or one that only leaves others out. */
function readsData(projection: Record<string, 0 | 1> | undefined): boolean {
  if (!projection || projection.data === 1) return true;
  return projection.data === undefined && !Object.values(projection).includes(1);
}

describe("the long post's log, read for its history and as it stood", () => {
  it('is read a few events a batch (each batch is decoded at once), so an answer holds its own, not the log', async () => {
    // Every read of the log's events with their data that may answer more than one: its batches.
    const batches: (number | undefined)[] = [];
    listening = ({ commandName, command }) => {
      const collection = commandName === 'find' ? command.find : commandName === 'getMore' ? command.collection : undefined;
      if (collection !== 'events' || command.limit === 1 || !readsData(command.projection)) return;
      batches.push(command.batchSize);
    };
    try {
      const page = await app.api('GET', `/cms/v2/posts/${post}/history`, { headers: author.headers });
      expect(page.body.map((entry: { seq: number }) => entry.seq)).toEqual(Array.from({ length: UPDATES + 1 }, (_, i) => i + 1));
      const streamed = await app.api('GET', `/cms/v2/posts/${post}/history`, { headers: { ...author.headers, Accept: 'application/x-ndjson' } });
      expect(streamed.text.trim().split('\n').map((line) => JSON.parse(line).seq)).toEqual(page.body.map((entry: { seq: number }) => entry.seq));
      // As it stood after its second update, alone and in a list: folded from its first event.
      const then = await app.api('GET', `/cms/v2/posts/${post}`, { headers: app.admin, query: { as_of_position: since + 3, context: 'edit' } });
      expect(then.body.content.raw).toBe(version('first'));
      const listed = await app.api('GET', '/cms/v2/posts', { headers: app.admin, query: { as_of_position: since + 3, include: post, context: 'edit' } });
      expect(listed.body.map((item: { content: { raw: string } }) => item.content.raw)).toEqual([version('first')]);
    } finally {
      listening = undefined;
    }
    expect(batches.length).toBeGreaterThan(0);
    for (const batch of batches) expect(batch).toBeLessThanOrEqual(EVENT_READ_BATCH);
  });
});
