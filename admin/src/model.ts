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
