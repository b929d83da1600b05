import { ObjectId, type Db, type Document, type Filter, type Sort } from 'mongodb';
import siftModule from 'sift';
import { type IndexSpec } from './mongo.js';
import { FULL_SCAN_COMMENT } from './query-shapes.js';
import { siteChanges } from './site-changes.js';

/**
 * A list index kept in each process's memory: the few small fields a collection's lists filter
 * and sort on, for every document of the kinds it holds. The embedded database serves only
 * equality from an index and sorts, skips and counts after decoding every matching row; from
 * this index a list's order, page and total are memory work, and only the page's documents are
 * read, each by its key. A list that filters or sorts on a field the index does not keep (a
 * search in titles and content) is not served by it.
 *
 * Kept current across processes by notes. A write through this process updates its entry at
 * once and, before the write is answered, records a note naming the item in `kept_index_notes`,
 * under the second it was written (its bucket). Before a list, a process that anything changed
 * for since its last look (the site's change token moved), or that has not looked for a second,
 * reads the notes of the seconds since its last look less a margin (by equality on the bucket,
 * which the embedded database serves from an index) and reads again the items they name that it
 * has not seen. Notes are kept about a minute; a process that has not looked for longer reads
 * the whole index again.
 */
export interface KeptIndexSpec {
  /** What its notes are filed under. */
  readonly name: string;
  readonly collection: string;
  /** The documents it holds. */
  readonly holds: Filter<Document>;
  /** The fields kept of each (`_id` and `version` always are). */
  readonly fields: readonly string[];
}

export interface KeptPage {
  ids: number[];
  total: number;
}

interface Entry {
  _id: number;
  version?: number;
  [field: string]: unknown;
}

interface Note {
  _id: ObjectId;
  bucket: number;
  index: string;
  ids: number[];
  /** The whole collection was rewritten (a rebuild): read it all again. */
  reset?: boolean;
}

// sift is CommonJS: Node hands its tester over as the module, with a `default` naming it again;
// other loaders (the test runner's) hand over the tester alone.
const sift = (typeof siftModule === 'function' ? siftModule : (siftModule as { default: unknown }).default) as typeof siftModule.default;

const NOTES = 'kept_index_notes';
const BUCKET_MS = 1000;
/** Notes written this long before a look began may still have been in flight then. */
const MARGIN_MS = 3000;
/** How long notes are kept; a process that has not looked for longer reads everything again. */
const RETENTION_MS = 60_000;
/** The longest a list is served without a look at the notes, for writes no change token announced. */
const QUIET_MS = 1000;

export const keptIndexNoteIndexes: IndexSpec[] = [{ collection: NOTES, key: { bucket: 1 }, name: 'bucket' }];

const bucketOf = (ms: number) => Math.floor(ms / BUCKET_MS);
const notesOf = (db: Db) => db.collection<Note>(NOTES);

/** One process's copy of an index over one database. */
interface Copy {
  entries: Map<number, Entry> | null;
  /** When the last look (or full read) began. */
  lookedAt: number;
  /** Notes already applied (or written here), by id, with their bucket. */
  seen: Map<string, number>;
  /** Counts the site's changes; a look covers those counted when it began. */
  changes: number;
  covered: number;
  looking: Promise<void> | null;
  /** The last bucket this process pruned behind. */
  prunedUpTo: number;
  /** Counts changes to the entries: an order computed at an older count is stale. */
  generation: number;
  /** Lists' matching ids in order, by filter and sort, as of a generation (the newest few). */
  orders: Map<string, { generation: number; ids: number[] }>;
}

/** Orders kept per copy: the lists editors page through. */
const KEPT_ORDERS = 64;

