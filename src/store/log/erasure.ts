import { createHash, randomUUID } from 'node:crypto';
import { type Db } from 'mongodb';
import { type Logger } from '../../logger.js';
import { changeLog } from './change-log.js';

/**
 * What a committed command erases from its stream's events: the content of every event (a force
 * delete), or these values of these fields (a deleted revision, less what is still live).
 */
export type Erasure = 'all' | Readonly<Record<string, readonly unknown[]>>;

/** One field an erasure blanks: every value of it, or those whose hashes are listed. */
interface FieldErasure {
  field: string;
  blank: unknown;
  /** SHA-256 of the JSON of each value to erase; null for every value. */
  hashes: string[] | null;
}

/**
 * An erasure owed by a command: written before its event is appended and removed once the
 * content is gone, so that a crash in between leaves it here for start-up to finish. Its id is
 * the command's own and the event carries it, so commands racing for one seq never settle or
 * forget each other's. It names values by their hashes: it never holds content itself.
 */
interface OwedErasure {
  _id: string;
  stream: number;
  seq: number;
  fields: FieldErasure[];
  at: Date;
}

/** An owed erasure whose event never appeared is dropped after this long (its command lost a race, or died first). */
const ABANDONED_AFTER_MS = 60_000;

const owed = (db: Db) => db.collection<OwedErasure>('owed_erasures');
const hashOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value) ?? '').digest('hex');

export interface ErasurePlan {
  stream: number;
  seq: number;
  erasure: Erasure;
  /** The fields of event data that carry content, with the value each is left with. */
  contentFields: readonly string[];
  blank(field: string): unknown;
}

/** Records the erasure a command will owe once its event (at `seq`) is appended; the event must carry the id returned. */
export async function oweErasure(db: Db, plan: ErasurePlan): Promise<string> {
  const { stream, seq, erasure } = plan;
  const fields = plan.contentFields.flatMap((field): FieldErasure[] => {
    if (erasure === 'all') return [{ field, blank: plan.blank(field), hashes: null }];
    const values = Object.hasOwn(erasure, field) ? erasure[field] : [];
    return values.length ? [{ field, blank: plan.blank(field), hashes: values.map(hashOf) }] : [];
  });
  const id = randomUUID();
  await owed(db).insertOne({ _id: id, stream, seq, fields, at: new Date() });
  return id;
}

/** Forgets an erasure whose event was not appended (the command lost the race for its seq). */
export async function forgetErasure(db: Db, id: string): Promise<void> {
  await owed(db).deleteOne({ _id: id });
}

/** Erases what an appended event owes, then forgets it. Safe to repeat. */
export async function settleErasure(db: Db, id: string): Promise<void> {
  const debt = await owed(db).findOne({ _id: id });
  if (!debt) return;
  await redactStream(db, debt);
  await owed(db).deleteOne({ _id: debt._id });
}

/**
 * At start-up: finishes every erasure a crash left owed, once its event is in the log; one whose
 * event never appeared is dropped after a minute (another process may still be appending it).
 */
export async function healErasures(db: Db, logger: Logger): Promise<number> {
  let settled = 0;
  const log = changeLog(db);
  for (const debt of await owed(db).find({}).toArray()) {
    const [event] = await log.readSeqs(debt.stream, debt.seq, debt.seq);
    if (event?.seq === debt.seq && event.erasure === debt._id) {
      await redactStream(db, debt);
      await owed(db).deleteOne({ _id: debt._id });
      settled++;
    } else if (Date.now() - debt.at.getTime() > ABANDONED_AFTER_MS) {
      await owed(db).deleteOne({ _id: debt._id });
    }
  }
  if (settled > 0) logger.warn({ settled }, 'erasures a crash interrupted were finished');
  return settled;
}

/**
 * Blanks the owed content in the data of every event of the stream (each record of the data,
 * one level down), recording which fields were. Who, when and what kind stay.
 */
async function redactStream(db: Db, debt: OwedErasure): Promise<void> {
  const erases = (field: FieldErasure, value: unknown) =>
    JSON.stringify(value) !== JSON.stringify(field.blank) && (field.hashes === null || field.hashes.includes(hashOf(value)));
  await changeLog(db).redact<Record<string, unknown>>(debt.stream, (event) => {
    const blanked: string[] = [];
    const scrub = (record: Record<string, unknown>) => {
      const out = { ...record };
      for (const field of debt.fields) {
        if (Object.hasOwn(out, field.field) && erases(field, out[field.field])) {
          out[field.field] = field.blank;
          blanked.push(field.field);
        }
      }
      return out;
    };
    const data: Record<string, unknown> = { ...event.data };
    for (const [key, value] of Object.entries(data)) {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) data[key] = scrub(value as Record<string, unknown>);
    }
    return blanked.length ? { data, fields: blanked } : null;
  });
}
