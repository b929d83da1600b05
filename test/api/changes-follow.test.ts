import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteChanges, updatePost } from '../../src/resources/posts/post.commands.js';
import { givenPost } from '../support/post-fixtures.js';
import { baseEnv } from '../support/service-process.js';
import { ADMIN_PASSWORD, createTestApp, type TestApp } from '../support/test-app.js';

// Runs the built script (the test command builds first), as `npm run changes:follow` does; the
// service runs in this process, so the script must run beside it, never blocking it.
const SCRIPT = 'dist/scripts/changes-follow.js';
const run = promisify(execFile);

let app: TestApp;
let tempDir: string;

beforeAll(async () => {
  app = await createTestApp();
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-changes-'));
});
afterAll(async () => {
  await app?.stop();
  if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
});

async function follow(args: string[], user = true): Promise<{ lines: Record<string, any>[]; stderr: string }> {
  const env = baseEnv(user ? { CMS_PASSWORD: ADMIN_PASSWORD } : {});
  const { stdout, stderr } = await run(process.execPath, [SCRIPT, '--url', app.siteUrl, ...(user ? ['--user', 'admin'] : []), ...args], { env, maxBuffer: 64 * 1024 * 1024 });
  return { lines: stdout === '' ? [] : stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, any>), stderr };
}

describe('npm run changes:follow', () => {
  it('prints the feed as NDJSON from --since, then resumes from its cursor file', async () => {
    const cursor = path.join(tempDir, 'cursor');
    const post = await givenPost(app.deps, { title: 'Followed' });
    await updatePost(app.deps, post._id, siteChanges({ title: 'Followed again' }), 1);
    const feed = (await app.api('GET', '/cms/v2/changes', { headers: app.admin, query: { since: 0, limit: 500 } })).body;

    const first = await follow(['--since', '0', '--cursor', cursor, '--limit', '1']);
    expect(first.lines).toEqual(feed.changes);
    expect((await fs.readFile(cursor, 'utf8')).trim()).toBe(String(feed.last_position));
    expect(first.stderr).toMatch(new RegExp(`changes: ${feed.changes.length} printed \\| position ${feed.last_position} \\| \\d+ changes/s`));

    // Nothing new: nothing printed.
    expect((await follow(['--cursor', cursor])).lines).toEqual([]);
    await updatePost(app.deps, post._id, siteChanges({ title: 'Followed a third time' }), 1);
    const resumed = await follow(['--cursor', cursor, '--include', 'diff']);
    expect(resumed.lines.map((change) => [change.item, change.seq, change.diff.title.changed])).toEqual([[post._id, 3, true]]);
  });

  it('reads anonymously without --user, and filters', async () => {
    const cursor = path.join(tempDir, 'anonymous');
    const published = await givenPost(app.deps, { title: 'Public', status: 'publish', dateGmt: '2024-05-06T07:08:09' });
    const draft = await givenPost(app.deps, { title: 'Hidden draft' });
    const { lines } = await follow(['--since', '0', '--cursor', cursor, '--subtypes', 'created'], false);
    expect(lines.every((change) => change.type === 'created')).toBe(true);
    expect(lines.map((change) => change.item)).toContain(published._id);
    expect(lines.map((change) => change.item)).not.toContain(draft._id);
  });
});
