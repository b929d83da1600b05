import { htmlText } from './html-text.js';

/** The API's shapes the page reads, and how it names them. */

export const ITEM_TYPES = { posts: 'Post', pages: 'Page', 'menu-items': 'Menu item' } as const;
export type ItemType = keyof typeof ITEM_TYPES;

export const isItemType = (value: string | null): value is ItemType => value !== null && Object.hasOwn(ITEM_TYPES, value);

export interface Rendered {
  raw?: string;
  rendered?: string;
}

export interface Item {
  id: number;
  title: Rendered | string;
  status: string;
  modified_gmt: string;
  author?: number;
  [field: string]: unknown;
}

export interface Revision {
  id: number;
  author: number;
  date_gmt: string;
  modified_gmt: string;
  parent: number;
  slug?: string;
  [field: string]: unknown;
}

export interface HistoryEntry {
  seq: number;
  type: string;
  date_gmt: string;
  author: number;
  fields: string[];
  revision: number | null;
  redacted: string[];
  /** Written while another user held the item's edit lock: that user. */
  locked_by?: number;
  /** An update the scheduler applied: the change, who scheduled it, and which of its fields had changed since. */
  scheduled_change?: { id: number; scheduled_by: number; changed_meanwhile: string[] | null };
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export interface FieldDiff {
  changed: boolean;
  hunks: Hunk[];
  minimal?: false;
  truncated?: true;
}

export interface RevisionDiff {
  from: number | null;
  to: number;
  fields: Record<string, FieldDiff>;
}

export const EVENT_KINDS: Readonly<Record<string, string>> = {
  created: 'Created',
  updated: 'Updated',
  autosaved: 'Autosaved',
  trashed: 'Trashed',
  untrashed: 'Restored from trash',
  restored: 'Revision restored',
  revision_deleted: 'Revision deleted',
  deleted: 'Deleted',
};

// How editors name the fields an entry or a comparison shows.
const FIELD_LABELS: Readonly<Record<string, string>> = {
  title: 'Title',
  content: 'Content',
  excerpt: 'Excerpt',
  status: 'Status',
  slug: 'Slug',
  author: 'Author',
  date: 'Publish date',
  date_gmt: 'Publish date',
  password: 'Password',
  parent: 'Parent',
  menu_order: 'Order',
  comment_status: 'Comments',
  ping_status: 'Pingbacks',
  sticky: 'Sticky',
  format: 'Format',
  template: 'Template',
  featured_media: 'Featured image',
  categories: 'Categories',
  tags: 'Tags',
  meta: 'Custom fields',
  url: 'Link',
  attr_title: 'Title attribute',
  description: 'Description',
  target: 'Open in',
  classes: 'CSS classes',
  xfn: 'Link relationship',
  menus: 'Menu',
  menu_item_parent: 'Parent item',
  object: 'Linked type',
  object_id: 'Linked item',
};

// Bookkeeping a change carries that no editor set: never named in the timeline.
const BOOKKEEPING_FIELDS = new Set(['type', 'trashed_from', 'modified', 'modified_gmt', 'guid', 'generated_slug']);

export function fieldLabel(name: string): string {
  if (Object.hasOwn(FIELD_LABELS, name)) return FIELD_LABELS[name];
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The fields of a change an editor would recognise, by their labels. */
export const editorFields = (fields: readonly string[]): string[] => [...new Set(fields.filter((field) => !BOOKKEEPING_FIELDS.has(field)).map(fieldLabel))];

/** A field's editable text: `raw` of a rendered field, a list joined by spaces, else the value as text. */
export function sourceText(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const field = value as Rendered;
    return field.raw ?? field.rendered ?? '';
  }
  if (Array.isArray(value)) return value.join(' ');
  return value === null || value === undefined ? '' : String(value);
}

/** What a reader sees of a field: its rendered HTML as text (nothing in it runs or loads). */
export function renderedText(value: unknown): string {
  const html = value && typeof value === 'object' && !Array.isArray(value) ? ((value as Rendered).rendered ?? '') : sourceText(value);
  return htmlText(html).replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}

export function titleOf(item: { title?: unknown; id: number }): string {
  const title = renderedText(item.title) || sourceText(item.title);
  return title || `(no title) #${item.id}`;
}
