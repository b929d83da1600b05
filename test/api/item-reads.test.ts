import { type CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentServiceWork } from '../../src/store/queries/service-work.js';
import { createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';

type Headers = Record<string, string>;
type Json = Record<string, any>;

// A write to an item of a history type reads the item once: its permission check, its handler,
// the command it runs and the `Allow` header's checks share that read. (After the commit the
// kernel asks for the item's version alone, which is not counted here: it reads no item.)
const ITEM_COLLECTIONS = new Set(['posts', 'menu_items', 'templates']);

let app: TestApp;
let reads: { items: number; autosaves: number; revisions: Map<number, number> };

function count(event: CommandStartedEvent): void {
  if (currentServiceWork() !== 'request' || event.commandName !== 'find') return;
  const collection = String(event.command.find);
  const filter = (event.command.filter ?? {}) as Json;
  // Whole items only: the post-commit check and existence probes ask for a few fields.
  if (ITEM_COLLECTIONS.has(collection) && !event.command.projection) reads.items++;
  if (collection === 'revisions' && 'autosaveOf' in filter) reads.autosaves++;
  if (collection === 'revisions' && typeof filter._id === 'number') reads.revisions.set(filter._id, (reads.revisions.get(filter._id) ?? 0) + 1);
}

beforeAll(async () => {
  app = await createTestApp({ onCommand: count });
});
afterAll(async () => {
  await app?.stop();
});

/** The answer to a request, and what it read while it was served. */
async function counted(method: string, route: string, json?: Json, headers: Headers = app.admin): Promise<{ response: ApiResponse; reads: typeof reads }> {
  reads = { items: 0, autosaves: 0, revisions: new Map() };
  const response = await app.api(method, `/cms/v2${route}`, { headers, ...(json ? { json } : {}) });
  expect(response.status, response.text).toBe(200);
  return { response, reads };
}

/** The id of the item's revision whose `field` holds `raw`. */
async function revisionWith(route: string, field: string, raw: string): Promise<number> {
  const list = await app.api('GET', `/cms/v2${route}/revisions`, { headers: app.admin, query: { context: 'edit' } });
  expect(list.status).toBe(200);
  const found = list.body.find((revision: Json) => revision[field].raw === raw);
  expect(found, `a revision with ${field} ${raw}`).toBeDefined();
  return found.id;
}

describe('a write to an item reads the item once', () => {
  it('posts: an autosave (another user’s, and the author’s draft in place), an update, a restore and a revision delete', async () => {
    const author = await app.asRole('author');
    const published = (await app.api('POST', '/cms/v2/posts', { headers: author.headers, json: { title: 'Read once', content: 'first', status: 'publish' } })).body;
    for (const content of ['second', 'third']) await counted('POST', `/posts/${published.id}`, { content });

    const autosave = await counted('POST', `/posts/${published.id}/autosaves`, { content: 'autosaved' });
    expect(autosave.response.body).toMatchObject({ parent: published.id, content: { raw: 'autosaved' } });
    expect(autosave.response.headers.get('allow')).toBe('GET, POST');
    expect(autosave.reads).toMatchObject({ items: 1, autosaves: 1 });

    const draft = (await app.api('POST', '/cms/v2/posts', { headers: author.headers, json: { title: 'Own draft' } })).body;
    const inPlace = await counted('POST', `/posts/${draft.id}/autosaves`, { title: 'Own draft, autosaved' }, author.headers);
    expect(inPlace.response.body).toMatchObject({ id: draft.id, title: { raw: 'Own draft, autosaved' } });
    expect(inPlace.reads.items).toBe(1);

    expect((await counted('POST', `/posts/${published.id}`, { title: 'Read once, updated' })).reads.items).toBe(1);

    const older = await revisionWith(`/posts/${published.id}`, 'content', 'second');
    const newest = await revisionWith(`/posts/${published.id}`, 'title', 'Read once, updated');
    const restored = await counted('POST', `/posts/${published.id}/revisions/${older}/restore`);
    expect(restored.response.body.content.raw).toBe('second');
    expect(restored.reads.items).toBe(1);

    const deleted = await counted('DELETE', `/posts/${published.id}/revisions/${newest}?force=true`);
    expect(deleted.response.body).toMatchObject({ deleted: true, previous: { id: newest } });
    expect(deleted.reads.items).toBe(1);
    expect(deleted.reads.revisions.get(newest)).toBe(1);
  });

  it('menu items: an update, an autosave, a restore and a revision delete', async () => {
    const menu = (await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: 'Read once' } })).body.id;
    const item = (await app.api('POST', '/cms/v2/menu-items', { headers: app.admin, json: { menus: menu, title: 'Shop', url: 'https://example.org/shop', status: 'publish' } })).body;
    const updated = await counted('POST', `/menu-items/${item.id}`, { title: 'Store' });
    expect(updated.response.body.title.raw).toBe('Store');
    expect(updated.reads.items).toBe(1);
    await counted('POST', `/menu-items/${item.id}`, { title: 'Market' });

    for (const title of ['Autosaved', 'Autosaved again']) {
      const autosave = await counted('POST', `/menu-items/${item.id}/autosaves`, { title });
      expect(autosave.response.body).toMatchObject({ parent: item.id, title: { raw: title } });
      expect(autosave.reads).toMatchObject({ items: 1, autosaves: 1 });
    }

    const older = await revisionWith(`/menu-items/${item.id}`, 'title', 'Store');
    const newest = await revisionWith(`/menu-items/${item.id}`, 'title', 'Market');
    const restored = await counted('POST', `/menu-items/${item.id}/revisions/${older}/restore`);
    expect(restored.response.body.title.raw).toBe('Store');
    expect(restored.reads.items).toBe(1);

    const deleted = await counted('DELETE', `/menu-items/${item.id}/revisions/${newest}?force=true`);
    expect(deleted.reads.items).toBe(1);
    expect(deleted.reads.revisions.get(newest)).toBe(1);
  });

  it('templates: an autosave and a restore', async () => {
    const created = (await app.api('POST', '/cms/v2/templates', { headers: app.admin, json: { slug: 'read-once', content: 'first' } })).body;
    for (const content of ['second', 'third']) await counted('POST', `/templates/${created.id}`, { content });

    const autosave = await counted('POST', `/templates/${created.id}/autosaves`, { content: 'autosaved' });
    expect(autosave.response.body.content.raw).toBe('autosaved');
    expect(autosave.reads).toMatchObject({ items: 1, autosaves: 1 });

    const older = await revisionWith(`/templates/${created.id}`, 'content', 'second');
    const restored = await counted('POST', `/templates/${created.id}/revisions/${older}/restore`);
    expect(restored.response.body.content.raw).toBe('second');
    expect(restored.reads.items).toBe(1);
  });
});
