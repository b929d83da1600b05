import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startServiceOn, twoServicesOnOneDatabase } from '../support/test-app.js';

// Two processes' worth of the service on one database: each keeps anonymous answers in memory,
// and a write through either is seen by both before it is answered.
const services = twoServicesOnOneDatabase();

const titleOn = async (siteUrl: string, id: number, headers: Record<string, string> = {}) => {
  const response = await fetch(`${siteUrl}/cms-json/cms/v2/posts/${id}?_fields=title`, { headers });
  return { status: response.status, etag: response.headers.get('etag'), title: response.status === 200 ? ((await response.json()) as { title: { rendered: string } }).title.rendered : '' };
};
/** A request as a hostile client may send it: any method with any body (fetch refuses a GET with a body). */
const rawRequest = (siteUrl: string, method: string, path: string, headers: Record<string, string>, body: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(`${siteUrl}${path}`, { method, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: response.statusCode!, body: text }));
    });
    request.on('error', reject).end(body);
  });

describe('answers kept per caller', () => {
  it("keeps a signed-in caller's reads of a revision and of its diff for that caller alone, with an entity tag, until a write", async () => {
    const { app, other } = services;
    const id = (await app.api('POST', '/cms/v2/posts', { headers: app.admin, json: { title: 'Kept revision', status: 'publish' } })).body.id as number;
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { title: 'Kept revision, edited' } })).status).toBe(200);
    const [revision] = (await app.api('GET', `/cms/v2/posts/${id}/revisions`, { headers: app.admin, query: { _fields: 'id' } })).body as { id: number }[];
    const editor = await app.asRole('editor');
    const readOn = async (path: string, headers: Record<string, string>, extra: Record<string, string> = {}) => {
      const response = await fetch(`${other.siteUrl}/cms-json/cms/v2/posts/${id}/revisions/${revision.id}${path}`, { headers: { ...headers, ...extra } });
      return { status: response.status, etag: response.headers.get('etag'), text: response.status === 200 ? await response.text() : '' };
    };
    for (const path of ['', '/diff']) {
      const first = await readOn(path, app.admin);
      expect(first.status, path).toBe(200);
      expect(first.text, path).toContain('Kept revision, edited');
      expect(first.etag, path).toBeTruthy();
      expect((await readOn(path, app.admin, { 'If-None-Match': first.etag! })).status, path).toBe(304);
    }
    // Changed behind every process's back (no write announced it): the caller's kept answers stand.
    await app.deps.store.db.collection<{ _id: number; title: string }>('revisions').updateOne({ _id: revision.id }, { $set: { title: 'Changed unannounced' } });
    for (const path of ['', '/diff']) expect((await readOn(path, app.admin)).text, path).toContain('Kept revision, edited');
    // Another caller is not answered with what was kept for the first.
    expect((await readOn('', editor.headers)).text).toContain('Changed unannounced');
    // A write, through the other process, empties what was kept.
    expect((await app.api('POST', `/cms/v2/posts/${id}`, { headers: app.admin, json: { excerpt: 'Written' } })).status).toBe(200);
    expect((await readOn('', app.admin)).text).toContain('Changed unannounced');
  });
});

