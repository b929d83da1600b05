import { type Db } from 'mongodb';

/**
 * The integer id sequences (CONTRACT "Identifiers"): `content` for every post-like object and
 * revision, `term` for terms, `user` for users. One counter document each, advanced with `$inc`.
 */
export const SEQUENCES = ['content', 'term', 'user'] as const;
export type SequenceName = (typeof SEQUENCES)[number];

export interface Sequences {
  next(name: SequenceName): Promise<number>;
  /** Makes sure the sequence never hands out `id` or anything below it (for seeded records). */
  reserve(name: SequenceName, id: number): Promise<void>;
}

export function sequences(db: Db): Sequences {
  const counters = db.collection<{ _id: string; value: number }>('counters');
  return {
    async next(name) {
      const counter = await counters.findOneAndUpdate(
        { _id: name },
        { $inc: { value: 1 } },
        { upsert: true, returnDocument: 'after' },
      );
      return counter!.value;
    },
    async reserve(name, id) {
      await counters.updateOne({ _id: name }, { $max: { value: id } }, { upsert: true });
    },
  };
}
