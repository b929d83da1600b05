import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { siteChanges, type SiteChanges } from '../../src/store/coordination/site-changes.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

// Two connections to one database stand for two processes: each keeps its own caches, told of
// the other's writes through the shared token.
let app: TestApp;
let client: MongoClient;
let here: SiteChanges;
let there: SiteChanges;
beforeAll(async () => {
  app = await createTestApp();
  client = await MongoClient.connect(inject('mongodbUri'));
  here = siteChanges(app.deps.store.db);
  there = siteChanges(client.db(app.databaseName));
});
afterAll(async () => {
  await client?.close();
  await app?.stop();
});

describe('the change token', () => {
  it('empties every cache after a write of anything, and those of users and settings only after a write of more than content', async () => {
    const emptied = { any: 0, site: 0 };
    there.onChange(() => void emptied.any++);
    there.onChange(() => void emptied.site++, 'site');
    await there.catchUp();
    const before = { ...emptied };

    await here.changed('content');
    await there.catchUp();
    expect(emptied).toEqual({ any: before.any + 1, site: before.site });

    await here.changed('site');
    await there.catchUp();
    expect(emptied).toEqual({ any: before.any + 2, site: before.site + 1 });

    // Nothing moved: nothing is emptied.
    await there.catchUp();
    expect(emptied).toEqual({ any: before.any + 2, site: before.site + 1 });

    // The writer's own caches are emptied at once, by the same rule: counted before the call's
    // first await, since the app's own background looks may empty them again afterwards.
    const own = { any: 0, site: 0 };
    here.onChange(() => void own.any++);
    here.onChange(() => void own.site++, 'site');
    const content = here.changed('content');
    expect(own).toEqual({ any: 1, site: 0 });
    await content;
    Object.assign(own, { any: 0, site: 0 });
    const site = here.changed();
    expect(own).toEqual({ any: 1, site: 1 });
    await site;
  });

  it('moves the token for a burst of writes once they finish, not once each', async () => {
    const writer = await MongoClient.connect(inject('mongodbUri'), { monitorCommands: true });
    try {
      let announcements = 0;
      writer.on('commandStarted', (event) => {
        if (event.commandName === 'update' && event.command.update === 'checkpoints') announcements++;
      });
      const burst = siteChanges(writer.db(app.databaseName));
      let emptied = 0;
      there.onChange(() => void emptied++);
      await there.catchUp();
      emptied = 0;
      // One announcement starts with the first write; the others, finished while it is under way, share the next.
      await Promise.all(Array.from({ length: 20 }, () => burst.changed('content')));
      expect(announcements).toBe(2);
      await there.catchUp();
      expect(emptied).toBe(1);

      // A look of the writer's own while its announcement is under way does not announce it again.
      announcements = 0;
      await Promise.all([burst.changed('site'), burst.catchUp()]);
      expect(announcements).toBe(1);
    } finally {
      await writer.close();
    }
  });
});
