import { describe, expect, it } from 'vitest';
import { type IndexSpec } from '../database/mongo.js';
import { checkShapes, embeddedServing, pushedDownFields, servingIndex, shapesOfCommand } from './query-shapes.js';

const indexes: IndexSpec[] = [
  { collection: 'posts', key: { type: 1, status: 1, date: -1, _id: -1 }, name: 'type_status_date' },
  { collection: 'posts', key: { type: 1, slug: 1 }, name: 'type_slug' },
  { collection: 'revisions', key: { parent: 1, date: -1, _id: -1 }, name: 'parent_date_id' },
  { collection: 'revisions', key: { autosaveOf: 1 }, name: 'autosave_of' },
  { collection: 'events', key: { position: 1 }, name: 'position_unique', unique: true, sparse: true },
];
const served = (commandName: string, command: Record<string, unknown>) =>
  shapesOfCommand(commandName, command).map((shape) => servingIndex(shape, indexes));

describe('query shapes against declared indexes (equality, sort, range)', () => {
  it('serves equality fields in any order, then the sort in order or all reversed', () => {
    expect(served('find', { find: 'posts', filter: { status: 'publish', type: { $in: ['post', 'page'] } }, sort: { date: -1, _id: -1 } })).toEqual(['type_status_date']);
    expect(served('find', { find: 'posts', filter: { type: 'post', status: 'publish' }, sort: { date: 1, _id: 1 } })).toEqual(['type_status_date']);
    expect(served('find', { find: 'revisions', filter: { parent: 5 }, sort: { date: -1, _id: -1 } })).toEqual(['parent_date_id']);
    // The driver sends a sort as a Map.
    expect(served('find', { find: 'posts', filter: { type: 'post', status: 'publish' }, sort: new Map([['title', 1]]) })).toEqual([undefined]);
  });

  it('does not serve a sort the index cannot give, a query whose first key is not asked, or mixed directions', () => {
    expect(served('find', { find: 'posts', filter: { type: 'post', status: 'publish' }, sort: { title: 1 } })).toEqual([undefined]);
    expect(served('find', { find: 'posts', filter: { status: 'publish' } })).toEqual([undefined]);
    expect(served('find', { find: 'posts', filter: { type: 'post', status: 'publish' }, sort: { date: -1, _id: 1 } })).toEqual([undefined]);
    expect(served('find', { find: 'posts', filter: {} })).toEqual([undefined]);
  });

  it('checks every $or branch, update and delete statement, and the first $match of a pipeline', () => {
    expect(served('find', { find: 'posts', filter: { $or: [{ _id: 3 }, { type: 'post', slug: 'a' }] } })).toEqual(['_id_', 'type_slug']);
    expect(served('update', { update: 'posts', updates: [{ q: { _id: 1 } }, { q: { slug: 'x' } }] })).toEqual(['_id_', undefined]);
    expect(served('aggregate', { aggregate: 'posts', pipeline: [{ $match: { type: 'page', status: 'draft', date: { $lt: new Date() } } }] })).toEqual(['type_status_date']);
    expect(served('find', { find: 'posts', filter: { _id: 1, $where: 'true' } })).toEqual([undefined]);
  });

  it('sees no query in a count without a filter or in $collStats, which read the collection\'s own statistics', () => {
    expect(shapesOfCommand('count', { count: 'events' })).toEqual([]);
    expect(shapesOfCommand('aggregate', { aggregate: 'events', pipeline: [{ $collStats: { count: {} } }] })).toEqual([]);
    expect(served('aggregate', { aggregate: 'events', pipeline: [{ $group: { _id: '$stream' } }] })).toEqual([undefined]);
  });

  it('fails unserved shapes of growing collections, allowing small collections, scans said on purpose and any-document probes', () => {
    const shapes = [
      { find: 'posts', filter: { author: 3 } },
      { find: 'options', filter: {} },
      { find: 'users', filter: {}, limit: 1 },
      { find: 'events', filter: {}, comment: 'full-scan: a rebuild' },
    ].flatMap((command) => shapesOfCommand('find', command));
    const { failures, rows } = checkShapes(shapes, indexes);
    expect(failures.map((row) => row.shape)).toEqual(['posts find {author} pushed {author}']);
    expect(rows.filter((row) => row.allowed).map((row) => row.collection).sort()).toEqual(['events', 'options', 'users']);
  });
});

