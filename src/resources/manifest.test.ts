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

  it('stops the start when a lookup has no resource answering it, or two', () => {
    const { isAttachment, ...rest } = answers;
    expect(() => siteHooksOf([{ routes: [], hooks: { answers: rest } }])).toThrow('The lookup isAttachment is answered by 0 resources');
    expect(() => siteHooksOf([{ routes: [], hooks: { answers } }, { routes: [], hooks: { answers: { isAttachment } } }])).toThrow('The lookup isAttachment is answered by 2 resources');
  });
});
