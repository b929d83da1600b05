import { randomUUID } from 'node:crypto';
import { type Collection, type Db, type Document, type Filter, type Sort, type WithId } from 'mongodb';
import siftModule from 'sift';
import { changeLog, GAP_WAIT_MS, POSITION_BLOCK, type StoredEvent } from '../log/change-log.js';
import { findByIds } from '../queries/filters.js';
import { isDuplicateKey } from '../database/mongo.js';
import { FULL_SCAN_COMMENT } from '../queries/query-shapes.js';
import { siteChanges } from '../coordination/site-changes.js';

/**
 * A list index kept in each process's memory: the few small fields a collection's lists filter
 * and sort on, for every document of the kinds it holds. The embedded database serves only
 * equality from an index and sorts, skips and counts after decoding every matching row; from
 * this index a list's order, page and total are memory work, and only the page's documents are
 * read, each by its key. A list that filters or sorts on a field the index does not keep (a
 * search in titles and content) is not served by it.
 *
 * Kept current across processes by following the change log by position, the one clock of the
 * whole log, never by anyone's wall clock. Every write of the documents an index holds is an
 * event of the log, at a position; a process's copy remembers the last position it followed to
 * (`through`). Before a list, a copy that anything changed for since its last look (the site's
 * change token moved), or that has not looked for a second, reads the events past it (by key,
 * then by position block: equality, which the embedded database serves from an index), without
 * their data, and reads again the items they name. `readPositions` makes the prefix gap-free: a
 * position whose append is still in flight holds the copy there (the events past it are applied
 * all the same) until it lands, or until the copy voids it after `GAP_WAIT_MS`, and the append
 * then takes a later position. So a slow write is seen once it lands, however slow.
 *
 * An event is appended before its item's document is written (the projection): an item whose
 * document has not yet reached the event a copy went past is awaited, read again at every look
 * until it has (or is gone, after an event that ends its stream). What changes the documents
 * without an event of its own moves a token the copies read at every look, by key, and a copy
 * that finds it moved reads the whole index again: healing (the events were there; their
 * documents were written late, perhaps after a copy's full read) and a rebuild. A process's
 * first read starts following the log a few blocks before the head it found, for the projections
 * still running then; a copy that has not looked for long (a full page of positions behind)
 * reads the whole index again too.
 */
