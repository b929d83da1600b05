import { loginThrottleIndexes } from '../../auth/login-throttle.js';
import { sessionIndexes } from '../../auth/sessions.js';
import { type ResourceManifest } from '../manifest.js';
import { ensureAdministrator } from './user.commands.js';
import { userIndexes } from './user.model.js';
import { userRoutes } from './user.routes.js';

export const usersResource: ResourceManifest = {
  routes: userRoutes,
  indexes: [
    ...userIndexes,
    ...loginThrottleIndexes,
    ...sessionIndexes,
    // Who has published posts (user visibility): a later resource owns `posts`, users query it.
    { collection: 'posts', key: { status: 1, type: 1, author: 1 }, name: 'status_type_author' },
  ],
  seed: ensureAdministrator,
};
