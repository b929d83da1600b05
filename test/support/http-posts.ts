// Arranges posts and pages as a client does, over HTTP, each step checked: what black-box tests
// set their data up with (post-fixtures.ts appends to the log directly, for volume).
import { expect } from 'vitest';
import { type TestApp } from './test-app.js';

export type Headers = Record<string, string>;
type Item = Record<string, any>;

/** Which collection (posts unless `type` is `page`), and who asks (the administrator unless `headers` say). */
export interface AsWho {
  type?: 'post' | 'page';
  headers?: Headers;
}

const collectionOf = (type: string | undefined) => (type === 'page' ? '/cms/v2/pages' : '/cms/v2/posts');

async function expectStatus<T = Item>(answer: Promise<{ status: number; body: any }>, status: number): Promise<T> {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
}

/** Creates an item: a draft titled "A title" unless `json` says otherwise. */
export function createItem(app: TestApp, json: Item = {}, who: AsWho = {}): Promise<Item> {
  return expectStatus(app.api('POST', collectionOf(who.type), { headers: who.headers ?? app.admin, json: { title: 'A title', ...json } }), 201);
}

export function updateItem(app: TestApp, id: number, json: Item, who: AsWho = {}): Promise<Item> {
  return expectStatus(app.api('POST', `${collectionOf(who.type)}/${id}`, { headers: who.headers ?? app.admin, json }), 200);
}

export function autosaveItem(app: TestApp, id: number, json: Item, headers: Headers, type?: 'post' | 'page'): Promise<Item> {
  return expectStatus(app.api('POST', `${collectionOf(type)}/${id}/autosaves`, { headers, json }), 200);
}

/** Moves an item to the trash, or with `force` deletes it for good. */
export function deleteItem(app: TestApp, id: number, who: AsWho & { force?: boolean } = {}): Promise<Item> {
  return expectStatus(app.api('DELETE', `${collectionOf(who.type)}/${id}`, { headers: who.headers ?? app.admin, query: who.force ? { force: true } : {} }), 200);
}

/** The item's revisions, newest first, in edit context. */
export function revisionsOf(app: TestApp, id: number, type?: 'post' | 'page'): Promise<Item[]> {
  return expectStatus<Item[]>(app.api('GET', `${collectionOf(type)}/${id}/revisions`, { headers: app.admin, query: { context: 'edit', per_page: 100 } }), 200);
}

/** The item's autosaves, one per user who made one, in edit context. */
export function autosavesOf(app: TestApp, id: number, type?: 'post' | 'page'): Promise<Item[]> {
  return expectStatus<Item[]>(app.api('GET', `${collectionOf(type)}/${id}/autosaves`, { headers: app.admin, query: { context: 'edit' } }), 200);
}

export function restoreRevisionOf(app: TestApp, id: number, revision: number, who: AsWho = {}): Promise<Item> {
  return expectStatus(app.api('POST', `${collectionOf(who.type)}/${id}/revisions/${revision}/restore`, { headers: who.headers ?? app.admin }), 200);
}

/** Deletes a revision or an autosave of the item. */
export function deleteRevisionOf(app: TestApp, id: number, revision: number, who: AsWho = {}): Promise<Item> {
  return expectStatus(app.api('DELETE', `${collectionOf(who.type)}/${id}/revisions/${revision}`, { headers: who.headers ?? app.admin, query: { force: true } }), 200);
}
