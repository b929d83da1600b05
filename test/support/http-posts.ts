// Arranges posts and pages as a client does, over HTTP, each step checked: what black-box tests
// set their data up with (post-fixtures.ts appends to the log directly, for volume).
import { expect } from 'vitest';
import { type TestApp } from './test-app.js';

export type Headers = Record<string, string>;
type Item = Record<string, any>;

const collectionOf = (type: 'post' | 'page') => (type === 'page' ? '/cms/v2/pages' : '/cms/v2/posts');

async function expectStatus(answer: Promise<{ status: number; body: any }>, status: number): Promise<Item> {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
}

/** Creates a post (a draft titled "A title" unless `json` says otherwise), as the administrator unless `headers` say who. */
export function createItem(app: TestApp, json: Item = {}, options: { type?: 'post' | 'page'; headers?: Headers } = {}): Promise<Item> {
  return expectStatus(app.api('POST', collectionOf(options.type ?? 'post'), { headers: options.headers ?? app.admin, json: { title: 'A title', ...json } }), 201);
}

export function updateItem(app: TestApp, id: number, json: Item, options: { type?: 'post' | 'page'; headers?: Headers } = {}): Promise<Item> {
  return expectStatus(app.api('POST', `${collectionOf(options.type ?? 'post')}/${id}`, { headers: options.headers ?? app.admin, json }), 200);
}

export function autosaveItem(app: TestApp, id: number, json: Item, headers: Headers): Promise<Item> {
  return expectStatus(app.api('POST', `/cms/v2/posts/${id}/autosaves`, { headers, json }), 200);
}

/** Moves an item to the trash, or with `force` deletes it for good. */
export function deleteItem(app: TestApp, id: number, options: { force?: boolean } = {}): Promise<Item> {
  return expectStatus(app.api('DELETE', `/cms/v2/posts/${id}`, { headers: app.admin, query: options.force ? { force: true } : {} }), 200);
}

/** The item's revisions, newest first, in edit context. */
export function revisionsOf(app: TestApp, id: number): Promise<Item[]> {
  return expectStatus(app.api('GET', `/cms/v2/posts/${id}/revisions`, { headers: app.admin, query: { context: 'edit', per_page: 100 } }), 200) as Promise<Item[]>;
}

export function restoreRevisionOf(app: TestApp, id: number, revision: number, headers: Headers): Promise<Item> {
  return expectStatus(app.api('POST', `/cms/v2/posts/${id}/revisions/${revision}/restore`, { headers }), 200);
}

export function deleteRevisionOf(app: TestApp, id: number, revision: number): Promise<Item> {
  return expectStatus(app.api('DELETE', `/cms/v2/posts/${id}/revisions/${revision}`, { headers: app.admin, query: { force: true } }), 200);
}
