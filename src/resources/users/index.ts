import { loginThrottleIndexes } from '../../auth/login-throttle.js';
import { type ResourceManifest } from '../manifest.js';
import { ensureAdministrator } from './user.commands.js';
import { userIndexes } from './user.model.js';

export const usersResource: ResourceManifest = {
  routes: [],
  indexes: [...userIndexes, ...loginThrottleIndexes],
  seed: ensureAdministrator,
};
