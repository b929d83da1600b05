// Creates a user from the command line:
//   npm run user:create -- --username jo --email jo@example.com --password secret [--role editor] [--name "Jo Doe"]
import { parseArgs } from 'node:util';
import { isRole, ROLE_NAMES } from '../src/auth/capabilities.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createUserAccount } from '../src/resources/users/user.commands.js';
import { RestError } from '../src/rest/errors.js';
import { startDatabaseServer } from '../src/store/database/database-server.js';
import { openStore } from '../src/store/database/mongo.js';
import { sequences } from '../src/store/coordination/sequences.js';

const { values } = parseArgs({
  options: {
    username: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    role: { type: 'string', default: 'subscriber' },
    name: { type: 'string' },
  },
});
if (!values.username || !values.email || !values.password) {
  console.error('Usage: npm run user:create -- --username NAME --email EMAIL --password PASSWORD [--role ROLE] [--name "DISPLAY NAME"]');
  process.exit(2);
}
if (!isRole(values.role)) {
  console.error(`--role must be one of ${ROLE_NAMES.join(', ')}.`);
  process.exit(2);
}

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, config.logFormat);
const database = await startDatabaseServer({ ...config, logger });
const store = await openStore(database.uri);
try {
  const user = await createUserAccount(
    { store, ids: sequences(store.db), clock: () => new Date() },
    { username: values.username, email: values.email, password: values.password, roles: [values.role], name: values.name },
  );
  console.log(`Created user ${user._id} (${user.username}, ${values.role}).`);
} catch (error) {
  if (!(error instanceof RestError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await store.close();
  await database.stop();
}
