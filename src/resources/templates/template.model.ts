import { type Collection, type Db } from 'mongodb';
import { type IndexSpec } from '../../store/mongo.js';
import { type TemplateKind } from '../../themes/themes.js';

/**
 * A template or template part kept in the database: a customization of a theme file (`origin`
 * `theme`) or a template of the site's own (`origin` null). One per theme, type and slug.
 */
export interface TemplateDoc {
  _id: number;
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

export const templatesCollection = (db: Db): Collection<TemplateDoc> => db.collection<TemplateDoc>('templates');

// The unique index decides between two requests customizing one template at once.
export const templateIndexes: IndexSpec[] = [
  { collection: 'templates', key: { theme: 1, type: 1, slug: 1 }, name: 'theme_type_slug_unique', unique: true },
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
