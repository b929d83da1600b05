import { type Db } from 'mongodb';
import { type Deps } from '../../deps.js';
import { changeLog, ConcurrencyError, upgradePositions } from '../../store/log/change-log.js';
import { leavingOut, loadItem, type HistoryType } from '../../store/history/kernel.js';
import { catchUpStream, oncePerDatabase } from '../../store/projections/projections.js';
import { FULL_SCAN_COMMENT } from '../../store/queries/query-shapes.js';
import { isDuplicateKey } from '../../store/database/mongo.js';
import { isTemplateEvent, type TemplateCreated, type TemplateEvent } from './template.events.js';
import { claimTemplateKey, templateKey } from './template.keys.js';
import { TEMPLATE_CONTENT_FIELDS, templateFields, templatesCollection, type TemplateDoc } from './template.model.js';
import { TemplateNotFound } from './template.permissions.js';
import { foldTemplate, templatesProjection } from './template.projection.js';

/** Templates and template parts as the change-log kernel sees them: the same command cycle as posts. */
export const templateHistory: HistoryType<TemplateDoc, TemplateEvent> = Object.freeze({
  projection: templatesProjection,
  isEvent: isTemplateEvent,
  streamTypeOf: (doc: TemplateDoc) => doc.type,
  load: (db: Db, id: number, leftOut?: readonly string[]) => templatesCollection(db).findOne({ _id: id }, leavingOut(leftOut)),
  fold: foldTemplate,
  etag: (doc: TemplateDoc) => String(doc.version),
  contentFields: TEMPLATE_CONTENT_FIELDS,
  blank: () => '',
  NotFound: TemplateNotFound,
});

/** A template by its database id, or 404 `rest_template_not_found`. */
export const loadTemplate = (deps: Deps, id: number) => loadItem(deps, templateHistory, id);

const STREAMS_CHECKPOINT = 'template_streams';

/**
 * Gives every template stored before templates kept a change log (a read model without `version`)
 * its stream, once per database: its key is claimed, a `created` event records it as it is, and
 * the projection writes it again from that event. Run again after a crash, it finishes what it
 * began (an event appended already is kept). Returns how many.
 */
export function giveTemplatesStreams(deps: Pick<Deps, 'store' | 'logger' | 'clock'>): Promise<number> {
  const { db } = deps.store;
  return oncePerDatabase(db, STREAMS_CHECKPOINT, async () => {
    const templates = templatesCollection(db);
    const log = changeLog(db);
    const comment = `${FULL_SCAN_COMMENT} once per database: templates stored before templates kept a change log`;
    let count = 0;
    const legacies = await templates.find({ version: { $exists: false } }, { comment }).toArray();
    // Appended events take positions above those of events stored before positions.
    if (legacies.length) await upgradePositions(db);
    for (const legacy of legacies) {
      const fields = templateFields(legacy);
      await claimTemplateKey(db, templateKey(fields), legacy._id, deps.clock());
      const created: TemplateCreated = { fields };
      try {
        await log.append({ stream: legacy._id, streamType: fields.type, type: 'created', at: legacy.modified ?? deps.clock(), actor: legacy.author, data: created }, 0);
      } catch (error) {
        if (!(error instanceof ConcurrencyError) && !isDuplicateKey(error)) throw error;
      }
      // The projection writes it from its event: the row without a version goes first.
      await templates.deleteOne({ _id: legacy._id, version: { $exists: false } });
      await catchUpStream(db, log, templatesProjection, legacy._id);
      count++;
    }
    return count;
  });
}
