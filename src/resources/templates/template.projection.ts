import { type StoredEvent } from '../../store/log/change-log.js';
import { atPosition } from '../../store/history/as-of.js';
import { FULL_SCAN_COMMENT } from '../../store/queries/query-shapes.js';
import { documentFold, documentProjection, type DocumentEffects } from '../../store/projections/document-projection.js';
import { revisionsCollection, storedRevision, type RevisionDoc } from '../revisions/index.js';
import { isTemplateEvent, TEMPLATE_EVENT_TYPES, type SavedAt, type StoredTemplateEvent } from './template.events.js';
import { templateFingerprint, templateFields, templatesCollection, type TemplateDoc, type TemplateFields } from './template.model.js';

/** The stream types of templates' events: their post types. */
export const TEMPLATE_STREAM_TYPES = ['cms_template', 'cms_template_part'] as const;

/** What one event does to the read models: the next template (null: gone) and the revision rows it writes or removes. */
export type TemplateEffects = DocumentEffects<TemplateDoc, RevisionDoc>;

/** A revision or autosave row of a template: its title, content, and description as WordPress's excerpt. */
function revisionRow(parent: number, id: number, kind: RevisionDoc['kind'], actor: number, fields: Pick<TemplateFields, 'title' | 'content' | 'description'>, savedAt: SavedAt, version: number): RevisionDoc {
  return {
    _id: id,
    parent,
    kind,
    author: actor,
    title: fields.title,
    content: fields.content,
    excerpt: fields.description,
    date: savedAt.local,
    dateGmt: savedAt.gmt,
    modified: savedAt.local,
    modifiedGmt: savedAt.gmt,
    slug: `${parent}-${kind}-v1`,
    version,
  };
}

/** The pure fold: the template before `event` (null before `created`) to its effects. */
export function evolveTemplate(doc: TemplateDoc | null, event: StoredEvent): TemplateEffects {
  const effects = effectsOf(doc, event);
  // The log keeps event data as JSON: a date comes back from it as its ISO string.
  if (effects.item && !(effects.item.modified instanceof Date)) effects.item = { ...effects.item, modified: new Date(effects.item.modified) };
  if (effects.item && effects.item.version === event.seq) effects.item = atPosition(effects.item, event, event.type === 'created');
  return effects;
}

function effectsOf(doc: TemplateDoc | null, event: StoredEvent): TemplateEffects {
  const effects: TemplateEffects = { item: doc, upsertRevisions: [], deleteRevisions: [], deleteAllRevisions: false };
  if (isTemplateEvent(event)) return effectsOfEvent(doc, event, effects);
  // An event of another type only moves the template's version.
  if (doc) effects.item = { ...doc, version: event.seq };
  return effects;
}

function effectsOfEvent(doc: TemplateDoc | null, event: StoredTemplateEvent, effects: TemplateEffects): TemplateEffects {
  switch (event.type) {
    case 'created': {
      const { fields } = event.data;
      effects.item = { _id: event.stream, ...templateFields(fields), version: event.seq, revisionCount: 0, headRevision: null, headFingerprint: null };
      return effects;
    }
    case 'updated':
    case 'trashed':
    case 'restored': {
      if (!doc) return effects;
      const { changes, unset, revisionId, savedAt } = event.data;
      const next: TemplateDoc = { ...doc, ...changes, version: event.seq };
      for (const field of unset ?? []) delete next[field];
      if (revisionId !== undefined && savedAt) {
        next.revisionCount++;
        next.headRevision = revisionId;
        next.headFingerprint = templateFingerprint(next);
        effects.upsertRevisions.push(revisionRow(doc._id, revisionId, 'revision', event.actor, next, savedAt, event.seq));
      }
      effects.item = next;
      return effects;
    }
    case 'autosaved': {
      if (!doc) return effects;
      const { autosaveId, isNew, fields, savedAt } = event.data;
      effects.item = { ...doc, revisionCount: doc.revisionCount + (isNew ? 1 : 0), version: event.seq };
      effects.upsertRevisions.push(revisionRow(doc._id, autosaveId, 'autosave', event.actor, fields, savedAt, event.seq));
      return effects;
    }
    case 'revision_deleted': {
      const { revisionId } = event.data;
      effects.deleteRevisions.push(revisionId);
      if (doc) {
        // Without its newest revision, the next update makes one whatever it changes.
        const head = doc.headRevision === revisionId ? { headRevision: null, headFingerprint: null } : {};
        effects.item = { ...doc, ...head, revisionCount: Math.max(0, doc.revisionCount - 1), version: event.seq };
      }
      return effects;
    }
    case 'deleted':
      effects.item = null;
      effects.deleteAllRevisions = true;
      return effects;
  }
}

/** The template after `event` and every document its projection writes: what the kernel checks before an append. */
export const foldTemplate = documentFold(evolveTemplate);

export const templatesProjection = documentProjection<TemplateDoc, RevisionDoc>({
  name: 'templates',
  streamTypes: TEMPLATE_STREAM_TYPES,
  handles: TEMPLATE_EVENT_TYPES,
  endsStream: ['deleted'],
  items: templatesCollection,
  rows: revisionsCollection,
  evolve: evolveTemplate,
  stored: storedRevision,
  // Templates stored before they kept a change log (no `version`) are not the log's to clear: they
  // are given their stream at start-up (`giveTemplatesStreams`).
  async clear(db) {
    const comment = `${FULL_SCAN_COMMENT} a rebuild replays every template`;
    const ids = (await templatesCollection(db).find({ version: { $exists: true } }, { projection: { _id: 1 }, comment }).toArray()).map((doc) => doc._id);
    if (ids.length) await revisionsCollection(db).deleteMany({ parent: { $in: ids } });
    await templatesCollection(db).deleteMany({ _id: { $in: ids } });
  },
});
