import { type Db } from 'mongodb';
import { changeLog } from '../../store/log/change-log.js';
import { isDuplicateKey } from '../../store/database/mongo.js';
import { templatesCollection, type TemplateFields } from './template.model.js';

/**
 * Which template holds each `(theme, type, slug)`. A template's creation is appended to the log
 * before its read model is written, so the read model's unique index cannot decide between two
 * requests creating one key at once: each first claims the key here, by the key itself as `_id`
 * (unique everywhere, and served by an index on the embedded database), and only the one holding
 * it appends. A force delete gives the key up once committed.
 */
interface TemplateKeyDoc {
  _id: string;
  template: number;
  at: Date;
}

const keys = (db: Db) => db.collection<TemplateKeyDoc>('template_keys');

/**
 * How long a claim whose template has neither a read model nor a stream is taken to be a creation
 * in flight: after it, the claimant died between its claim and its append, and the key is free.
 */
const CLAIM_IN_FLIGHT_MS = 30_000;

export const templateKey = (fields: Pick<TemplateFields, 'theme' | 'type' | 'slug'>) => `${fields.type}:${fields.theme}//${fields.slug}`;

/** Whether the claim's template still holds its key: it exists, is being created, or its stream has not ended. */
async function held(db: Db, claim: TemplateKeyDoc, now: Date): Promise<boolean> {
  if (await templatesCollection(db).findOne({ _id: claim.template }, { projection: { _id: 1 } })) return true;
  if (now.getTime() - claim.at.getTime() < CLAIM_IN_FLIGHT_MS) return true;
  const log = changeLog(db);
  const count = await log.countStream(claim.template);
  if (count === 0) return false;
  const [last] = await log.readSeqs(claim.template, count, count);
  return last?.type !== 'deleted';
}

/**
 * Claims `key` for template `id`. Answers null once the key is the template's, or the id of the
 * template holding it. A claim left by a creation that never happened, or a delete that did not
 * give it up, is taken over.
 */
export async function claimTemplateKey(db: Db, key: string, id: number, now: Date): Promise<number | null> {
  for (;;) {
    try {
      await keys(db).insertOne({ _id: key, template: id, at: now });
      return null;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const claim = await keys(db).findOne({ _id: key });
    if (!claim) continue;
    if (claim.template === id) return null;
    if (await held(db, claim, now)) return claim.template;
    const taken = await keys(db).replaceOne({ _id: key, template: claim.template }, { template: id, at: now });
    if (taken.modifiedCount === 1) return null;
  }
}

/** Gives up the key once the template's delete is committed (or its creation failed before the append). */
export async function releaseTemplateKey(db: Db, key: string, id: number): Promise<void> {
  await keys(db).deleteOne({ _id: key, template: id });
}
