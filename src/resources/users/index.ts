import { loginThrottleIndexes } from '../../auth/login-throttle.js';
import { sessionIndexes } from '../../auth/sessions.js';
import { type ResourceManifest } from '../manifest.js';
import { ensureAdministrator } from './user.commands.js';
import { userIndexes } from './user.model.js';
import { userRoutes } from './user.routes.js';

export { firstAdministratorEmail, nameOfUser, rolesOfUser, userExists } from './user.queries.js';
export { applicationPasswordsCollection, type ApplicationPasswordDoc, type UserDoc } from './user.model.js';
export { userByIdOrMe } from './user.permissions.js';
export { userAccounts } from './user.accounts.js';

export const usersResource: ResourceManifest = {
  routes: userRoutes,
  indexes: [
    ...userIndexes,
    ...loginThrottleIndexes,
    ...sessionIndexes,
  ],
  seed: ensureAdministrator,
};
