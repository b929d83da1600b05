import { type ResourceManifest } from '../manifest.js';
import { startDeliverer } from './webhook.deliverer.js';
import { webhookIndexes } from './webhook.model.js';
import { webhookRoutes } from './webhook.routes.js';

/** Webhooks (administrators only): endpoints, their delivery log, and the deliverer that sends the change log to them. */
export const webhooksResource: ResourceManifest = { routes: webhookRoutes, indexes: webhookIndexes, background: startDeliverer };
