import { type Principal } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { type ItemRoute } from '../../rest/item-route.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type RestResponse } from '../../rest/rest-response.js';
import { type FieldSchema, type ItemSchema } from '../../rest/schema.js';
import { type RevisionDoc } from './revision.model.js';
import { rolesOfUser } from '../users/index.js';

/**
 * What a revision response is made of. A revision row gives it, and so does a draft saved in
 * place by its author's autosave: WordPress then renders the post itself through this shape.
 */
export interface RevisionRecord {
  id: number;
  /** The item the revision belongs to; for an item shown as its own autosave, the item's parent. */
  parent: number;
  author: number;
  /** Null while the item's date floats (a draft's zero `post_date_gmt`), as WordPress prints it. */
  date: string | null;
  dateGmt: string | null;
  modified: string;
  modifiedGmt: string;
  slug: string;
  guid: string;
  /** Absent when the row was read without it (a `_fields` request that does not need it). */
  title?: string;
  content?: string;
  excerpt?: string;
  /** The item's fields the revision kept, for types that revision more than text (menu items). */
  item?: Record<string, unknown>;
}

/** What the revision routes need of an item: its id, how many revisions and autosaves it has, and its version. */
export interface RevisionedItem {
  _id: number;
  revisionCount: number;
  /** The seq of the last event applied: where its newest revisions' blocks are. */
  version: number;
}

/**
 * A type whose items keep revisions, as the revision and autosave routes see it; each type brings
 * its own (posts and pages, menu items, templates). Each brings its item lookup, who
 * may edit and delete its items, how a revision is made current again or deleted, and what a
 * revision row shows beyond the shared shape.
 */
export interface RevisionedType<Item extends RevisionedItem = RevisionedItem> {
  readonly postType: PostTypeDef;
  /** How its items are named in URLs: the revision, autosave and diff routes sit under it. */
  readonly route: ItemRoute<Item>;
  /** The items' own schema, which lends revisions its `guid`, `title`, `content` and `excerpt`. */
  readonly itemSchema: ItemSchema;
  /** Properties a revision shows beyond the shared shape (menu items: every item field, in `edit`). */
  readonly extraProperties?: Record<string, FieldSchema>;
  /** The item a URL names, or null: the route answers its absence with its own 404. */
  findItem(deps: Deps, id: unknown): Promise<Item | null>;
  canEdit(user: Principal, item: Item): boolean;
  canDelete(user: Principal, item: Item): boolean;
  /** Makes `revision` current again (a new revision records it); answers as an update of the item does. */
  restore(deps: Deps, item: Item, revision: RevisionDoc, req: RestRequest): Promise<RestResponse>;
  /** Deletes the revision and erases from the log what only it held. */
  deleteRevision(deps: Deps, item: Item, revision: RevisionDoc, actor: number): Promise<void>;
  /** The fields a diff compares, and each one's text in a revision. */
  readonly diffFields: readonly string[];
  fieldText(revision: RevisionDoc, field: string): string;
  /** Where an item is viewed (its permalink), for its autosaves' preview links; absent for items that cannot be viewed. */
  permalink?(siteUrl: string, item: Item): string;
  /** What a revision shows of `extraProperties`, from what its record kept (menu items: the item's fields, `item`). */
  extraFields?(record: RevisionRecord, req: RestRequest): Record<string, unknown>;
}

/**
 * Whom a restored revision's fields are filtered for (`filterSaved`): the caller, as WordPress's
 * `wp_restore_post_revision` saves them again through `wp_update_post`, and the user who wrote the
 * revision, so that one stored before the save filters existed by someone without
 * `unfiltered_html` is filtered whoever restores it. A writer no longer known counts as untrusted.
 */
export async function restoringWriters(deps: Deps, req: RestRequest, revision: RevisionDoc): Promise<Principal[]> {
  const roles = await rolesOfUser(deps.store.db, revision.author);
  return [req.user, roles ? { id: revision.author, roles } : { id: 0 }];
}
