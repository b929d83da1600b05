import { randomUUID } from 'node:crypto';
import { type Db } from 'mongodb';

const CHANGED = 'site_changed';

/**
 * The token every write replaces (one document of the small `checkpoints` collection): processes
 * sharing the database compare it with the one they saw last to learn that something changed.
 * A random token, not a counter: FerretDB's `$inc` is not atomic, and only a difference matters.
 */
export function siteChanges(db: Db) {
  const checkpoints = db.collection<{ _id: string; token: string; at: Date }>('checkpoints');
  return {
    async token(): Promise<string | null> {
      return (await checkpoints.findOne({ _id: CHANGED }))?.token ?? null;
    },
    async announce(): Promise<void> {
      const change = { token: randomUUID(), at: new Date() };
      try {
        await checkpoints.updateOne({ _id: CHANGED }, { $set: change }, { upsert: true });
      } catch (error) {
        // FerretDB does not retry an upsert that lost the race to insert: the document exists now.
        if ((error as { code?: number }).code !== 11000) throw error;
        await checkpoints.updateOne({ _id: CHANGED }, { $set: change });
      }
    },
  };
}