describe('query shapes on the embedded database (equality pushed down, served by the index bridge)', () => {
  const embedded = (commandName: string, command: Record<string, unknown>) =>
    shapesOfCommand(commandName, command).map((shape) => embeddedServing(shape, indexes));

  it('pushes down top-level equality to a scalar only: no $in, range, $or, dotted path or document', () => {
    expect(pushedDownFields({ _id: 4, type: { $eq: 'post' }, status: { $in: ['publish'] }, date: { $lt: new Date() }, 'meta.x': 1, $or: [{ a: 1 }], tags: { a: 1 }, on: true, at: new Date() })).toEqual(['_id', 'at', 'on', 'type']);
  });

  it('serves one row by a unique key, or every row a bridged equality matches when the command answers with all of them', () => {
    expect(embedded('find', { find: 'events', filter: { position: 12 } })).toEqual(['one row, by a unique key']);
    expect(embedded('find', { find: 'posts', filter: { _id: 3 }, limit: 1 })).toEqual(['one row, by a unique key']);
    expect(embedded('find', { find: 'revisions', filter: { autosaveOf: '3:1' } })).toEqual(['every row its equality matches']);
    expect(embedded('update', { update: 'revisions', updates: [{ q: { parent: 3 } }] })).toEqual(['every row its equality matches']);
  });

  it('refuses what decodes rows it does not answer with: a page of a larger set, $in, $or, a range, a count, an unbridged field', () => {
    expect(embedded('find', { find: 'revisions', filter: { parent: 3 }, sort: { date: -1, _id: -1 }, limit: 10 })).toEqual([undefined]);
    expect(embedded('find', { find: 'posts', filter: { _id: { $in: [3] } } })).toEqual([undefined]);
    expect(embedded('find', { find: 'posts', filter: { $or: [{ _id: 3 }, { type: 'post', slug: 'a' }] } })).toEqual([undefined, undefined]);
    expect(embedded('find', { find: 'revisions', filter: { parent: 3, date: { $lt: new Date() } } })).toEqual([undefined]);
    expect(embedded('count', { count: 'revisions', query: { parent: 3 } })).toEqual([undefined]);
    expect(embedded('find', { find: 'posts', filter: { author: 3 } })).toEqual([undefined]);
  });

  it('serves a lookup by `_id` only in a collection with a declared index: the bridge makes none for the others', () => {
    const byKey = { find: 'claims', filter: { _id: 'content:7' }, limit: 1 };
    expect(checkShapes(shapesOfCommand('find', byKey), indexes).failures.map((row) => row.shape)).toEqual(['claims find {_id} pushed {_id} limited']);
    const declared: IndexSpec[] = [...indexes, { collection: 'claims', key: { _id: 1 }, name: '_id_' }];
    expect(shapesOfCommand('find', byKey).map((shape) => embeddedServing(shape, declared))).toEqual(['one row, by a unique key']);
  });

  it('fails a shape MongoDB serves but the embedded database does not, unless it scans on purpose', () => {
    const shapes = [
      { find: 'revisions', filter: { parent: 3 }, sort: { date: -1, _id: -1 }, limit: 10 },
      { find: 'revisions', filter: { parent: 3 }, sort: { date: -1, _id: -1 }, limit: 10, comment: 'full-scan: a test' },
    ].flatMap((command) => shapesOfCommand('find', command));
    expect(checkShapes(shapes, indexes).failures.map((row) => row.index)).toEqual(['parent_date_id']);
  });
});