export interface KeptIndexSpec {
  /** What its token is filed under. */
  readonly name: string;
  readonly collection: string;
  /** The documents it holds. */
  readonly holds: Filter<Document>;
  /** The fields kept of each (`_id` and `version` always are). */
  readonly fields: readonly string[];
  /** The stream types (post type slugs) whose events write its documents. */
  readonly streamTypes: readonly string[];
  /** Event types after which a stream has no document left (a force delete). */
  readonly endsStream: readonly string[];
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

/** The document an item must reach, from the last of its events a copy went past. */
interface Awaited {
  seq: number;
  /** That event ended the stream: no document is what it leaves. */
  ends: boolean;
}

/** A checkpoint row whose token moves when documents changed without an event: every copy reads everything again. */
interface RereadToken {
  _id: string;
  token: string;
}

// sift is CommonJS: Node hands its tester over as the module, with a `default` naming it again;
// other loaders (the test runner's) hand over the tester alone.
const sift = (typeof siftModule === 'function' ? siftModule : (siftModule as { default: unknown }).default) as typeof siftModule.default;

/** The longest a list is served without a look at the log, for writes no change token announced. */
const QUIET_MS = 1000;
/** Positions a look reads at most; a copy a full page behind has been away long, and reads everything again. */
const LOOK_POSITIONS = 16 * POSITION_BLOCK;
/** Positions below the head a first read follows the log from: the events whose projection may still have been running then. */
const FIRST_READ_OVERLAP = 4 * POSITION_BLOCK;

const tokens = (db: Db) => db.collection<RereadToken>('checkpoints');
const tokenKey = (name: string) => `kept_index:${name}`;

/** One process's copy of an index over one database. */
interface Copy {
  entries: Map<number, Entry> | null;
  /** The last position of the log followed to: every event up to it is in the entries, or its item is awaited. */
  through: number;
  /** Items whose document had not reached an event the copy went past: read again at every look. */
  awaited: Map<number, Awaited>;
  /** The first missing position the copy is held at, and when (this process's monotonic time) it was first found missing. */
  gap: { position: number; since: number } | null;
  /** The reread token as of the last full read (null: none recorded). */
  token: string | null;
  /** When the last look (or full read) began, in this process's monotonic time. */
  lookedAt: number;
  /** Counts the site's changes; a look covers those counted when it began. */
  changes: number;
  covered: number;
  looking: Promise<void> | null;
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
  /**
   * One page of a list of `collection` and how many match: from the index when it serves the list
   * (only the page's documents are read, each by key), else by a query and a count, which the
   * embedded database answers by decoding every row (`unserved` says why, for the query report).
   */
  list<T extends { _id: number }>(db: Db, collection: Collection<T>, filter: Filter<T>, sort: Sort, window: { skip: number; perPage: number }, unserved: string): Promise<{ docs: WithId<T>[]; total: number }>;
  /** Every entry, current as `page` reads them: what a list as of an earlier point starts from (`as-of.ts`). */
  entries(db: Db): Promise<ReadonlyMap<number, Readonly<Document>>>;
  /** This process wrote the document `id` (null: it is gone): its entry now (the others follow the event). */
  wrote(db: Db, id: number, doc: Document | null): void;
  /** Documents changed later than their events (healing): every copy, this one too, reads everything again. */
  changed(db: Db, ids: number[]): Promise<void>;
  /** The whole collection was rewritten (a rebuild): every process reads it again. */
  reset(db: Db): Promise<void>;
}

/** One process's copies of the index (one per database): their entries, read whole or one by one, and the reread token. */
function keptCopies(spec: KeptIndexSpec, kept: ReadonlySet<string>) {
  const projection = Object.fromEntries([...kept].map((field) => [field, 1]));
  const isHeld = sift(spec.holds as never) as (doc: unknown) => boolean;
  const copies = new WeakMap<Db, Copy>();

  function copyOf(db: Db): Copy {
    let copy = copies.get(db);
    if (!copy) {
      const fresh: Copy = { entries: null, through: 0, awaited: new Map(), gap: null, token: null, lookedAt: 0, changes: 0, covered: 0, looking: null, generation: 0, orders: new Map() };
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

  const readToken = async (db: Db) => (await tokens(db).findOne({ _id: tokenKey(spec.name) }))?.token ?? null;

  /** Moves the reread token: every copy that reads it next reads the whole index again. */
  async function moveToken(db: Db): Promise<void> {
    const row = { _id: tokenKey(spec.name), token: randomUUID() };
    await tokens(db)
      .replaceOne({ _id: row._id }, row, { upsert: true })
      .catch(async (error: unknown) => {
        // FerretDB does not retry an upsert that lost a race for the key: the row exists now.
        if (!isDuplicateKey(error)) throw error;
        await tokens(db).replaceOne({ _id: row._id }, row);
      });
  }

  /**
   * Reads every document again, and follows the log from a little before its head: the token and
   * the head are read first, so a rebuild or heal finishing meanwhile, or an event appended
   * meanwhile, is found by the next look.
   */
  async function readAll(db: Db, copy: Copy, token: string | null): Promise<void> {
    const head = (await changeLog(db).firstFreePosition()) - 1;
    const rows = await db
      .collection(spec.collection)
      .find(spec.holds, { projection, comment: `${FULL_SCAN_COMMENT} a process's first read of the ${spec.name} list index, kept from then on` })
      .toArray();
    copy.entries = new Map(rows.map((row) => [row._id as unknown as number, toEntry(row)]));
    copy.generation++;
    copy.token = token;
    copy.through = Math.max(0, head - FIRST_READ_OVERLAP);
    copy.gap = null;
  }

  return { projection, copyOf, put, readToken, moveToken, readAll };
}

/** Keeps a copy current by following the change log by position (see `KeptIndexSpec`). */
function keptFollowing(spec: KeptIndexSpec, copies: ReturnType<typeof keptCopies>) {
  const { projection, copyOf, put, readToken, readAll } = copies;

  const holdsStream = (event: StoredEvent) => event.streamType === undefined || spec.streamTypes.includes(event.streamType);
  const reached = (doc: Document | null, wanted: Awaited) => wanted.seq === 0 || (doc ? ((doc.version as number | undefined) ?? 0) >= wanted.seq : wanted.ends);

  /**
   * Reads again the items the events name that the copy does not have at that version already,
   * and those awaited; those whose document is still behind stay awaited.
   */
  async function follow(db: Db, copy: Copy, events: StoredEvent[]): Promise<void> {
    const wanted = new Map(copy.awaited);
    for (const event of events) {
      if (!holdsStream(event)) continue;
      // An event stored before events named their type may be another index's: read again, not awaited.
      const seq = event.streamType === undefined ? 0 : event.seq;
      if ((wanted.get(event.stream)?.seq ?? -1) < seq) wanted.set(event.stream, { seq, ends: spec.endsStream.includes(event.type) });
    }
    const collection = db.collection(spec.collection);
    await Promise.all(
      [...wanted].map(async ([id, awaited]) => {
        const version = copy.entries?.get(id)?.version;
        if (awaited.seq > 0 && version !== undefined && version >= awaited.seq) return void copy.awaited.delete(id);
        const doc = await collection.findOne({ _id: id } as unknown as Filter<Document>, { projection });
        put(copy, id, doc);
        if (reached(doc, awaited)) copy.awaited.delete(id);
        else copy.awaited.set(id, awaited);
      }),
    );
  }

  /** The events past the copy's position: without waiting at a gap, unless it has been waited out (then voided). */
  function readOn(db: Db, copy: Copy, began: number) {
    const voiding = copy.gap !== null && began - copy.gap.since >= GAP_WAIT_MS;
    return changeLog(db).readPositions(copy.through, LOOK_POSITIONS, { outline: true, ...(voiding ? { gapWaitMs: 0 } : { waitForGaps: false }) });
  }

  async function look(db: Db, copy: Copy): Promise<void> {
    const began = performance.now();
    const covering = copy.changes;
    const token = await readToken(db);
    if (!copy.entries || token !== copy.token) await readAll(db, copy, token);
    let page = await readOn(db, copy, began);
    if (page.highest - copy.through >= LOOK_POSITIONS) {
      // A full page behind: away long. Reading everything again costs less than following.
      await readAll(db, copy, token);
      page = await readOn(db, copy, began);
    }
    const { events, through, highest } = page;
    await follow(db, copy, events);
    copy.gap = through === highest ? null : copy.gap?.position === through + 1 ? copy.gap : { position: through + 1, since: began };
    copy.through = through;
    copy.lookedAt = began;
    copy.covered = covering;
  }

  /** Resolves once the copy covers every change counted before the call, and is no older than `QUIET_MS`. */
  async function current(db: Db): Promise<Map<number, Entry>> {
    const copy = copyOf(db);
    const wanted = copy.changes;
    const asked = performance.now();
    while (!copy.entries || copy.covered < wanted || copy.lookedAt < asked - QUIET_MS) {
      copy.looking ??= look(db, copy).finally(() => (copy.looking = null));
      await copy.looking;
    }
    return copy.entries;
  }

  return { current };
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

export function keptIndex(spec: KeptIndexSpec): KeptIndex {
  const kept = new Set(['_id', 'version', ...spec.fields]);
  const copies = keptCopies(spec, kept);
  const { copyOf, put, moveToken } = copies;
  const { current } = keptFollowing(spec, copies);

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
    async list(db, collection, filter, sort, window, unserved) {
      if (!this.serves(filter, sort)) {
        const comment = `${FULL_SCAN_COMMENT} ${unserved}`;
        const [total, docs] = await Promise.all([
          collection.countDocuments(filter, { comment }),
          collection.find(filter, { comment }).sort(sort).skip(window.skip).limit(window.perPage).toArray(),
        ]);
        return { total, docs };
      }
      const { ids, total } = await this.page(db, filter, sort, window.skip, window.perPage);
      return { total, docs: await findByIds(collection, ids as WithId<never>['_id'][]) };
    },
    entries: (db) => current(db),
    wrote(db, id, doc) {
      put(copyOf(db), id, doc);
    },
    async changed(db, ids) {
      if (ids.length) await moveToken(db);
    },
    async reset(db) {
      const copy = copyOf(db);
      copy.entries = null;
      copy.generation++;
      await moveToken(db);
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
