import { describe, expect, it } from 'vitest';
import { type StoredEvent } from '../../store/log/change-log.js';
import { type TemplateFields } from './template.model.js';
import { evolveTemplate, foldTemplate } from './template.projection.js';

const fields: TemplateFields = {
  theme: 'cornerstone',
  type: 'cms_template',
  slug: 'landing',
  status: 'publish',
  author: 1,
  modified: new Date('2025-01-02T03:04:05Z'),
  title: 'Landing',
  description: 'For campaigns',
  content: '<!-- wp:paragraph /-->',
  origin: null,
};
const savedAt = { local: '2025-01-02T03:04:05', gmt: '2025-01-02T03:04:05' };

const event = (seq: number, type: string, data: Record<string, unknown>): StoredEvent =>
  ({ stream: 10, streamType: 'cms_template', seq, type, at: new Date(), actor: 1, data, position: seq }) as StoredEvent;

/** The template after `events`, from nothing, as the projection folds them. */
function replay(events: StoredEvent[]) {
  let state = null as ReturnType<typeof foldTemplate>['state'];
  for (const each of events) state = foldTemplate(state, each).state;
  return state;
}

describe('the templates fold', () => {
  it('creates a template from its created event, with no revision, reading its date back from JSON', () => {
    const created = replay([event(1, 'created', { fields: { ...fields, modified: fields.modified.toISOString() } })]);
    expect(created).toMatchObject({ _id: 10, slug: 'landing', version: 1, revisionCount: 0, headRevision: null, firstPosition: 1, position: 1 });
    expect(created!.modified).toEqual(fields.modified);
  });

  it('writes a revision row for an update that names one, and keeps it as the head', () => {
    const before = replay([event(1, 'created', { fields })]);
    const effects = evolveTemplate(before, event(2, 'updated', { changes: { content: 'new' }, revisionId: 20, savedAt }));
    expect(effects.item).toMatchObject({ content: 'new', version: 2, revisionCount: 1, headRevision: 20 });
    expect(effects.upsertRevisions).toEqual([expect.objectContaining({ _id: 20, parent: 10, kind: 'revision', content: 'new', excerpt: 'For campaigns', version: 2 })]);
  });

  it('untrashes with the status sent, forgetting the status it was trashed from', () => {
    const trashed = replay([event(1, 'created', { fields }), event(2, 'trashed', { changes: { status: 'trash', trashedFrom: 'publish' } })]);
    expect(trashed).toMatchObject({ status: 'trash', trashedFrom: 'publish' });
    const back = evolveTemplate(trashed, event(3, 'updated', { changes: { status: 'draft' }, unset: ['trashedFrom'] })).item!;
    expect(back.status).toBe('draft');
    expect(back).not.toHaveProperty('trashedFrom');
  });

  it('forgets the head when its revision is deleted, and removes every row with the template', () => {
    const revised = replay([event(1, 'created', { fields }), event(2, 'updated', { changes: { title: 'T' }, revisionId: 20, savedAt }), event(3, 'autosaved', { autosaveId: 21, isNew: true, fields: { title: 'A', content: 'a', description: '' }, savedAt })]);
    expect(revised).toMatchObject({ revisionCount: 2, headRevision: 20 });
    const without = evolveTemplate(revised, event(4, 'revision_deleted', { revisionId: 20 }));
    expect(without.deleteRevisions).toEqual([20]);
    expect(without.item).toMatchObject({ revisionCount: 1, headRevision: null, headFingerprint: null });
    const gone = evolveTemplate(without.item, event(5, 'deleted', {}));
    expect(gone).toMatchObject({ item: null, deleteAllRevisions: true });
  });
});
