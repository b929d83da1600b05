import { bridgedFields } from './index-bridge.js';
import { type IndexSpec } from '../database/mongo.js';

/**
 * The shape of a query the service sends, values left out: which fields it matches exactly
 * (`$eq`, `$in`), which by range (anything else), and how it sorts. What decides whether an
 * index serves it on MongoDB.
 */
export interface QueryShape {
  collection: string;
  command: string;
  equality: string[];
  range: string[];
  sort: [string, 1 | -1][];
  /** An operator no index serves (`$where`, `$expr`, `$text`). */
  unindexable?: string;
  /** The command's `comment`: `full-scan: <why>` marks a scan made on purpose (a rebuild, a first start). */
  comment?: string;
  /** A find's limit: an empty filter with a limit of 1 asks whether there is any document at all. */
  limit?: number;
  /** The fields the embedded database matches in PostgreSQL (`pushedDownFields`); it matches the rest after decoding each row. */
  pushed?: string[];
}

/**
 * Collections that stay small whatever the content (a handful of options, checkpoints, faults,
 * owed erasures, installed plugins, the menus that add pages, uploads under way, the leases of
 * the webhook deliverer and the scheduler): a scan of them costs nothing.
 * Every other collection grows with the site.
 */
export const SMALL_COLLECTIONS = new Set(['options', 'checkpoints', 'projection_faults', 'owed_erasures', 'counters', 'plugins', 'menu_auto_add', 'pending_uploads', 'webhook_leases', 'scheduler_leases']);

/** A scan made on purpose says so in its command's comment. */
export const FULL_SCAN_COMMENT = 'full-scan:';

type Document = Record<string, unknown>;

const isDocument = (value: unknown): value is Document => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) && !(value instanceof RegExp) && !('_bsontype' in value);

/** A sort as the driver sends it: a Map (which keeps the order of its keys), or a document. */
export function sortDocument(sort: unknown): Document {
  if (sort instanceof Map) return Object.fromEntries(sort as Map<string, unknown>);
  return isDocument(sort) ? sort : {};
}

/** The shapes of a command as the driver sends it (one per `$or` branch, per update or delete statement); none for commands that query nothing. */
export function shapesOfCommand(commandName: string, command: Document): QueryShape[] {
  const collection = String(command[commandName] ?? '');
  const comment = typeof command.comment === 'string' ? command.comment : undefined;
  const make = (filter: unknown, sort: unknown) => {
    const document = isDocument(filter) ? filter : {};
    const pushed = pushedDownFields(document);
    return shapesOf(collection, commandName, document, sortDocument(sort), comment).map((shape) => (pushed.length ? { ...shape, pushed } : shape));
  };
  switch (commandName) {
    case 'find':
      // A limit of 0 is none.
      return make(command.filter, command.sort).map((shape) => (typeof command.limit === 'number' && command.limit > 0 ? { ...shape, limit: command.limit } : shape));
    case 'count':
      // Without a query, `count` reads the collection's own count (estimatedDocumentCount): no scan.
      return isDocument(command.query) && Object.keys(command.query).length ? make(command.query, undefined) : [];
    case 'distinct':
      return make(command.query, undefined);
    case 'findAndModify':
      return make(command.query, command.sort);
    case 'aggregate': {
      const pipeline = Array.isArray(command.pipeline) ? (command.pipeline as Document[]) : [];
      // `$collStats` reads the collection's statistics: no scan.
      if (pipeline[0]?.$collStats) return [];
      const match = pipeline[0]?.$match;
      const sort = (match ? pipeline[1] : pipeline[0])?.$sort;
      return make(match ?? {}, sort);
    }
    case 'update':
      return ((command.updates as Document[] | undefined) ?? []).flatMap((statement) => make(statement.q, undefined));
    case 'delete':
      return ((command.deletes as Document[] | undefined) ?? []).flatMap((statement) => make(statement.q, undefined));
    default:
      return [];
  }
}

const isPushable = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date
  || (typeof value === 'object' && value !== null && (value as { _bsontype?: string })._bsontype === 'ObjectId');

/**
 * The fields of a filter FerretDB 1.24 matches in PostgreSQL, where the index bridge's indexes
 * serve them: a top-level field equal (plainly or by `$eq`) to a string, number, boolean, date or
 * ObjectId. `$in`, `$or`, `$and`, ranges and dotted paths it matches in Go, after decoding every
 * row the pushed-down fields left (all of them, without any).
 */
