import { type Collection, type Db, type Filter, type OptionalUnlessRequiredId } from 'mongodb';
import { type StoredEvent } from '../log/change-log.js';
import { type KeptIndex } from './kept-index.js';
import { duplicateKeyRefusal, isDuplicateKey } from '../database/mongo.js';
import { defineProjection, type Projection } from './projections.js';

/** A document a projection keeps: its key, and the seq of the last event that wrote it (its guard). */
export interface ProjectedDocument {
  _id: number;
  version: number;
}

/** What one event does to a history type's read models: the item after it (null: gone), and its rows (revisions). */
export interface DocumentEffects<S, R> {
  item: S | null;
  upsertRevisions: R[];
  deleteRevisions: number[];
  /** A force delete removes every row of the item. */
  deleteAllRevisions: boolean;
}

/** What the kernel checks before an append, from a type's pure fold: the item after the event, and every document its projection would write. */
export function documentFold<S, R>(evolve: (item: S | null, event: StoredEvent) => DocumentEffects<S, R>) {
  return (item: S | null, event: StoredEvent): { state: S | null; documents: object[] } => {
    const effects = evolve(item, event);
    return { state: effects.item, documents: [...(effects.item ? [effects.item] : []), ...(effects.upsertRevisions as object[])] };
  };
}

export interface DocumentProjectionSpec<S extends ProjectedDocument, R extends ProjectedDocument & { parent: number }> {
  readonly name: string;
  readonly streamTypes: readonly string[];
  readonly handles: readonly string[];
  readonly endsStream: readonly string[];
  legacyStreamType?(first: StoredEvent): string | undefined;
  readonly keptIndex?: KeptIndex;
  /** Where the items live. */
  items(db: Db): Collection<S>;
  /** Where their rows (revisions and autosaves) live. */
  rows(db: Db): Collection<R>;
  /** The type's pure fold. */
  evolve(item: S | null, event: StoredEvent): DocumentEffects<S, R>;
  /** A row as stored, with what it is found by besides its fields (its block of the log). */
  stored(row: R): R;
  /** Empties the read model before a full replay. */
  clear(db: Db): Promise<void>;
}

/**
 * Writes a row unless a newer write of it is there. Two writers may apply the same event at once
 * (a command and another's catch-up): MongoDB retries the upsert that loses the race for the
 * `_id`, FerretDB 1.24 answers it with a duplicate key, which here means the row is there
 * already, written by this event or a later one.
 */
async function writeRow<R extends ProjectedDocument>(rows: Collection<R>, row: R, stored: (row: R) => R): Promise<void> {
  await rows.replaceOne({ _id: row._id, version: { $lt: row.version } } as Filter<R>, stored(row), { upsert: true }).catch((error: unknown) => {
    if (!isDuplicateKey(error)) throw error;
  });
}

/**
 * Writes rows in one ordered bulk write, by key and guarded like `writeRow`. FerretDB 1.24 stops
 * an unordered bulk write at its first error too, so after a row that a newer write holds (a
 * duplicate key, as in `writeRow`) the rest is sent again.
 */
async function writeRows<R extends ProjectedDocument>(collection: Collection<R>, rows: R[], stored: (row: R) => R): Promise<void> {
  const operations = rows.map((row) => ({
    replaceOne: { filter: { _id: row._id, version: { $lt: row.version } } as Filter<R>, replacement: stored(row), upsert: true },
  }));
  for (let start = 0; start < operations.length; ) {
    try {
      await collection.bulkWrite(operations.slice(start), { ordered: true });
      return;
    } catch (error) {
      const refusedAt = duplicateKeyRefusal(error)?.index;
      if (refusedAt === undefined) throw error;
      start += refusedAt + 1;
    }
  }
}

/**
 * Writes an item's next state over the one read before: deletes it, inserts it (a duplicate key
 * means another writer inserted it first), or replaces it guarded by the version read.
 */
async function writeItem<S extends ProjectedDocument>(items: Collection<S>, stream: number, current: S | null, next: S | null): Promise<void> {
  if (next === null) {
    await items.deleteOne({ _id: stream } as Filter<S>);
  } else if (!current) {
    await items.insertOne(next as OptionalUnlessRequiredId<S>).catch((error: unknown) => {
      if (!isDuplicateKey(error)) throw error;
    });
  } else if (next !== current) {
    await items.replaceOne({ _id: stream, version: current.version } as Filter<S>, next);
  }
}

/** A run of events folded in memory: the item after it, and its rows' net upserts and deletes. */
interface FoldedRun<S, R> {
  item: S | null;
  upserts: Map<number, R>;
  deletes: Set<number>;
}

