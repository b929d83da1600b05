import { type Db } from 'mongodb';

/** The text columns of a revision row, which a read leaves out when the answer does not show them. */
export const REVISION_TEXT_FIELDS = ['title', 'content', 'excerpt'] as const;

export type RevisionKind = 'revision' | 'autosave';

/** A revision or an autosave in `revisions`. */
export interface RevisionDoc {
  _id: number;
  parent: number;
  kind: RevisionKind;
  author: number;
  title: string;
  content: string;
  excerpt: string;
  date: string;
  dateGmt: string;
  modified: string;
  modifiedGmt: string;
  slug: string;
  /** The seq of the event that last wrote it. */
  version: number;
  /** Every field of the item as the revision kept it, for types that revision more than text (menu items). */
  item?: Record<string, unknown>;
  /** The block of the item's log it was last written in (`revisionBlock`), by which pages of revisions are read. */
  block?: string;
  /** An autosave's item and author (`autosaveKey`), by which a user's autosave of an item is found. */
  autosaveOf?: string;
  /** How many characters of text it holds (its texts and its item's fields): whether its block is small enough to read whole. */
  textSize?: number;
}

/**
 * Seqs per block of an item's log. A page of revisions, newest (or oldest) first, is read block by
 * block from the item's version down (or from its start up), each by equality on `block`, which the
 * embedded database serves from an index: a page costs the blocks it spans, whatever the item's age.
 */
export const REVISION_BLOCK = 16;

export const revisionBlock = (parent: number, seq: number) => `${parent}:${Math.floor(seq / REVISION_BLOCK)}`;

/**
 * The key of a user's autosave of an item: one value that selects the row, which the embedded
 * database serves from an index (where item, kind and author each select many rows, an author's
 * every revision, and cost it an intersection that grows with the site).
 */
export const autosaveKey = (parent: number, author: number) => `${parent}:${author}`;

/** A revision row as stored: with the block of the event that last wrote it, and an autosave with its key. */
export const storedRevision = (revision: RevisionDoc): RevisionDoc => ({
  ...revision,
  block: revisionBlock(revision.parent, revision.version),
  textSize: (revision.title?.length ?? 0) + (revision.content?.length ?? 0) + (revision.excerpt?.length ?? 0) + (revision.item ? JSON.stringify(revision.item).length : 0),
  ...(revision.kind === 'autosave' ? { autosaveOf: autosaveKey(revision.parent, revision.author) } : {}),
});

/** A user's autosave of an item, by its key. */
export const autosaveOf = (db: Db, parent: number, author: number) =>
  revisionsCollection(db).findOne({ autosaveOf: autosaveKey(parent, author) }, { sort: { date: -1, _id: -1 } });

export const revisionsCollection = (db: Db) => db.collection<RevisionDoc>('revisions');
