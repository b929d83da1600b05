import { type Router } from 'express';
import { type Deps } from '../deps.js';
import { type RouteSpec } from '../rest/route.js';
import { type IndexSpec } from '../store/mongo.js';
import { ProjectionRegistry, type Projection } from '../store/projections.js';

/** What a resource folder exports: its routes, the indexes its queries need, and the projections it keeps. */
export interface ResourceManifest {
  readonly routes: readonly RouteSpec<Deps>[];
  readonly indexes?: readonly IndexSpec[];
  /** Read models kept from the change log, each naming the stream types it folds. */
  readonly projections?: readonly Projection[];
  /** Pages of the site outside the API (media files under `/uploads/`), as plain Express routes. */
  readonly siteRoutes?: (deps: Deps) => Router;
  /** Records the resource needs before serving (the first administrator, the default category). */
  readonly seed?: (deps: Deps) => Promise<SeedReport | void>;
  /** Work the resource runs in the background once the service serves (webhook deliveries), stopped before the database closes. */
  readonly background?: (deps: Deps) => BackgroundWork;
}

/** Something running beside the requests, as long as the service runs. */
export interface BackgroundWork {
  /** Ends it: nothing of it runs once this resolves. */
  stop(): Promise<void>;
}

/** What a first start made that the person starting the service must be told. */
export interface SeedReport {
  /** The administrator created with a generated password (shown only this once). */
  readonly generatedAdministrator?: GeneratedAdministrator;
}

export interface GeneratedAdministrator {
  readonly username: string;
  readonly password: string;
}

export function indexesOf(resources: readonly ResourceManifest[]): IndexSpec[] {
  return resources.flatMap((resource) => resource.indexes ?? []);
}

/** The one list of projections, by stream type, that healing and rebuild replay the log through. */
export function projectionsOf(resources: readonly ResourceManifest[]): ProjectionRegistry {
  return new ProjectionRegistry(resources.flatMap((resource) => resource.projections ?? []));
}
