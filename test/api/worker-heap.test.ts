import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { baseEnv, runService, type ServiceProcess } from '../support/service-process.js';

// The heaviest requests a worker answers, each answered in full by a worker whose old generation
// is capped as `npm start` caps it (CMS_WORKER_HEAP_MB, 96 MiB unless set).
const PASSWORD = 'worker-heap-test-password';
const ADMIN = { Authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
const JSON_ADMIN = { ...ADMIN, 'Content-Type': 'application/json' };
const REVISIONS = 2000;
const BATCH = 25;

let service: ServiceProcess;
let api: string;

const batch = async (requests: { method?: string; path: string; body: object }[]) => {
  const response = await fetch(`${api}/batch/v1`, { method: 'POST', headers: JSON_ADMIN, body: JSON.stringify({ requests }) });
  expect(response.status).toBe(207);
  const { responses } = (await response.json()) as { responses: { status: number; body: { id: number } }[] };
  expect(responses).toHaveLength(requests.length);
  for (const each of responses) expect(each.status).toBeLessThan(300);
  return responses.map((each) => each.body);
};

/** What the service logged as errors, to say why an answer was not the one expected. */
const loggedErrors = () => JSON.stringify(service.lines().filter((line) => Number(line.level) >= 50)).slice(0, 4000);

/** The feed's last position, read on from `since`. */
const headOfFeed = async (since: number) => {
  for (let last = -1; last !== since; ) {
    last = since;
    since = Number((await fetch(`${api}/cms/v2/changes?limit=500&since=${last}`, { headers: ADMIN })).headers.get('x-cms-last-position'));
  }
  return since;
};

beforeAll(async () => {
  const uri = new ConnectionString(inject('mongodbUri'));
  uri.pathname = `/worker_heap_${process.pid}`;
  service = runService(baseEnv({ MONGODB_URI: uri.toString(), CMS_WORKERS: '2', CMS_ADMIN_PASSWORD: PASSWORD }));
  const listening = await service.waitForLog((line) => line.msg === 'listening');
  api = `${String(listening.url)}/cms-json`;
}, 120_000);

afterAll(async () => {
  service.child.kill('SIGTERM');
  await service.exited;
});

describe('workers under their old-generation cap', () => {
  it('run with the cap', () => {
    const workers = service.lines().filter((line) => line.msg === 'worker ready').map((line) => line.worker as number);
    const capped = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--max-old-space-size=96');
    expect(workers.every(capped)).toBe(true);
  });

  it('answer a batch of 25 writes, then a list of 100 posts with _embed', async () => {
    for (let round = 0; round < 100 / BATCH; round++) {
      const content = (n: number) => `<!-- wp:paragraph --><p>${randomBytes(1500).toString('base64')} ${n}</p><!-- /wp:paragraph -->`;
      await batch(Array.from({ length: BATCH }, (_, n) => ({ path: '/cms/v2/posts', body: { title: `Heavy ${round}.${n}`, content: content(n), status: 'publish' } })));
    }
    const list = await fetch(`${api}/cms/v2/posts?per_page=100&_embed=1&context=edit`, { headers: ADMIN });
    expect(list.status).toBe(200);
    const posts = (await list.json()) as { _embedded: { author: unknown[] } }[];
    expect(posts).toHaveLength(100);
    expect(posts.every((post) => post._embedded.author.length === 1)).toBe(true);
  }, 120_000);

  it(`stream the history of a post with ${REVISIONS} revisions`, async () => {
    const [{ id }] = await batch([{ path: '/cms/v2/posts', body: { title: 'Long history', content: 'First' } }]);
    for (let done = 0; done < REVISIONS; done += BATCH) {
      await batch(Array.from({ length: BATCH }, (_, n) => ({ path: `/cms/v2/posts/${id}`, body: { content: `Revision ${done + n}: ${'words '.repeat(100)}` } })));
    }
    const history = await fetch(`${api}/cms/v2/posts/${id}/history`, { headers: { ...ADMIN, Accept: 'application/x-ndjson' } });
    expect(history.status).toBe(200);
    const lines = (await history.text()).split('\n').filter(Boolean);
    // Its creation and every update.
    expect(lines).toHaveLength(REVISIONS + 1);
  }, 600_000);

  it('store the largest post a logged-in caller may send, six times over, read each back, answer a feed page over them, update each, and follow the feed over the updates', async () => {
    const since = await headOfFeed(0);
    // One word as long as the body may carry: its excerpt is the whole word, as wp_trim_words leaves it.
    const content = 'a'.repeat(loadConfig({}).bodyLimitBytes - 1024);
    const ids: number[] = [];
    for (let round = 0; round < 6; round++) {
      const created = await fetch(`${api}/cms/v2/posts`, { method: 'POST', headers: JSON_ADMIN, body: JSON.stringify({ title: `Largest ${round}`, content, status: 'publish' }) });
      expect(created.status, loggedErrors()).toBe(201);
      const { id } = (await created.json()) as { id: number };
      ids.push(id);
      const read = await fetch(`${api}/cms/v2/posts/${id}?context=edit`, { headers: ADMIN });
      expect(((await read.json()) as { content: { raw: string } }).content.raw).toHaveLength(content.length);
    }
    // A page reads its first events by key: read whole at once, six of these ran a worker out of heap.
    for (const include of ['none', 'item']) {
      const page = await fetch(`${api}/cms/v2/changes?since=${since}&limit=100&include=${include}`);
      expect(page.status).toBe(200);
      expect(((await page.json()) as { changes: unknown[] }).changes.length).toBeGreaterThan(0);
    }
    // Small changes of each, answered in full as an editor's update is: raw and rendered content and
    // the rendered excerpt, about 50 MB of JSON, besides the item before and after and its first revision.
    const sinceRetitled = await headOfFeed(since);
    for (const id of ids) {
      const updated = await fetch(`${api}/cms/v2/posts/${id}`, { method: 'POST', headers: JSON_ADMIN, body: JSON.stringify({ title: `Retitled ${id}` }) });
      expect(updated.status, loggedErrors()).toBe(200);
      const post = (await updated.json()) as { title: { raw: string }; content: { raw: string; rendered: string } };
      expect(post.title.raw).toBe(`Retitled ${id}`);
      expect(post.content.raw).toHaveLength(content.length);
    }
    // A page over them loaded every item it touched at once, and folded each one's states.
    for (const headers of [{}, ADMIN]) {
      const retitled: number[] = [];
      for (let from = sinceRetitled, last = -1; last !== from; ) {
        last = from;
        const page = await fetch(`${api}/cms/v2/changes?since=${from}&limit=100`, { headers });
        expect(page.status).toBe(200);
        retitled.push(...((await page.json()) as { changes: { item: number }[] }).changes.map((change) => change.item));
        from = Number(page.headers.get('x-cms-last-position'));
      }
      expect(retitled).toEqual(ids);
    }
    expect(service.lines().filter((line) => line.msg === 'worker died; starting another')).toEqual([]);
  }, 600_000);

  it('take a 10 MB image upload and make its sizes', async () => {
    const width = 3200;
    const height = 2400;
    const noise = randomBytes(width * height * 3);
    const jpeg = await sharp(noise, { raw: { width, height, channels: 3 } }).jpeg({ quality: 100 }).toBuffer();
    expect(jpeg.length).toBeGreaterThan(10 * 1024 * 1024);
    const upload = await fetch(`${api}/cms/v2/media`, {
      method: 'POST',
      headers: { ...ADMIN, 'Content-Type': 'image/jpeg', 'Content-Disposition': 'attachment; filename="noise.jpg"' },
      body: new Uint8Array(jpeg),
    });
    expect(upload.status).toBe(201);
    const media = (await upload.json()) as { media_details: { sizes: Record<string, unknown> } };
    expect(Object.keys(media.media_details.sizes).length).toBeGreaterThan(1);
  }, 120_000);
});
