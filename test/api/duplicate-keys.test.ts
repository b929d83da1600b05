import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asRestError } from '../../src/rest/errors.js';
import { isDuplicateKey } from '../../src/store/database/mongo.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.stop();
});

/** What a write throws, or undefined when it succeeds. */
async function thrownBy(write: () => Promise<unknown>): Promise<unknown> {
  return write().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('a write refused by a unique index', () => {
  // The same database server as every other test: MongoDB answers 11000 for both; FerretDB 1.24
  // answers 11000 for an insert, and code 1 with PostgreSQL's SQLSTATE 23505 for an update.
  it('is recognised for an insert and for an update, and answered 409 in the error shape, never 500', async () => {
    const collection = app.deps.store.db.collection<{ _id: number; name: string }>('unique_probe');
    await collection.createIndex({ name: 1 }, { name: 'name_unique', unique: true });
    await collection.insertMany([
      { _id: 1, name: 'taken' },
      { _id: 2, name: 'free' },
    ]);
    const refused = [
      await thrownBy(() => collection.insertOne({ _id: 3, name: 'taken' })),
      await thrownBy(() => collection.updateOne({ _id: 2 }, { $set: { name: 'taken' } })),
    ];
    for (const error of refused) {
      expect(error).toBeDefined();
      expect(isDuplicateKey(error)).toBe(true);
      expect(asRestError(error).toBody()).toEqual({
        code: 'rest_duplicate_value',
        message: 'A value that must be unique is already taken by another item.',
        data: { status: 409 },
      });
    }
    expect(isDuplicateKey(await thrownBy(() => collection.insertOne({ _id: 1, name: 'other' })))).toBe(true);
    expect(isDuplicateKey(new Error('E11000 duplicate key error'))).toBe(false);
  });
});
