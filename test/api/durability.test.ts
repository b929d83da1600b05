import { type CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStore, type Store } from '../../src/store/database/mongo.js';

// What the service sends the database with every command: on a replica set, writes a majority
// holds, reads of what a majority holds, from the primary. Seen on the wire, as the server gets it.

const sent: CommandStartedEvent[] = [];
let store: Store;

beforeAll(async () => {
  store = await openStore(inject('mongodbUri'), { databaseName: `durability_${process.pid}`, onCommand: (event) => sent.push(event) });
});
afterAll(async () => {
  await store?.db.dropDatabase().catch(() => {});
  await store?.close();
});

const lastCommand = (name: string) => sent.filter((event) => event.commandName === name).at(-1)!.command;

describe('every command', () => {
  it('writes with w: majority and reads with readConcern majority, whatever the operation', async () => {
    const probes = store.db.collection<{ _id: number; n: number }>('durability_probe');
    await probes.insertOne({ _id: 1, n: 1 });
    expect(lastCommand('insert').writeConcern).toMatchObject({ w: 'majority' });
    await probes.updateOne({ _id: 1 }, { $set: { n: 2 } });
    expect(lastCommand('update').writeConcern).toMatchObject({ w: 'majority' });
    expect(await probes.findOne({ _id: 1 })).toEqual({ _id: 1, n: 2 });
    expect(lastCommand('find').readConcern).toEqual({ level: 'majority' });
    expect(await probes.countDocuments({})).toBe(1);
    expect(lastCommand('aggregate').readConcern).toEqual({ level: 'majority' });
    await probes.deleteOne({ _id: 1 });
    expect(lastCommand('delete').writeConcern).toMatchObject({ w: 'majority' });
  });

  it('goes to the primary and reads what a majority holds, whatever the URI asks', async () => {
    const uri = new URL(inject('mongodbUri'));
    uri.searchParams.set('readPreference', 'secondaryPreferred');
    uri.searchParams.set('readConcernLevel', 'local');
    const asked: CommandStartedEvent[] = [];
    const other = await openStore(uri.toString(), { databaseName: `durability_${process.pid}`, onCommand: (event) => asked.push(event) });
    try {
      expect(other.client.readPreference.mode).toBe('primary');
      expect(other.client.options.retryWrites).toBe(true);
      await other.db.collection('durability_probe').findOne({});
      expect(asked.find((event) => event.commandName === 'find')!.command.readConcern).toEqual({ level: 'majority' });
    } finally {
      await other.close();
    }
  });
});