export function pushedDownFields(filter: Document): string[] {
  const pushed = Object.entries(filter).filter(([field, condition]) => {
    if (field.startsWith('$') || field.includes('.')) return false;
    const operators = isDocument(condition) ? Object.keys(condition) : [];
    if (operators.length) return operators.length === 1 && operators[0] === '$eq' && isPushable((condition as Document).$eq);
    return isPushable(condition);
  });
  return pushed.map(([field]) => field).sort();
}

function shapesOf(collection: string, command: string, filter: Document, sort: Document, comment?: string): QueryShape[] {
  const base: QueryShape = {
    collection,
    command,
    equality: [],
    range: [],
    sort: Object.entries(sort).map(([field, direction]) => [field, Number(direction) < 0 ? -1 : 1]),
    ...(comment ? { comment } : {}),
  };
  let shapes = [base];
  for (const [field, condition] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(condition)) {
      for (const clause of condition as Document[]) shapes = shapes.flatMap((shape) => merge(shape, shapesOf(collection, command, clause, {})));
    } else if ((field === '$nor' || field === '$not') && Array.isArray(condition)) {
      // A negation narrows nothing: its fields are filtered after whatever index serves the rest.
      const fields = (condition as Document[]).flatMap((clause) => Object.keys(clause));
      shapes = shapes.map((shape) => ({ ...shape, range: [...shape.range, ...fields] }));
    } else if (field === '$or' && Array.isArray(condition)) {
      const branches = (condition as Document[]).flatMap((clause) => shapesOf(collection, command, clause, {}));
      shapes = shapes.flatMap((shape) => merge(shape, branches));
    } else if (field.startsWith('$')) {
      shapes = shapes.map((shape) => ({ ...shape, unindexable: field }));
    } else {
      const kind = isDocument(condition) && Object.keys(condition).some((key) => key.startsWith('$'))
        ? Object.keys(condition).every((key) => key === '$eq' || key === '$in') ? 'equality' : 'range'
        : condition instanceof RegExp ? 'range' : 'equality';
      shapes = shapes.map((shape) => ({ ...shape, [kind]: [...shape[kind], field] }));
    }
  }
  return shapes.map((shape) => ({ ...shape, equality: [...new Set(shape.equality)].sort(), range: [...new Set(shape.range)].sort() }));
}

function merge(shape: QueryShape, branches: QueryShape[]): QueryShape[] {
  return branches.map((branch) => ({
    ...shape,
    equality: [...shape.equality, ...branch.equality],
    range: [...shape.range, ...branch.range],
    ...(branch.unindexable ? { unindexable: branch.unindexable } : {}),
  }));
}

/**
 * The index that serves `shape` best on MongoDB (using most of its keys), by the equality-sort-range rule: the index's keys
 * start with fields the query matches exactly (any order), continue with the sort's fields in
 * order (all in the index's direction, or all reversed), then a range field; the sort must be
 * served whole, and the index must narrow or order the query. The `_id` index is always there.
 */
export function servingIndex(shape: QueryShape, indexes: readonly IndexSpec[]): string | undefined {
  if (shape.unindexable) return undefined;
  const candidates = [{ name: '_id_', key: { _id: 1 } }, ...indexes.filter((index) => index.collection === shape.collection)];
  let best: { name: string; keys: number } | undefined;
  for (const index of candidates) {
    const keys = keysServing(Object.entries(index.key).map(([field, direction]) => [field, Number(direction)] as const), shape);
    if (keys > (best?.keys ?? 0)) best = { name: index.name, keys };
  }
  return best?.name;
}

/** How many of the index's keys the query uses (0: the index does not serve it). */
function keysServing(keys: readonly (readonly [string, number])[], shape: QueryShape): number {
  const equality = new Set(shape.equality);
  let i = 0;
  while (i < keys.length && equality.has(keys[i][0])) i++;
  const narrowed = i > 0;
  const sort = shape.sort.filter(([field]) => !equality.has(field));
  let orientation = 0;
  for (const [field, direction] of sort) {
    if (i >= keys.length || keys[i][0] !== field) return 0;
    const relative = keys[i][1] === direction ? 1 : -1;
    if (orientation !== 0 && relative !== orientation) return 0;
    orientation = relative;
    i++;
  }
  const ranged = i < keys.length && shape.range.includes(keys[i][0]);
  // Keys matched exactly or in sort order count double a range's: they narrow or order more.
  return narrowed || sort.length > 0 || ranged ? 2 * i + (ranged ? 1 : 0) : 0;
}

