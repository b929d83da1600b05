import { describe, expect, it } from 'vitest';
import { type Db } from 'mongodb';
import { type Deps } from '../deps.js';
import { siteHooksOf, type ResourceManifest } from './manifest.js';

const answers = { publishedAuthorIds: async () => [7], countTermsOf: async () => 2, isAttachment: async () => true };
const deps = {} as Deps;
const db = {} as Db;

describe('the hooks gathered from the resource manifests', () => {
  it('runs every after-write and before-delete hook in the resources’ order, and asks each lookup of the one resource answering it', async () => {
    const ran: string[] = [];
    const resources: ResourceManifest[] = [
      { routes: [], hooks: { afterPostWrite: async () => void ran.push('terms'), answers: { countTermsOf: answers.countTermsOf } } },
      { routes: [], hooks: { afterPostWrite: async () => void ran.push('menus'), beforeUserDelete: async () => void ran.push('posts') } },
      { routes: [], hooks: { answers: { publishedAuthorIds: answers.publishedAuthorIds, isAttachment: answers.isAttachment } } },
    ];
    const hooks = siteHooksOf(resources);
    await hooks.afterPostWrite(deps, { before: null, after: null });
    await hooks.beforeUserDelete(deps, { user: 2, reassignTo: null, actor: 1 });
    expect(ran).toEqual(['terms', 'menus', 'posts']);
    expect(await hooks.countTermsOf(db, 'category', [1, 2])).toBe(2);
    expect(await hooks.publishedAuthorIds(db)).toEqual([7]);
  });

  it('stops the start when two resources answer a lookup', () => {
    const { isAttachment } = answers;
    expect(() => siteHooksOf([{ routes: [], hooks: { answers } }, { routes: [], hooks: { answers: { isAttachment } } }])).toThrow('The lookup isAttachment is answered by 2 resources');
  });

  it('finds nothing by a lookup no resource answers: a site without the owning resource holds none of its records', async () => {
    const { isAttachment: _isAttachment, ...rest } = answers;
    const hooks = siteHooksOf([{ routes: [], hooks: { answers: rest } }]);
    expect(await hooks.isAttachment(db, 5)).toBe(false);
    const bare = siteHooksOf([]);
    expect(await bare.publishedAuthorIds(db)).toEqual([]);
    expect(await bare.countTermsOf(db, 'category', [1])).toBe(0);
  });
});
