import { jsonDigest } from '../../lib/json-text.js';
import { type Collection, type Db } from 'mongodb';
import { type Positioned } from '../../store/history/as-of.js';
import { type IndexSpec } from '../../store/database/mongo.js';
import { type TemplateKind } from '../../themes/themes.js';

/** What a template holds, as its events record it. */
export interface TemplateFields {
  theme: string;
  type: TemplateKind;
  slug: string;
  status: string;
  /** The status before trashing. */
  trashedFrom?: string;
  author: number;
  modified: Date;
  title: string;
  description: string;
  content: string;
  origin: string | null;
  /** Template parts only. */
  area?: string;
}

/**
 * A template or template part kept in the database: a customization of a theme file (`origin`
 * `theme`) or a template of the site's own (`origin` null). One per theme, type and slug. Kept
 * from the change log like posts: its place in the log, and what deciding a revision needs.
 */
export interface TemplateDoc extends TemplateFields, Positioned {
  _id: number;
  /** The seq of the last event applied (the projection's guard, and the `ETag`). */
  version: number;
  /** Revisions and autosaves. */
  revisionCount: number;
  /** The newest revision, and a fingerprint of its revisioned fields; null when there is none (or it was deleted). */
  headRevision: number | null;
  headFingerprint: string | null;
}

/** The fields a revision keeps: a template's title, content and description (WordPress's excerpt). */
export const TEMPLATE_REVISIONED_FIELDS = ['title', 'content', 'description'] as const;

/** What a force delete, or a deleted revision, erases from the log. */
export const TEMPLATE_CONTENT_FIELDS: readonly string[] = TEMPLATE_REVISIONED_FIELDS;

/** Whitespace-insensitive identity of the revisioned fields, as WordPress compares them before saving a revision. */
export function templateFingerprint(fields: Pick<TemplateFields, (typeof TEMPLATE_REVISIONED_FIELDS)[number]>): string {
  const normalized = TEMPLATE_REVISIONED_FIELDS.map((field) => fields[field].replace(/\r\n?/g, '\n').trim());
  return jsonDigest(normalized, 'sha256', 'base64');
}

/** A template's fields, without its place in the log. */
export function templateFields(doc: TemplateDoc | TemplateFields): TemplateFields {
  const { theme, type, slug, status, trashedFrom, author, modified, title, description, content, origin, area } = doc;
  return {
    theme,
    type,
    slug,
    status,
    ...(trashedFrom !== undefined ? { trashedFrom } : {}),
    author,
    modified,
    title,
    description,
    content,
    origin,
    ...(area !== undefined ? { area } : {}),
  };
}

export const templatesCollection = (db: Db): Collection<TemplateDoc> => db.collection<TemplateDoc>('templates');

// The read model keeps the key unique; which item takes a key is decided before its creation is
// appended, by its claim (`template.keys.ts`).
export const templateIndexes: IndexSpec[] = [
  { collection: 'templates', key: { theme: 1, type: 1, slug: 1 }, name: 'theme_type_slug_unique', unique: true },
  // Claims are read and written by their `_id`; a declared index is what has the embedded
  // database bridge a collection's `_id` (and a claim's template is what a delete checks).
  { collection: 'template_keys', key: { template: 1 }, name: 'template' },
];

/** A template id, `<theme>//<slug>`, taken apart. */
export interface TemplateId {
  theme: string;
  slug: string;
}

const THEME = /^[\w-]+$/;
const SLUG = /^[\w%-]+$/;

/**
 * The theme and slug an id names, or null: the id is URL-decoded and a single last slash doubled,
 * as WordPress does (some clients collapse `//`). Neither part may hold a dot or a slash, so
 * nothing an id says can lead out of a theme's folder.
 */
export function parseTemplateId(raw: string): TemplateId | null {
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return null;
  }
  if (!id.includes('//')) {
    const last = id.lastIndexOf('/');
    if (last <= 0) return null;
    id = `${id.slice(0, last)}/${id.slice(last)}`;
  }
  const at = id.indexOf('//');
  const theme = id.slice(0, at);
  const slug = id.slice(at + 2);
  return THEME.test(theme) && SLUG.test(slug) ? { theme, slug } : null;
}

export const templateId = (theme: string, slug: string) => `${theme}//${slug}`;
