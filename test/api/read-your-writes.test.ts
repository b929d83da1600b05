import { describe, expect, it } from 'vitest';
import { basic, twoServicesOnOneDatabase } from '../support/test-app.js';

// Two service processes on one database, each keeping what it may in memory (settings, verified
// users, anonymous answers, fault flags). A write answered by one is seen by the other at once:
// no waiting between the write and the read in any test below.
const services = twoServicesOnOneDatabase();

const onOther = async (method: string, route: string, headers: Record<string, string> = {}, json?: unknown) => {
  const response = await fetch(`${services.other.siteUrl}/cms-json${route}`, {
    method,
    headers: { ...headers, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as any };
};

describe('a write answered by one process is seen at once by another', () => {
  it('settings, for those who read them and in the anonymous index', async () => {
    for (const title of ['First title', 'Second title', 'Third title']) {
      // The other process has just read (and kept) the previous title.
      await onOther('GET', '/cms/v2/settings', services.app.admin);
      await onOther('GET', '/');
      expect((await services.app.api('POST', '/cms/v2/settings', { headers: services.app.admin, json: { title } })).status).toBe(200);
      expect((await onOther('GET', '/cms/v2/settings', services.app.admin)).body.title).toBe(title);
      expect((await onOther('GET', '/')).body.name).toBe(title);
    }
  });

  it('a changed password: the old one is refused, the new one taken', async () => {
    const user = await services.app.asRole('author');
    let password = user.password;
    for (let change = 1; change <= 3; change++) {
      expect((await onOther('GET', '/cms/v2/users/me', basic(user.username, password))).status).toBe(200);
      const next = `changed-${change}-${password}`;
      expect((await services.app.api('POST', `/cms/v2/users/${user.id}`, { headers: services.app.admin, json: { password: next } })).status).toBe(200);
      expect((await onOther('GET', '/cms/v2/users/me', basic(user.username, password))).status).toBe(401);
      expect((await onOther('GET', '/cms/v2/users/me', basic(user.username, next))).status).toBe(200);
      password = next;
    }
  });

  it('a changed role', async () => {
    const user = await services.app.asRole('author');
    expect((await onOther('POST', '/cms/v2/posts', user.headers, { title: 'While an author' })).status).toBe(201);
    expect((await services.app.api('POST', `/cms/v2/users/${user.id}`, { headers: services.app.admin, json: { roles: ['subscriber'] } })).status).toBe(200);
    expect((await onOther('POST', '/cms/v2/posts', user.headers, { title: 'Once a subscriber' })).status).toBe(403);
    expect((await onOther('GET', '/cms/v2/users/me', user.headers, undefined)).body.id).toBe(user.id);
  });

  it('a deleted user', async () => {
    const user = await services.app.asRole('editor');
    expect((await onOther('GET', '/cms/v2/users/me', user.headers)).status).toBe(200);
    expect((await services.app.api('DELETE', `/cms/v2/users/${user.id}`, { headers: services.app.admin, query: { force: true, reassign: 1 } })).status).toBe(200);
    expect((await onOther('GET', '/cms/v2/users/me', user.headers)).status).toBe(401);
  });

  it("a plugin's block types", async () => {
    expect((await services.app.api('POST', '/cms/v2/plugins', { headers: services.app.admin, json: { slug: 'hello-blocks', status: 'active' } })).status).toBe(201);
    const names = async () => ((await onOther('GET', '/cms/v2/block-types', services.app.admin)).body as { name: string }[]).map((type) => type.name);
    expect((await names()).some((name) => name.startsWith('hello-blocks/'))).toBe(true);
    expect((await services.app.api('POST', '/cms/v2/plugins/hello-blocks/hello-blocks', { headers: services.app.admin, json: { status: 'inactive' } })).status).toBe(200);
    expect((await names()).some((name) => name.startsWith('hello-blocks/'))).toBe(false);
  });

  it("the theme's global styles", async () => {
    const themes = await services.app.api('GET', '/cms/v2/themes', { headers: services.app.admin, query: { status: ['active'] } });
    const route = (themes.body[0]._links['wp:user-global-styles'][0].href as string).slice(services.app.apiRoot.length);
    for (const color of ['#111111', '#222222']) {
      await onOther('GET', route, services.app.admin);
      expect((await services.app.api('POST', route, { headers: services.app.admin, json: { styles: { color: { text: color } } } })).status).toBe(200);
      expect((await onOther('GET', route, services.app.admin)).body.styles).toEqual({ color: { text: color } });
    }
  });

  it('anonymous answers, item and list', async () => {
    const post = await services.app.api('POST', '/cms/v2/posts', { headers: services.app.admin, json: { title: 'Version 1', status: 'publish' } });
    for (let version = 2; version <= 4; version++) {
      expect((await onOther('GET', `/cms/v2/posts/${post.body.id}`)).body.title.rendered).toBe(`Version ${version - 1}`);
      await onOther('GET', '/cms/v2/posts?per_page=100');
      await services.app.api('POST', `/cms/v2/posts/${post.body.id}`, { headers: services.app.admin, json: { title: `Version ${version}` } });
      expect((await onOther('GET', `/cms/v2/posts/${post.body.id}`)).body.title.rendered).toBe(`Version ${version}`);
      const list = (await onOther('GET', '/cms/v2/posts?per_page=100')).body as { id: number; title: { rendered: string } }[];
      expect(list.find((item) => item.id === post.body.id)?.title.rendered).toBe(`Version ${version}`);
    }
  });

  it("lists, which each process answers from the list index it keeps: an item's arrival, order, status and removal", async () => {
    const listed = async (query: string) => {
      const response = await fetch(`${services.other.siteUrl}/cms-json/cms/v2/posts?per_page=100&context=edit&${query}`, { headers: services.app.admin });
      return { ids: ((await response.json()) as { id: number }[]).map((item) => item.id), total: Number(response.headers.get('X-WP-Total')) };
    };
    const write = async (route: string, json: unknown) => (await services.app.api('POST', route, { headers: services.app.admin, json })).body;
    const before = await listed('');
    const post = await write('/cms/v2/posts', { title: 'Listed', status: 'publish', date: '1990-01-01T00:00:00' });
    expect((await listed('order=asc')).ids[0]).toBe(post.id);
    expect((await listed('')).total).toBe(before.total + 1);
    const next = await write('/cms/v2/posts', { title: 'Listed next', status: 'publish', date: '1991-01-01T00:00:00' });
    expect((await listed('order=asc')).ids.slice(0, 2)).toEqual([post.id, next.id]);
    await write(`/cms/v2/posts/${post.id}`, { date: '1992-01-01T00:00:00' });
    expect((await listed('order=asc')).ids.slice(0, 2)).toEqual([next.id, post.id]);
    await write(`/cms/v2/posts/${post.id}`, { status: 'draft' });
    expect((await listed('')).ids).not.toContain(post.id);
    expect((await listed('status=draft')).ids).toContain(post.id);
    const deleted = await services.app.api('DELETE', `/cms/v2/posts/${post.id}`, { headers: services.app.admin, query: { force: true } });
    expect(deleted.status).toBe(200);
    expect((await listed('status=draft')).ids).not.toContain(post.id);
    expect((await listed('')).total).toBe(before.total + 1);
  });
});
