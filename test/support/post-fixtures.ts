// Arranges posts and pages through the commands (the events and projections the routes use).
import { type Deps } from '../../src/deps.js';
import { createPost } from '../../src/resources/posts/post.commands.js';
import { postsCollection, type PostDoc, type PostFields } from '../../src/resources/posts/post.model.js';
import { postsProjection } from '../../src/resources/posts/post.projection.js';
import { changeLog, type StoredEvent } from '../../src/store/log/change-log.js';
import { applyEvent } from '../../src/store/projections/projections.js';

/** A complete set of fields for a new item: a draft post by user 1 unless `overrides` say otherwise. */
export function postFields(overrides: Partial<PostFields> = {}): PostFields {
  const type = overrides.type ?? 'post';
  return {
    type,
    status: 'draft',
    trashedFrom: null,
    title: 'A title',
    content: '<p>Some content.</p>',
    excerpt: '',
    slug: '',
    author: 1,
    date: '2024-05-06T07:08:09',
    dateGmt: null,
    modified: '2024-05-06T07:08:09',
    modifiedGmt: '2024-05-06T07:08:09',
    password: '',
    featured_media: 0,
    comment_status: type === 'post' ? 'open' : 'closed',
    ping_status: type === 'post' ? 'open' : 'closed',
    format: 'standard',
    sticky: false,
    template: '',
    meta: {},
    terms: type === 'post' ? { category: [1], post_tag: [] } : {},
    parent: 0,
    menu_order: 0,
    guid: '',
    ...overrides,
  };
}

/** Creates an item with a new content id, as `actor` (its author unless given). */
export async function givenPost(deps: Deps, overrides: Partial<PostFields> = {}, actor?: number): Promise<PostDoc> {
  const fields = postFields(overrides);
  return createPost(deps, await deps.ids.next('content'), fields, actor ?? fields.author);
}

/**
 * Appends `count` title changes to an item's change log, many at a time: thousands of events in
 * seconds, where commands would take minutes. With `project: false` the read model is left behind
 * (as after a crash) for healing or the next write to catch up.
 */
export async function givenTitleChanges(deps: Deps, id: number, count: number, options: { actor?: number; project?: boolean } = {}): Promise<void> {
  const { db } = deps.store;
  const log = changeLog(db);
  const actor = options.actor ?? 1;
  const start = await log.countStream(id);
  const streamType = (await postsCollection(db).findOne({ _id: id }, { projection: { type: 1 } }))?.type ?? 'post';
  const appended: StoredEvent[] = [];
  for (let from = 0; from < count; from += 200) {
    const seqs = Array.from({ length: Math.min(200, count - from) }, (_, i) => start + from + i + 1);
    const data = (seq: number) => ({ changes: { title: `Title ${seq}` } });
    appended.push(...(await Promise.all(seqs.map((seq) => log.append({ stream: id, streamType, type: 'updated', at: deps.clock(), actor, data: data(seq) }, seq - 1)))));
  }
  if (options.project === false) return;
  for (const event of appended) await applyEvent(db, [postsProjection], event);
}
