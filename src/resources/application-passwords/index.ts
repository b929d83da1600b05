import { type ResourceManifest } from '../manifest.js';
import { applicationPasswordRoutes } from './application-password.routes.js';

export const applicationPasswordsResource: ResourceManifest = { routes: applicationPasswordRoutes };
