// The posts projection's fold as a pure function: given the events so far, when one more
// arrives, then the item and the revision rows it leaves. No database.
import { describe, expect, it } from 'vitest';
import { type StoredEvent } from '../../store/log/change-log.js';
import { type PostFields, UNKNOWN, type PostDoc } from './post.model.js';
import { evolvePost, foldPost, postsProjection, type PostEffects } from './post.projection.js';

const ID = 40;
const fields: PostFields = {
  type: 'post', status: 'draft', trashedFrom: null, title: 'First title', content: 'First content', excerpt: '', slug: 'first',
  author: 2, date: '2024-05-06T07:08:09', dateGmt: null, modified: '2024-05-06T07:08:09', modifiedGmt: '2024-05-06T07:08:09',
  password: '', featured_media: 0, comment_status: 'open', ping_status: 'open', format: 'standard', sticky: false, template: '',
  meta: { color: 'blue' }, terms: { category: [1], post_tag: [] }, parent: 0, menu_order: 0, guid: 'http://site/?p=40',
};

let seq = 0;
const event = (type: string, data: Record<string, unknown>, actor = 2): StoredEvent => ({
  stream: ID, streamType: 'post', seq: ++seq, type, at: new Date('2024-05-06T07:08:09Z'), actor, data,
});
const created = () => event('created', { fields });
const updated = (changes: Partial<PostFields>, revisionId?: number) =>
  event('updated', { changes: { ...changes, modified: '2024-05-07T00:00:00', modifiedGmt: '2024-05-07T00:00:00' }, ...(revisionId ? { revisionId } : {}) });

/** The item after `events`, folded from nothing. */
function given(...events: StoredEvent[]): PostDoc | null {
  return events.reduce<PostDoc | null>((doc, next) => evolvePost(doc, next).item, null);
}
const when = (doc: PostDoc | null, next: StoredEvent): PostEffects => evolvePost(doc, next);

describe('evolvePost', () => {
  it('given nothing, when created: the item at version 1, meta stored as JSON, no revision', () => {
    seq = 0;
    const then = when(null, created());
    expect(then.item).toMatchObject({ _id: ID, title: 'First title', meta: '{"color":"blue"}', version: 1, changeSeq: 1, revisionCount: 0, headRevision: null });
    expect(then.upsertRevisions).toEqual([]);
  });

  it('given a created item, when updated with a revision: the fields change and the revision row holds the new text, dated by modified', () => {
    seq = 0;
    const doc = given(created());
    const then = when(doc, updated({ title: 'Second title' }, 41));
    expect(then.item).toMatchObject({ title: 'Second title', content: 'First content', version: 2, changeSeq: 2, revisionCount: 1, headRevision: 41, latestRevision: 41 });
    expect(then.item!.headFingerprint).toEqual(expect.any(String));
    expect(then.upsertRevisions).toEqual([
      expect.objectContaining({ _id: 41, parent: ID, kind: 'revision', author: 2, title: 'Second title', date: '2024-05-07T00:00:00', slug: '40-revision-v1', version: 2 }),
    ]);
  });

  it('given an item, when updated without a revision: no row, the head revision stays', () => {
    seq = 0;
    const doc = given(created(), updated({ title: 'Second' }, 41));
    const then = when(doc, updated({ sticky: true }));
    expect(then.item).toMatchObject({ sticky: true, version: 3, changeSeq: 3, revisionCount: 1, headRevision: 41 });
    expect(then.upsertRevisions).toEqual([]);
  });

  it("given a draft, when its author autosaves in place: the draft changes, no row", () => {
    seq = 0;
    const doc = given(created());
    const then = when(doc, event('autosaved', { inPlace: true, changes: { content: 'Saved in place' } }));
    expect(then.item).toMatchObject({ content: 'Saved in place', version: 2, changeSeq: 2 });
    expect(then.upsertRevisions).toEqual([]);
  });

  it("given an item, when another user autosaves: an autosave row, and the item's ETag (changeSeq) stays", () => {
    seq = 0;
    const doc = given(created());
    const autosave = { inPlace: false, autosaveId: 50, isNew: true, fields: { title: 'T', content: 'C', excerpt: 'E' }, date: '2024-05-08T00:00:00', dateGmt: '2024-05-08T00:00:00' };
    const then = when(doc, event('autosaved', autosave, 3));
    expect(then.item).toMatchObject({ version: 2, changeSeq: 1, revisionCount: 1, latestRevision: 50 });
    expect(then.upsertRevisions).toEqual([expect.objectContaining({ _id: 50, kind: 'autosave', author: 3, title: 'T', slug: '40-autosave-v1' })]);
    const again = when(then.item, event('autosaved', { ...autosave, isNew: false, fields: { title: 'T2', content: 'C', excerpt: 'E' } }, 3));
    expect(again.item).toMatchObject({ revisionCount: 1, version: 3 });
  });

  it('given a revision, when it is deleted: the row goes and the head revision must be looked up', () => {
    seq = 0;
    const doc = given(created(), updated({ title: 'Second' }, 41));
    const then = when(doc, event('revision_deleted', { revisionId: 41 }));
    expect(then.deleteRevisions).toEqual([41]);
    expect(then.item).toMatchObject({ revisionCount: 0, headRevision: UNKNOWN, headFingerprint: null, latestRevision: UNKNOWN, changeSeq: 2, version: 3 });
  });

  it('given an item, when trashed and untrashed: status and slug follow the changes', () => {
    seq = 0;
    const doc = given(created());
    const trashed = when(doc, event('trashed', { changes: { status: 'trash', trashedFrom: 'draft', slug: 'first__trashed' } })).item;
    expect(trashed).toMatchObject({ status: 'trash', trashedFrom: 'draft', slug: 'first__trashed', version: 2 });
    const untrashed = when(trashed, event('untrashed', { changes: { status: 'draft', slug: 'first' } })).item;
    expect(untrashed).toMatchObject({ status: 'draft', slug: 'first', version: 3 });
  });

  it('given an item, when deleted: no item, and every revision row goes', () => {
    seq = 0;
    const then = when(given(created(), updated({ title: 'Second' }, 41)), event('deleted', {}));
    expect(then.item).toBeNull();
    expect(then.deleteAllRevisions).toBe(true);
  });

  it('given nothing, when an update arrives (its item never created): nothing', () => {
    seq = 1;
    expect(when(null, updated({ title: 'Orphan' }, 41))).toEqual({ item: null, upsertRevisions: [], deleteRevisions: [], deleteAllRevisions: false });
  });

  it('folds to every document the projection writes, for the size check before an append', () => {
    seq = 0;
    const doc = given(created());
    const { state, documents } = foldPost(doc, updated({ excerpt: 'Longer' }, 41));
    expect(documents).toEqual([state, expect.objectContaining({ _id: 41, excerpt: 'Longer' })]);
  });

  it("names a legacy stream's type from its created event", () => {
    seq = 0;
    const { streamType: _recorded, ...legacy } = created();
    expect(postsProjection.legacyStreamType!(legacy)).toBe('post');
    expect(postsProjection.legacyStreamType!({ ...legacy, data: { fields: { ...fields, type: 'nav_menu_item' } } })).toBeUndefined();
  });
});