describe('the anonymous response cache', () => {
  it('answers anonymous reads from memory, with an entity tag and 304 for a client that has it', async () => {
    const post = await services.app.api('POST', '/cms/v2/posts', { headers: services.app.admin, json: { title: 'Cached', status: 'publish' } });
    const first = await titleOn(services.other.siteUrl, post.body.id);
    expect(first).toMatchObject({ status: 200, title: 'Cached' });
    expect(first.etag).toBeTruthy();
    const conditional = await fetch(`${services.other.siteUrl}/cms-json/cms/v2/posts/${post.body.id}?_fields=title`, { headers: { 'If-None-Match': first.etag! } });
    expect(conditional.status).toBe(304);
    // Changed behind every process's back (no write announced it): the cached answer stands.
    await services.app.deps.store.db.collection('posts').updateOne({ _id: post.body.id }, { $set: { title: 'Changed unannounced' } });
    expect((await titleOn(services.other.siteUrl, post.body.id)).title).toBe('Cached');
    // A logged-in reader is never answered from the cache.
    expect((await titleOn(services.other.siteUrl, post.body.id, services.app.admin)).title).toBe('Changed unannounced');
  });

  it('shows a write at once in the process that made it and in the other', async () => {
    const post = await services.app.api('POST', '/cms/v2/posts', { headers: services.app.admin, json: { title: 'Before', status: 'publish' } });
    expect((await titleOn(services.app.siteUrl, post.body.id)).title).toBe('Before');
    expect((await titleOn(services.other.siteUrl, post.body.id)).title).toBe('Before');
    const list = await fetch(`${services.other.siteUrl}/cms-json/cms/v2/posts?_fields=id,title&per_page=100`);
    expect(((await list.json()) as { id: number }[]).map((item) => item.id)).toContain(post.body.id);

    const updated = await services.app.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: services.app.admin, json: { title: 'After' } });
    expect(updated.status).toBe(200);
    expect((await titleOn(services.app.siteUrl, post.body.id)).title).toBe('After');
    expect((await titleOn(services.other.siteUrl, post.body.id)).title).toBe('After');

    const deleted = await fetch(`${services.other.siteUrl}/cms-json/cms/v2/posts/${post.body.id}?force=true`, { method: 'DELETE', headers: services.app.admin });
    expect(deleted.status).toBe(200);
    expect((await titleOn(services.other.siteUrl, post.body.id)).status).toBe(404);
    expect((await titleOn(services.app.siteUrl, post.body.id)).status).toBe(404);
  });

  it('computes a burst of misses for one address once', async () => {
    const postReads: string[] = [];
    const counted = await startServiceOn(services.app.databaseName, {
      onCommand: (event) => {
        if (event.command[event.commandName] === 'posts') postReads.push(event.commandName);
      },
    });
    try {
      await services.app.api('POST', '/cms/v2/posts', { headers: services.app.admin, json: { title: 'Burst', status: 'publish' } });
      const page = (query: string) => fetch(`${counted.siteUrl}/cms-json/cms/v2/posts?${query}`).then((response) => response.status);
      expect(await page('per_page=3')).toBe(200);
      const alone = postReads.length;
      postReads.length = 0;
      expect(await Promise.all(Array.from({ length: 16 }, () => page('per_page=4')))).toEqual(Array(16).fill(200));
      expect(alone).toBeGreaterThan(0);
      expect(postReads.length).toBeLessThanOrEqual(alone);
    } finally {
      await counted.stop();
    }
  });

  describe('keeps only what nothing but its key shaped', () => {
    const publish = async (title: string) => (await services.app.api('POST', '/cms/v2/posts', { headers: services.app.admin, json: { title, status: 'publish' } })).body.id as number;

    it('never keeps a read made through a method override, whose body may carry parameters', async () => {
      const [target, other_] = [await publish('Override target'), await publish('Override other')];
      for (const override of [{ headers: { 'X-HTTP-Method-Override': 'GET' }, query: '' }, { headers: {} as Record<string, string>, query: '?_method=GET' }]) {
        const path = `/cms-json/cms/v2/posts/${target}${override.query}`;
        const poisoned = await rawRequest(services.app.siteUrl, 'POST', path, { ...override.headers, 'Content-Type': 'application/json' }, JSON.stringify({ id: other_ }));
        expect(JSON.parse(poisoned.body).id).toBe(other_);
        const read = await fetch(`${services.app.siteUrl}/cms-json/cms/v2/posts/${target}${override.query}`);
        expect(((await read.json()) as { id: number }).id).toBe(target);
      }
    });

    it('never keeps, nor answers from memory, a read that came with a body', async () => {
      await publish('Listed while someone searches');
      for (const [type, body] of [['application/x-www-form-urlencoded', 'search=zzzznomatch'], ['application/json', '{"search":"zzzznomatch"}']]) {
        const searched = await rawRequest(services.app.siteUrl, 'GET', '/cms-json/cms/v2/posts', { 'Content-Type': type }, body);
        expect(searched.status).toBe(200);
        const plain = await fetch(`${services.app.siteUrl}/cms-json/cms/v2/posts`);
        expect(Number(plain.headers.get('x-wp-total'))).toBeGreaterThan(0);
        // And a read with a body is not answered with what a plain read left in memory.
        const again = await rawRequest(services.app.siteUrl, 'GET', '/cms-json/cms/v2/posts', { 'Content-Type': type }, body);
        expect(JSON.parse(again.body)).toEqual(JSON.parse(searched.body));
      }
    });
  });
});
