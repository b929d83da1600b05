import { type Collection, type Db } from 'mongodb';
import { duplicateKeyRefusal, type IndexSpec, isDatabaseUnavailable, isDuplicateKey } from '../database/mongo.js';
import { firstFreeAfter as firstFree } from './first-free.js';
import { siteChanges } from './site-changes.js';

/**
 * The integer id sequences (CONTRACT "Identifiers"): `content` for every post-like object and
 * revision, `term` for terms, `user` for users.
 */
export const SEQUENCES = ['content', 'term', 'user'] as const;
export type SequenceName = (typeof SEQUENCES)[number];

export interface Sequences {
  next(name: SequenceName): Promise<number>;
  /** Claims `id` for a seeded record, so the sequence never hands it out (nor, in this process, anything below it). */
  reserve(name: SequenceName, id: number): Promise<void>;
}

/** Every id handed out is a document here, `_id` = `<sequence>:<zero-padded id>`. */
interface IdClaim {
  _id: string;
}

/**
 * Claims are read by `_id` alone, and there is one for every id ever handed out. Declaring the
 * built-in `_id` index gives it its bridge on the embedded database, where a claim looked up by
 * key otherwise decodes every claim (40 to 70 ms on a site of 120,000 ids).
 */
export const idClaimIndexes: IndexSpec[] = [{ collection: 'id_claims', key: { _id: 1 }, name: '_id_' }];

const WIDTH = 15;
/** The claim document's `_id` for `id` of sequence `name` (exported for bulk seeding, which claims ids by inserting these). */
export const claimKey = (name: SequenceName, id: number) => `${name}:${String(id).padStart(WIDTH, '0')}`;

/** A claim the database did not answer, and when that was known. */
class Unavailable {
  constructor(
    readonly error: unknown,
    readonly at: number,
  ) {}
}

/** Claims `count` ids from `first` on in one ordered insert: how many of them, from `first`, are now the caller's. */
async function claimRun(claims: Collection<IdClaim>, name: SequenceName, first: number, count: number): Promise<number> {
  const keys = Array.from({ length: count }, (_, offset) => ({ _id: claimKey(name, first + offset) }));
  try {
    if (count === 1) await claims.insertOne(keys[0]);
    else await claims.insertMany(keys, { ordered: true });
    return count;
  } catch (error) {
    const refusal = duplicateKeyRefusal(error);
    if (!refusal) throw error;
    // An ordered insert stops at its first refused row: the ones before it were stored.
    return count === 1 ? 0 : (refusal.index ?? 0);
  }
}

/**
 * How long a process that saw another claim ids (a claim refused, or a higher id announced) takes
 * the sequences to be shared: it then claims a block of ids at a time.
 */
export const SHARED_CLAIMS_MS = 30_000;
/** How many ids one insert claims while the sequences are shared. */
const CLAIM_BLOCK = 8;

/**
 * Ids are claimed by inserting them: the unique `_id` index decides which writer gets a number,
 * which holds on any MongoDB-compatible server. (A `$inc` counter through `findOneAndUpdate` is
 * not atomic on FerretDB 1.24: concurrent callers received the same value.) Claims are never
 * removed, so trying one past the last id this process claimed is always safe; only when another
 * process took it is the first free one after it looked up, by key. Within a process claims
 * are made one at a time, so a burst of callers costs one insert each, not a race.
 *
 * A process alone claims one id per insert, so ids follow one another. Once another process
 * claims too, each would try the id the other just took; a process then claims a block of ids
 * per insert (DESIGN.md allows it) and hands them out from memory: ids from several processes
 * interleave, and those a process never hands out are gaps, as deleted items leave.
 */
export function sequences(db: Db): Sequences {
  const claims = db.collection<IdClaim>('id_claims');
  const last = new Map<SequenceName, number>();
  const claimedAhead = new Map<SequenceName, number[]>(SEQUENCES.map((name) => [name, []]));
  let sharedUntil = 0;
  const share = () => {
    sharedUntil = performance.now() + SHARED_CLAIMS_MS;
  };
  // Processes claiming by turns would each try the id the other claimed last.
  for (const name of SEQUENCES) {
    siteChanges(db).shareHighest(`id_${name}`, {
      highest: () => last.get(name),
      learn: (highest) => {
        if (!last.has(name) || highest <= last.get(name)!) return;
        last.set(name, highest);
        share();
      },
    });
  }
  const queue = new Map<SequenceName, Promise<Unavailable | undefined>>();

  const taken = async (name: SequenceName, id: number) => (await claims.findOne({ _id: claimKey(name, id) }, { projection: { _id: 1 } })) !== null;

  /** The first unclaimed id after `from` (taken, or 0), by key alone (`first-free.ts`). */
  const firstFreeAfter = (name: SequenceName, from: number): Promise<number> => firstFree(from, (id) => taken(name, id));

  const claim = async (name: SequenceName): Promise<number> => {
    const ahead = claimedAhead.get(name)!;
    if (ahead.length) return ahead.shift()!;
    let id = last.has(name) ? last.get(name)! + 1 : await firstFreeAfter(name, 0);
    // Processes writing by turns take one id each between their claims: the next one is tried
    // at once, and only if it is taken too is the first free one looked up.
    let tries = 0;
    for (;;) {
      const count = sharedUntil > performance.now() ? CLAIM_BLOCK : 1;
      const claimed = await claimRun(claims, name, id, count);
      if (claimed > 0) {
        last.set(name, Math.max(last.get(name) ?? 0, id + claimed - 1));
        ahead.push(...Array.from({ length: claimed - 1 }, (_, offset) => id + 1 + offset));
        return id;
      }
      share();
      id = ++tries === 1 ? id + 1 : await firstFreeAfter(name, id);
    }
  };

  return {
    next(name) {
      // A claim that found the database unavailable fails the claims queued behind it meanwhile,
      // at once: otherwise each would wait out the timeout in turn, the last one for all of them.
      const queuedAt = performance.now();
      const result = (queue.get(name) ?? Promise.resolve(undefined)).then(async (previous) => {
        if (previous && previous.at >= queuedAt) throw previous;
        try {
          return await claim(name);
        } catch (error) {
          throw isDatabaseUnavailable(error) ? new Unavailable(error, performance.now()) : error;
        }
      });
      queue.set(name, result.then(() => undefined, (error: unknown) => (error instanceof Unavailable ? error : undefined)));
      return result.catch((error: unknown) => {
        throw error instanceof Unavailable ? error.error : error;
      });
    },
    async reserve(name, id) {
      await claims.insertOne({ _id: claimKey(name, id) }).catch((error: unknown) => {
        if (!isDuplicateKey(error)) throw error;
      });
      last.set(name, Math.max(last.get(name) ?? 0, id));
    },
  };
}