/** Folds a run of events; undefined when one of them is a force delete, which is applied on its own, never in a run. */
function foldRun<S, R extends ProjectedDocument>(
  evolve: (item: S | null, event: StoredEvent) => DocumentEffects<S, R>,
  current: S | null,
  run: StoredEvent[],
): FoldedRun<S, R> | undefined {
  let item = current;
  const upserts = new Map<number, R>();
  const deletes = new Set<number>();
  for (const event of run) {
    const effects = evolve(item, event);
    if (effects.deleteAllRevisions) return undefined;
    for (const id of effects.deleteRevisions) {
      upserts.delete(id);
      deletes.add(id);
    }
    for (const row of effects.upsertRevisions) {
      deletes.delete(row._id);
      upserts.set(row._id, row);
    }
    item = effects.item;
  }
  return { item, upserts, deletes };
}

/** Folds a whole stream from nothing: the item at its end and the rows still there. */
function foldStream<S, R extends ProjectedDocument>(
  evolve: (item: S | null, event: StoredEvent) => DocumentEffects<S, R>,
  events: StoredEvent[],
): { item: S | null; rows: Map<number, R> } {
  let item: S | null = null;
  const rows = new Map<number, R>();
  for (const event of events) {
    const effects = evolve(item, event);
    if (effects.deleteAllRevisions) rows.clear();
    for (const id of effects.deleteRevisions) rows.delete(id);
    for (const row of effects.upsertRevisions) rows.set(row._id, row);
    item = effects.item;
  }
  return { item, rows };
}

/**
 * The projection of a history type whose items are one document each, with rows (revisions,
 * autosaves) beside them: built from the type's pure fold. Applying an event writes its rows
 * first and by key (a retry rewrites them alike), then the item, guarded by its version, so an
 * event applied twice changes nothing; a full replay folds each stream in memory and writes once.
 */
export function documentProjection<S extends ProjectedDocument, R extends ProjectedDocument & { parent: number }>(spec: DocumentProjectionSpec<S, R>): Projection {
  const byId = (id: number) => ({ _id: id }) as Filter<S>;
  const stored = (row: R) => spec.stored(row);
  const itemBefore = async (db: Db, stream: number, before?: object | null): Promise<S | null> =>
    before !== undefined ? (before as S | null) : ((await spec.items(db).findOne(byId(stream))) as S | null);

  async function apply(db: Db, event: StoredEvent, before?: object | null): Promise<void> {
    const rows = spec.rows(db);
    const current = await itemBefore(db, event.stream, before);
    if (current && current.version >= event.seq) return;
    const effects = spec.evolve(current, event);
    for (const row of effects.upsertRevisions) await writeRow(rows, row, stored);
    if (effects.deleteRevisions.length) await rows.deleteMany({ _id: { $in: effects.deleteRevisions } } as Filter<R>);
    if (effects.deleteAllRevisions) await rows.deleteMany({ parent: event.stream } as Filter<R>);
    await writeItem(spec.items(db), event.stream, current, effects.item);
  }

  async function applyRun(db: Db, events: StoredEvent[], before?: object | null): Promise<void> {
    const current = await itemBefore(db, events[0].stream, before);
    const run = events.filter((event) => !current || current.version < event.seq);
    const folded = foldRun((item: S | null, event) => spec.evolve(item, event), current, run);
    if (!folded) {
      for (const [offset, each] of run.entries()) await apply(db, each, offset === 0 ? current : undefined);
      return;
    }
    if (!run.length) return;
    const { item, upserts, deletes } = folded;
    if (upserts.size) await writeRows(spec.rows(db), [...upserts.values()], stored);
    if (deletes.size) await spec.rows(db).bulkWrite([...deletes].map((id) => ({ deleteOne: { filter: { _id: id } as Filter<R> } })));
    await writeItem(spec.items(db), events[0].stream, current, item);
  }

  return defineProjection({
    name: spec.name,
    streamTypes: spec.streamTypes,
    ...(spec.legacyStreamType ? { legacyStreamType: spec.legacyStreamType } : {}),
    ...(spec.keptIndex ? { keptIndex: spec.keptIndex } : {}),
    handles: spec.handles,
    endsStream: spec.endsStream,
    apply,
    applyRun,
    async versionOf(db, stream) {
      return ((await spec.items(db).findOne(byId(stream), { projection: { version: 1 } })) as ProjectedDocument | null)?.version ?? 0;
    },
    async versionsOf(db, streams) {
      const docs = (await spec.items(db).find({ _id: { $in: streams } } as Filter<S>, { projection: { version: 1 } }).toArray()) as ProjectedDocument[];
      return new Map(docs.map((doc) => [doc._id, doc.version]));
    },
    async rebuildStream(db, events) {
      const { item, rows } = foldStream((item: S | null, event) => spec.evolve(item, event), events);
      if (item) await spec.items(db).insertOne(item as OptionalUnlessRequiredId<S>);
      if (rows.size) await spec.rows(db).insertMany([...rows.values()].map((row) => spec.stored(row)) as OptionalUnlessRequiredId<R>[]);
    },
    clear: spec.clear,
  });
}
