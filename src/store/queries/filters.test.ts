import { describe, expect, it } from 'vitest';
import { plainFilter } from './filters.js';

describe('plainFilter', () => {
  it('merges $and clauses, unwraps a one-branch $or and a one-value $in', () => {
    expect(plainFilter({ $and: [{ type: 'post' }, { $or: [{ status: { $in: ['publish'] } }] }] })).toEqual({ type: 'post', status: 'publish' });
  });

  it('keeps what does not simplify: fields that meet, several branches, several values', () => {
    expect(plainFilter<{ _id: number; a: number; b: number }>({ $and: [{ _id: { $in: [1, 2] } }, { _id: { $nin: [2] } }, { $or: [{ a: 1 }, { b: 2 }] }] })).toEqual({
      _id: { $in: [1, 2] },
      $or: [{ a: 1 }, { b: 2 }],
      $and: [{ _id: { $nin: [2] } }],
    });
  });
});
