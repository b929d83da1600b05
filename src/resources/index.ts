import { type ResourceManifest } from './manifest.js';

/** Every resource the service serves, in the order their routes are registered. */
export const resources: readonly ResourceManifest[] = [];
