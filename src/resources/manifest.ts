import { type Router } from 'express';
import { type CommittedChange, type Deps, type SiteHooks, type SiteLookups, type UserDeletion, type WrittenPost } from '../deps.js';
import { type RouteSpec } from '../rest/route.js';
import { type Principal } from '../auth/capabilities.js';
import { type RestRequest } from '../rest/rest-request.js';
import { type HistoryType, type Versioned } from '../store/history/kernel.js';
import { type IndexSpec } from '../store/database/mongo.js';
import { ProjectionRegistry, type Projection } from '../store/projections/projections.js';

/** What a resource folder exports: its routes, the indexes its queries need, and the projections it keeps. */
export interface ResourceManifest {
  readonly routes: readonly RouteSpec<Deps>[];
  readonly indexes?: readonly IndexSpec[];
  /** Read models kept from the change log, each naming the stream types it folds. */
  readonly projections?: readonly Projection[];
  /** Pages of the site outside the API (media files under `/uploads/`), as plain Express routes. */
  readonly siteRoutes?: (deps: Deps) => Router;
  /** The item types whose changes the change feed (`/changes`) shows, and how it may show them. */
  readonly changeSources?: readonly ChangeSource[];
  /** Records the resource needs before serving (the first administrator, the default category). */
  readonly seed?: (deps: Deps) => Promise<SeedReport | void>;
  /** Work the resource runs in the background once the service serves (webhook deliveries), stopped before the database closes. */
  readonly background?: (deps: Deps) => BackgroundWork;
  /** What the resource does after other resources' writes (`deps.hooks`). */
  readonly hooks?: ResourceHooks;
}

/** A resource's part of `SiteHooks`. */
export interface ResourceHooks {
  /** Follows each committed command on a post or page (run by the kernel); it must catch its own failures (they are the writer's success). */
  readonly afterPostWrite?: (deps: Deps, write: CommittedChange<WrittenPost>) => Promise<void>;
  /** Hands over or deletes what the user holds, before the account goes. */
  readonly beforeUserDelete?: (deps: Deps, deletion: UserDeletion) => Promise<void>;
  /** The lookups this resource answers, of the collections it owns. */
  readonly answers?: Partial<SiteLookups>;
}

const LOOKUPS = ['publishedAuthorIds', 'countTermsOf', 'isAttachment'] as const satisfies readonly (keyof SiteLookups)[];
const NOTHING_OWNED: SiteLookups = {
  publishedAuthorIds: async () => [],
  countTermsOf: async () => 0,
  isAttachment: async () => false,
};

/** The hooks of every resource, run in the resources' order; a lookup two resources answer stops the start, one none answers finds nothing. */
export function siteHooksOf(resources: readonly ResourceManifest[]): SiteHooks {
  const afterPostWrite = resources.flatMap((resource) => (resource.hooks?.afterPostWrite ? [resource.hooks.afterPostWrite] : []));
  const beforeUserDelete = resources.flatMap((resource) => (resource.hooks?.beforeUserDelete ? [resource.hooks.beforeUserDelete] : []));
  const answering = (name: (typeof LOOKUPS)[number]) => {
    const answers = resources.flatMap((resource) => (resource.hooks?.answers?.[name] ? [resource.hooks.answers] : []));
    if (answers.length > 1) throw new Error(`The lookup ${name} is answered by ${answers.length} resources: it needs one at most`);
    // A site without the owning resource (a service of other resources) holds none of its records.
    return (answers[0] ?? NOTHING_OWNED) as SiteLookups;
  };
  const [authors, terms, attachments] = LOOKUPS.map(answering);
  return {
    async afterPostWrite(deps, write) {
      for (const hook of afterPostWrite) await hook(deps, write);
    },
    async beforeUserDelete(deps, deletion) {
      for (const hook of beforeUserDelete) await hook(deps, deletion);
    },
    publishedAuthorIds: (db, ids) => authors.publishedAuthorIds(db, ids),
    countTermsOf: (db, taxonomy, ids) => terms.countTermsOf(db, taxonomy, ids),
    isAttachment: (db, id) => attachments.isAttachment(db, id),
  };
}

/** Something running beside the requests, as long as the service runs. */
export interface BackgroundWork {
  /** Ends it: nothing of it runs once this resolves. */
  stop(): Promise<void>;
}

/**
 * What the change feed needs of a history type: its kernel type (read model, fold), who may see
 * what of an item, and how an item is answered. A caller who may see an item's history sees every
 * change of it; anyone else only its public changes.
 */
export interface ChangeSource<S extends Versioned = Versioned> {
  /** The stream types (post type slugs) of its events. */
  readonly itemTypes: readonly string[];
  readonly history: HistoryType<S>;
  /** Whether the caller may see every change of the item, with its content: who may read its `/history`. */
  mayReadHistory(user: Principal, item: S): boolean;
  /** Whether the caller may read the item as it is now (`GET` on it). */
  mayRead(user: Principal, item: S): boolean;
  /** Whether the item in this state is shown to anyone, content included. */
  isPublic(item: S): boolean;
  /**
   * The stored fields that may be long and that the three checks above never read: the feed
   * decides on an item's changes from the item without them, so a page over many long items holds
   * none of their words.
   */
  readonly longFields: readonly string[];
  /** The fields a diff compares, and each one's text in a state. */
  readonly diffFields: readonly string[];
  fieldText(item: S, field: string): string;
  /** How the type names a stored field on the wire where snake_case does not say (`WireNames` of `/history`). */
  wireNames?(field: string, value: unknown): readonly string[] | undefined;
  /** The items as `GET` on each answers them, for the caller, in `view` context. */
  prepare(items: readonly S[], req: RestRequest, deps: Deps): Promise<Record<string, unknown>[]>;
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
