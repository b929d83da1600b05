// Menus a describe's menu items go in, made before its tests, so that no describe shares a menu
// (and the menu order of its items) with another.
import { randomBytes } from 'node:crypto';
import { beforeAll, expect } from 'vitest';
import { later, type TestApp } from './test-app.js';

/** A menu of the enclosing `describe`, made by the administrator before its tests (a name is unique: a suffix makes it so). */
export function menuFor(app: TestApp, name: string): { readonly id: number } {
  let menu: { id: number } | undefined;
  beforeAll(async () => {
    const created = await app.api('POST', '/cms/v2/menus', { headers: app.admin, json: { name: `${name} ${randomBytes(3).toString('hex')}` } });
    expect(created.status, created.text).toBe(201);
    menu = { id: created.body.id };
  });
  return later(`the menu ${name}`, () => menu);
}
