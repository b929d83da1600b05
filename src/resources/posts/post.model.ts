import { jsonDigest } from '../../lib/json-text.js';
import { type Db } from 'mongodb';
import { type Positioned } from '../../store/history/as-of.js';

// The revision rows every history type shares: posts and pages made them first.
export { autosaveKey, autosaveOf, REVISION_BLOCK, revisionBlock, revisionsCollection, storedRevision, type RevisionDoc, type RevisionKind } from '../revisions/index.js';
import { type IndexSpec } from '../../store/database/mongo.js';

/** The revisioned fields: a change to one of them after the first revision makes a new one. */
export const REVISIONED_FIELDS = ['title', 'content', 'excerpt'] as const;
export type RevisionedField = (typeof REVISIONED_FIELDS)[number];

/**
 * Everything a post-like item holds, as WordPress's `wp_posts` row does. Dates are strings
 * `YYYY-MM-DDTHH:MM:SS`: `date`/`modified` in the site's timezone when they were set, the `*Gmt`
 * ones in GMT; `dateGmt` is null while a draft's date floats.
 */
export interface PostFields {
  type: string;
  status: string;
  /** The status a trashed item had, to untrash it. */
  trashedFrom: string | null;
  title: string;
  content: string;
  excerpt: string;
  slug: string;
  author: number;
  date: string;
  dateGmt: string | null;
  modified: string;
  modifiedGmt: string;
  password: string;
  featured_media: number;
  comment_status: string;
  ping_status: string;
  format: string;
  sticky: boolean;
  template: string;
  meta: Record<string, unknown>;
  /** Term ids by taxonomy: `{ category: [1], post_tag: [] }`. */
  terms: Record<string, number[]>;
  parent: number;
  menu_order: number;
  guid: string;
}

/** The current item in `posts`: its fields, `meta` as a JSON string, and its place in the log. */
export interface PostDoc extends Omit<PostFields, 'meta'>, Positioned {
  _id: number;
  meta: string;
  /** The seq of the last event applied (the projection's guard). */
  version: number;
  /** The seq of the last event that changed the item itself: its ETag. Autosaves by others leave it. */
  changeSeq: number;
  /** Revisions and autosaves, for `version-history` without counting. */
  revisionCount: number;
  /**
   * The newest revision that is not an autosave, and a fingerprint of its revisioned fields,
   * to decide on a new revision without reading it; `UNKNOWN` after that revision was deleted.
   */
  headRevision: number | null;
  headFingerprint: string | null;
  /** The newest revision or autosave (`predecessor-version`); `UNKNOWN` after it was deleted. */
  latestRevision: number | null;
}

/** A head or latest revision that was deleted: the next one must be looked up. */
export const UNKNOWN = -1;

/** Whitespace-insensitive identity of the revisioned fields (WordPress normalises before comparing). */
export function revisionFingerprint(fields: Pick<PostFields, RevisionedField>): string {
  const normalized = REVISIONED_FIELDS.map((field) => fields[field].replace(/\r\n?/g, '\n').trim());
  return jsonDigest(normalized, 'sha256', 'base64');
}

export const postsCollection = (db: Db) => db.collection<PostDoc>('posts');

export const postIndexes: IndexSpec[] = [
  { collection: 'posts', key: { type: 1, status: 1, date: -1, _id: -1 }, name: 'type_status_date' },
  { collection: 'posts', key: { type: 1, slug: 1 }, name: 'type_slug' },
  { collection: 'posts', key: { type: 1, author: 1, date: -1 }, name: 'type_author_date' },
  { collection: 'posts', key: { type: 1, parent: 1, menu_order: 1 }, name: 'type_parent_order' },
  { collection: 'posts', key: { status: 1, dateGmt: 1 }, name: 'status_dategmt' },
  // Who has published posts (user visibility, publishedAuthorIds).
  { collection: 'posts', key: { status: 1, type: 1, author: 1 }, name: 'status_type_author' },
  { collection: 'posts', key: { 'terms.category': 1 }, name: 'terms_category' },
  { collection: 'posts', key: { 'terms.post_tag': 1 }, name: 'terms_post_tag' },
  // Revision lists are newest first (date, then id); autosaves are found per (parent, author).
  { collection: 'revisions', key: { parent: 1, date: -1, _id: -1 }, name: 'parent_date_id' },
  { collection: 'revisions', key: { parent: 1, kind: 1, date: -1, _id: -1 }, name: 'parent_kind_date_id' },
  { collection: 'revisions', key: { autosaveOf: 1, date: -1, _id: -1 }, name: 'autosave_of_date_id' },
  { collection: 'revisions', key: { block: 1 }, name: 'block' },
];

type LogState = Pick<PostDoc, 'version' | 'changeSeq' | 'revisionCount' | 'headRevision' | 'headFingerprint' | 'latestRevision' | 'firstPosition' | 'position'>;

export const NEW_LOG_STATE: Omit<LogState, 'version' | 'changeSeq'> = { revisionCount: 0, headRevision: null, headFingerprint: null, latestRevision: null };

export function toPostDoc(id: number, fields: PostFields, state: LogState): PostDoc {
  const { meta, ...rest } = fields;
  return { _id: id, ...rest, meta: JSON.stringify(meta), ...state };
}

export function logStateOf(doc: PostDoc): LogState {
  const { version, changeSeq, revisionCount, headRevision, headFingerprint, latestRevision, firstPosition, position } = doc;
  return { version, changeSeq, revisionCount, headRevision, headFingerprint, latestRevision, ...(firstPosition !== undefined ? { firstPosition } : {}), ...(position !== undefined ? { position } : {}) };
}

export function fieldsOf(doc: PostDoc): PostFields {
  const { _id, version: _v, changeSeq: _c, revisionCount: _n, headRevision: _h, headFingerprint: _f, latestRevision: _l, firstPosition: _p, position: _q, meta, ...rest } = doc;
  return { ...rest, meta: JSON.parse(meta || '{}') as Record<string, unknown> };
}
