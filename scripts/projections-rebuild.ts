// Replays the whole change log into fresh projections (`npm run projections:rebuild`), each
// stream through its own type's projection as the resource manifests declare them: posts and
// pages in `posts`, and every revision and autosave in `revisions`.
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { resources } from '../src/resources/index.js';
import { projectionsOf } from '../src/resources/manifest.js';
import { postsCollection, revisionsCollection } from '../src/resources/posts/post.model.js';
import { POSTS_CONTROLLER_TYPES } from '../src/resources/posts/post.projection.js';
import { keepTermCountsFrom } from '../src/resources/terms/index.js';
import { startDatabaseServer } from '../src/store/database/database-server.js';
import { changeLog } from '../src/store/log/change-log.js';
import { openStore, SCRIPT_DATABASE_TIMEOUT_MS } from '../src/store/database/mongo.js';
import { rebuildProjections } from '../src/store/projections/projections.js';

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, config.logFormat);
const database = await startDatabaseServer({ ...config, logger });
const store = await openStore(database.uri, { timeoutMs: SCRIPT_DATABASE_TIMEOUT_MS });
try {
  const started = Date.now();
  const events = await rebuildProjections(store.db, changeLog(store.db), projectionsOf(resources), logger);
  // Term counts follow the rebuilt items.
  await keepTermCountsFrom(store.db, new Date(), { replace: true });
  const items = await postsCollection(store.db).countDocuments({ type: { $in: [...POSTS_CONTROLLER_TYPES] } });
  const revisions = await revisionsCollection(store.db).countDocuments({ kind: 'revision' });
  const autosaves = await revisionsCollection(store.db).countDocuments({ kind: 'autosave' });
  console.log(
    `Replayed ${events} events in ${((Date.now() - started) / 1000).toFixed(1)}s: ${items} items, ${revisions} revisions, ${autosaves} autosaves.`,
  );
} finally {
  await store.close();
  await database.stop();
}
