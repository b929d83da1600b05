import { type Db } from 'mongodb';
import { type Config } from './config.js';
import { type Logger } from './logger.js';
import { type Store } from './store/database/mongo.js';
import { type Sequences } from './store/coordination/sequences.js';
import { type CommittedChange } from './store/history/kernel.js';
import { type createAuthenticator } from './auth/authenticate.js';
import { type Sessions } from './auth/sessions.js';
import { type Themes } from './themes/themes.js';
import { type ContentRenderer } from './lib/content-render.off-thread.js';

/** Everything a handler may use, passed explicitly (no singletons, no `process.env`). */
export interface Deps {
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  readonly clock: () => Date;
  /** `http://HOST:PORT`, as the site's links are built. */
  readonly siteUrl: string;
  readonly ids: Sequences;
  readonly auth: ReturnType<typeof createAuthenticator>;
  /** The admin page's sign-in sessions. */
  readonly sessions: Sessions;
  /** Every theme folder and the active one, loaded and validated at start-up. */
  readonly themes: Themes;
  /** What resources do after one another's writes, and answer for one another, as their manifests declare it. */
  readonly hooks: SiteHooks;
  /** Renders long content off the event loop, and keeps it by item version. */
  readonly renderer: ContentRenderer;
}

/** A post-like item as those following its writes read it. */
export interface WrittenPost {
  readonly _id: number;
  readonly type: string;
  readonly status: string;
  readonly parent: number;
  readonly author: number;
  /** Term ids by taxonomy. */
  readonly terms: Readonly<Record<string, readonly number[]>>;
}

/** An item before a committed write (null: the write created it) and after it (null: the write deleted it): the kernel's change. */
export { type CommittedChange };

/** A user's deletion, as those who hold the user's things are told of it. */
export interface UserDeletion {
  readonly user: number;
  /** Who is given the user's things; null: they are deleted with the user. */
  readonly reassignTo: number | null;
  /** Who deletes the user. */
  readonly actor: number;
}

/**
 * What a resource reads of another that sits above it in the import graph (docs/architecture.md, Layout), and so
 * may not import: each answered by exactly one resource, the collection's owner.
 */
export interface SiteLookups {
  /** Of `ids` (or everyone), the users with at least one published post of a REST-visible type (posts). */
  publishedAuthorIds(db: Db, ids?: number[]): Promise<number[]>;
  /** How many of `ids` are terms of `taxonomy` (terms). */
  countTermsOf(db: Db, taxonomy: string, ids: readonly number[]): Promise<number>;
  /** Whether a media item has this id (media). */
  isAttachment(db: Db, id: number): Promise<boolean>;
}

/**
 * The hooks resources declare in their manifests (`hooks`), gathered once at start-up in the
 * resources' order: WordPress's actions, by which a resource follows another's writes without the
 * writer knowing it, and the lookups one resource answers for another below it.
 */
export interface SiteHooks extends SiteLookups {
  /**
   * After each committed command on a post or page, before it is answered (`save_post`,
   * `transition_post_status`): term counts, menus that add pages. Run by the kernel (the posts'
   * history type declares it as its `afterCommit`), never by a write path. Each hook answers for
   * its own failures, which never fail the write.
   */
  afterPostWrite(deps: Deps, write: CommittedChange<WrittenPost>): Promise<void>;
  /** Before a user's account is deleted (`delete_user`): their items given to another or deleted. A failure fails the deletion, which leaves the user. */
  beforeUserDelete(deps: Deps, deletion: UserDeletion): Promise<void>;
}
