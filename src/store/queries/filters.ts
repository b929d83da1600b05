import { type Collection, type Document, type Filter, type FindOptions, type WithId } from 'mongodb';
import { FULL_SCAN_COMMENT } from './query-shapes.js';

/**
 * A filter with the same meaning in its plainest form: `$and` clauses merged into one document
 * where their fields do not meet, a one-branch `$or` unwrapped, a one-value `$in` written as
 * equality. FerretDB hands only plain top-level equality to its backend (anything else it
 * filters row by row itself, after decoding every row), and MongoDB plans both forms alike.
 */
export function plainFilter<T>(filter: Filter<T>): Filter<T> {
  return plain(filter as Document) as Filter<T>;
}

function plain(filter: Document): Document {
  const out: Document = {};
  const rest: Document[] = [];
  const add = (key: string, value: unknown) => {
    if (Object.hasOwn(out, key)) rest.push({ [key]: value });
    else out[key] = value;
  };
  const merge = (clause: Document) => {
    for (const [key, value] of Object.entries(plain(clause))) add(key, value);
  };
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) value.forEach(merge);
    else if (key === '$or' && Array.isArray(value) && value.length === 1) merge(value[0] as Document);
    else add(key, isOneValueIn(value) ? value.$in[0] : value);
  }
  if (rest.length) out.$and = rest;
  return out;
}

function isOneValueIn(value: unknown): value is { $in: [unknown] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$in' && Array.isArray((value as { $in: unknown }).$in) && (value as { $in: unknown[] }).$in.length === 1;
}

/** Ids past which reading each by its key costs more round trips than one scan is worth. */
const MAX_KEYED_READS = 200;

/**
 * The documents with these ids, in the order asked (missing ones left out). Each is read by its
 * key: the embedded database serves only equality from an index, so `{ _id: { $in: ids } }` there
 * decodes the whole collection, while a page's worth of keyed reads cost what the page holds.
 */
export async function findByIds<T extends { _id: unknown }>(collection: Collection<T>, ids: readonly T['_id'][], options: FindOptions = {}): Promise<WithId<T>[]> {
  if (ids.length > MAX_KEYED_READS) {
    const rows = await collection.find({ _id: { $in: ids } } as Filter<T>, { ...options, comment: `${FULL_SCAN_COMMENT} more ids than keyed reads are worth` }).toArray();
    const byId = new Map<unknown, WithId<T>>(rows.map((row) => [row._id, row]));
    return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }
  const rows = await Promise.all(ids.map((id) => collection.findOne({ _id: id } as Filter<T>, options)));
  return rows.filter((row) => row !== null) as WithId<T>[];
}