export interface KeptIndex {
  readonly spec: KeptIndexSpec;
  /** Whether a list with this filter and sort can be served from the index. */
  serves(filter: object, sort: Sort): boolean;
  /** The ids of one page of a list in order, and how many match. */
  page(db: Db, filter: object, sort: Sort, skip: number, limit: number): Promise<KeptPage>;
  /** Every entry, current as `page` reads them: what a list as of an earlier point starts from (`as-of.ts`). */
  entries(db: Db): Promise<ReadonlyMap<number, Readonly<Document>>>;
  /** This process wrote the document `id` (null: it is gone) at `at`, by the writer's clock: the entry now, and a note for the others. */
  wrote(db: Db, id: number, doc: Document | null, at: Date): Promise<void>;
  /** Documents changed by other means (healing): read again here, and noted for the others. */
  changed(db: Db, ids: number[]): Promise<void>;
  /** The whole collection was rewritten (a rebuild): every process reads it again. */
  reset(db: Db): Promise<void>;
}

export function keptIndex(spec: KeptIndexSpec): KeptIndex {
  const kept = new Set(['_id', 'version', ...spec.fields]);
  const projection = Object.fromEntries([...kept].map((field) => [field, 1]));
  const isHeld = sift(spec.holds as never) as (doc: unknown) => boolean;
  const copies = new WeakMap<Db, Copy>();

  function copyOf(db: Db): Copy {
    let copy = copies.get(db);
    if (!copy) {
      const fresh: Copy = { entries: null, lookedAt: 0, seen: new Map(), changes: 0, covered: 0, looking: null, prunedUpTo: 0, generation: 0, orders: new Map() };
      siteChanges(db).onChange(() => void fresh.changes++);
      copies.set(db, (copy = fresh));
    }
    return copy;
  }

  const toEntry = (doc: Document): Entry => Object.fromEntries(Object.entries(doc).filter(([field]) => kept.has(field))) as Entry;

  function put(copy: Copy, id: number, doc: Document | null): void {
    if (!copy.entries) return;
    copy.generation++;
    if (!doc || !isHeld(doc)) {
      copy.entries.delete(id);
      return;
    }
    const current = copy.entries.get(id);
    const entry = toEntry(doc);
    if (current?.version !== undefined && entry.version !== undefined && current.version > entry.version) return;
    copy.entries.set(id, entry);
  }

  /** The ids a list matches, in its order: computed from the entries, or kept from the last time while nothing changed. */
  function ordered(copy: Copy, entries: Map<number, Entry>, filter: object, sort: Sort): number[] {
    const key = JSON.stringify([filter, sort]);
    const kept = copy.orders.get(key);
    if (kept && kept.generation === copy.generation) return kept.ids;
    const matches = sift(filter as never) as (entry: Entry) => boolean;
    const found = [...entries.values()].filter(matches);
    found.sort(comparator(sort as Record<string, 1 | -1>));
    const ids = found.map((entry) => entry._id);
    copy.orders.delete(key);
    copy.orders.set(key, { generation: copy.generation, ids });
    if (copy.orders.size > KEPT_ORDERS) copy.orders.delete(copy.orders.keys().next().value!);
    return ids;
  }

  async function readAll(db: Db, copy: Copy): Promise<void> {
    const began = Date.now();
    const rows = await db
      .collection(spec.collection)
      .find(spec.holds, { projection, comment: `${FULL_SCAN_COMMENT} a process's first read of the ${spec.name} list index, kept from then on` })
      .toArray();
    copy.entries = new Map(rows.map((row) => [row._id as unknown as number, toEntry(row)]));
    copy.generation++;
    copy.lookedAt = began;
    copy.seen.clear();
  }

  async function readAgain(db: Db, copy: Copy, ids: Iterable<number>): Promise<void> {
    const collection = db.collection(spec.collection);
    await Promise.all([...ids].map(async (id) => put(copy, id, await collection.findOne({ _id: id } as unknown as Filter<Document>, { projection }))));
  }

  async function look(db: Db, copy: Copy): Promise<void> {
    const began = Date.now();
    const covering = copy.changes;
    if (!copy.entries || began - copy.lookedAt > RETENTION_MS - MARGIN_MS) {
      await readAll(db, copy);
      copy.covered = covering;
      return;
    }
    const from = bucketOf(copy.lookedAt - MARGIN_MS);
    const buckets = Array.from({ length: bucketOf(began) - from + 1 }, (_, offset) => from + offset);
    const notes = (await Promise.all(buckets.map((bucket) => notesOf(db).find({ bucket }).toArray()))).flat();
    const stale = new Set<number>();
    for (const note of notes) {
      const key = note._id.toHexString();
      if (copy.seen.has(key)) continue;
      copy.seen.set(key, note.bucket);
      if (note.index !== spec.name) continue;
      if (note.reset) {
        await readAll(db, copy);
        copy.covered = covering;
        return;
      }
      for (const id of note.ids) stale.add(id);
    }
    await readAgain(db, copy, stale);
    copy.lookedAt = began;
    copy.covered = covering;
    for (const [key, bucket] of copy.seen) if (bucket < from) copy.seen.delete(key);
  }

  /** Resolves once the copy covers every change counted before the call, and is no older than `QUIET_MS`. */
  async function current(db: Db): Promise<Map<number, Entry>> {
    const copy = copyOf(db);
    const wanted = copy.changes;
    const asked = Date.now();
    while (!copy.entries || copy.covered < wanted || copy.lookedAt < asked - QUIET_MS) {
      copy.looking ??= look(db, copy).finally(() => (copy.looking = null));
      await copy.looking;
    }
    return copy.entries;
  }

  async function note(db: Db, fields: Omit<Note, '_id' | 'bucket' | 'index'>, at = new Date()): Promise<void> {
    const copy = copyOf(db);
    const now = at.getTime();
    const row: Note = { _id: new ObjectId(), bucket: bucketOf(now), index: spec.name, ...fields };
    copy.seen.set(row._id.toHexString(), row.bucket);
    await notesOf(db).insertOne(row);
    // Each process prunes behind the seconds it writes in, by key: a bucket a minute old is read by no one.
    const old = bucketOf(now - RETENTION_MS - MARGIN_MS);
    if (old > copy.prunedUpTo) {
      copy.prunedUpTo = old;
      await notesOf(db).deleteMany({ bucket: old }).catch(() => {});
    }
  }

  const servedFields = (fields: Iterable<string>) => [...fields].every((field) => kept.has(field.split('.')[0]));

  return {
    spec,
    serves(filter, sort) {
      return servedFields(fieldsOf(filter as Document)) && servedFields(Object.keys(sort as Document));
    },
    async page(db, filter, sort, skip, limit) {
      const entries = await current(db);
      const ids = ordered(copyOf(db), entries, filter, sort);
      return { ids: ids.slice(skip, limit > 0 ? skip + limit : undefined), total: ids.length };
    },
    entries: (db) => current(db),
    async wrote(db, id, doc, at) {
      put(copyOf(db), id, doc);
      await note(db, { ids: [id] }, at);
    },
    async changed(db, ids) {
      if (!ids.length) return;
      await readAgain(db, copyOf(db), ids);
      await note(db, { ids });
    },
    async reset(db) {
      const copy = copyOf(db);
      copy.entries = null;
      copy.generation++;
      await note(db, { ids: [], reset: true });
    },
  };
}

/** Whether a document matches a list's filter, as the index tells it (MongoDB's query semantics, in memory). */
export function matcher(filter: object): (doc: object) => boolean {
  return sift(filter as never) as (doc: object) => boolean;
}

/** Sorts documents in a list's order, as the index orders its entries. */
export function sortDocuments<T extends object>(docs: T[], sort: Sort): T[] {
  return docs.sort(comparator(sort as Record<string, 1 | -1>) as unknown as (a: T, b: T) => number);
}

/** Every field a filter names, operators' operands included (`$and`, `$or`, `$nor`, `$not`). */
function fieldsOf(filter: Document): string[] {
  const fields: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') for (const clause of value as Document[]) fields.push(...fieldsOf(clause));
    // Any other top-level operator is named as it is, so a filter that has one is not served.
    else fields.push(key);
  }
  return fields;
}

/** MongoDB's order for the values these lists sort on: numbers, strings (by code unit), booleans; missing first. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function comparator(sort: Record<string, 1 | -1>): (a: Entry, b: Entry) => number {
  const keys = Object.entries(sort);
  return (a, b) => {
    for (const [field, direction] of keys) {
      const order = compareValues(a[field], b[field]);
      if (order !== 0) return order * direction;
    }
    return 0;
  };
}
