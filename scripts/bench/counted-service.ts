// The service as `npm start` runs it on MONGODB_URI, counting the commands it sends to the database:
// the benchmark forks it and asks for the count over IPC ('count' -> { commands }).
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { resources } from '../../src/resources/index.js';
import { startService } from '../../src/service.js';

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);
let commands = 0;
const service = await startService({ config, logger, resources, databaseUri: process.env.MONGODB_URI!, onCommand: () => void commands++ });
process.on('message', (message) => {
  if (message === 'count') process.send!({ commands });
});
process.on('SIGTERM', () => {
  void service.stop().then(() => process.exit(0));
});
process.send!({ url: service.siteUrl });