/** One line naming a shape: `posts find {type,status} ~{date} sort date:-1,_id:-1`. */
export function describeShape(shape: QueryShape): string {
  const parts = [`${shape.collection} ${shape.command}`, `{${shape.equality.join(',')}}`];
  if (shape.range.length) parts.push(`~{${shape.range.join(',')}}`);
  if (shape.sort.length) parts.push(`sort ${shape.sort.map(([field, direction]) => `${field}:${direction}`).join(',')}`);
  if (shape.unindexable) parts.push(`uses ${shape.unindexable}`);
  if (shape.pushed?.length) parts.push(`pushed {${shape.pushed.join(',')}}`);
  if (shape.limit !== undefined) parts.push('limited');
  return parts.join(' ');
}

export interface ShapeReport {
  shape: string;
  collection: string;
  /** The index that serves it on MongoDB; none for a scan. */
  index?: string;
  /** How the embedded database serves it at a cost that follows its answer; none when it decodes rows it does not return. */
  embedded?: string;
  /** Why an unserved shape is allowed: a small collection, or a scan made on purpose. */
  allowed?: string;
}

/**
 * Every distinct shape with the index that serves it on MongoDB and how the embedded database
 * serves it, and the shapes that fail the check: on a growing collection, unserved on either,
 * unless the command says it scans on purpose or the embedded scan is a known one.
 */
export function checkShapes(
  shapes: Iterable<QueryShape>,
  indexes: readonly IndexSpec[],
  knownEmbeddedScan: (shape: string) => boolean = () => false,
): { rows: ShapeReport[]; failures: ShapeReport[] } {
  const rows = new Map<string, ShapeReport>();
  for (const shape of shapes) {
    const line = describeShape(shape);
    // Commands of one shape may differ in what allows a scan (a comment, a limit): a failure stays.
    const seen = rows.get(line);
    if (seen && isFailure(seen)) continue;
    const index = servingIndex(shape, indexes);
    const embedded = embeddedServing(shape, indexes);
    const allowed = index && embedded ? undefined
      : SMALL_COLLECTIONS.has(shape.collection) ? 'small collection'
      : shape.comment?.startsWith(FULL_SCAN_COMMENT) ? shape.comment
      : isAnyDocumentProbe(shape) ? 'whether there is any document: the first one found ends it'
      : index && knownEmbeddedScan(line) ? 'a known scan on the embedded database (embedded-scans.txt)'
      : undefined;
    rows.set(line, { shape: line, collection: shape.collection, ...(index ? { index } : {}), ...(embedded ? { embedded } : {}), ...(allowed ? { allowed } : {}) });
  }
  const sorted = [...rows.values()].sort((a, b) => a.shape.localeCompare(b.shape));
  return { rows: sorted, failures: sorted.filter(isFailure) };
}

const isFailure = (row: ShapeReport): boolean => !(row.index && row.embedded) && !row.allowed;

/** Commands that return or change every row their filter matches (a count, a distinct or a pipeline answers less than it reads). */
const ANSWERS_EVERY_MATCH = new Set(['find', 'update', 'delete']);

/**
 * How the embedded database serves `shape` at a cost that follows its answer, if it does: it
 * decodes every row its pushed-down fields match, found through the index bridge (so at least one
 * of them must be bridged). That is about the answer when the pushed-down fields hold a unique
 * key (one row), or when they are the whole filter of a command that returns or changes every
 * row they match, unlimited. Anything else (a sorted page of a larger set, `$in`, `$or`, a
 * range, a count) decodes rows it does not answer with, and so grows with the collection.
 */
export function embeddedServing(shape: QueryShape, indexes: readonly IndexSpec[]): string | undefined {
  if (shape.unindexable || !shape.pushed?.length) return undefined;
  const pushed = new Set(shape.pushed);
  // A collection without a declared index has no bridge, not even for `_id`.
  const bridged = bridgedFields(indexes.filter((index) => index.collection === shape.collection)).get(shape.collection) ?? [];
  if (!bridged.some((field) => pushed.has(field))) return undefined;
  const uniqueKeys = [['_id'], ...indexes.filter((index) => index.collection === shape.collection && index.unique).map((index) => (index.key instanceof Map ? [...index.key.keys()] : Object.keys(index.key)))];
  if (uniqueKeys.some((keys) => keys.every((field) => pushed.has(field)))) return 'one row, by a unique key';
  const answersEveryMatch = ANSWERS_EVERY_MATCH.has(shape.command) && shape.limit === undefined
    && shape.range.length === 0 && shape.equality.every((field) => pushed.has(field));
  return answersEveryMatch ? 'every row its equality matches' : undefined;
}

function isAnyDocumentProbe(shape: QueryShape): boolean {
  return shape.limit === 1 && shape.equality.length === 0 && shape.range.length === 0 && shape.sort.length === 0;
}
