import { type Collection, type Db } from 'mongodb';
import { type IndexSpec } from '../../store/database/mongo.js';

/** The inactive-widgets pseudo sidebar (WordPress's `wp_inactive_widgets`). */
export const INACTIVE_SIDEBAR = 'cms_inactive_widgets';

/**
 * A widget in `widgets`, `_id` = `<id_base>-<number>`. Where it sits is a field of its own document
 * (WordPress keeps one `sidebars_widgets` map), so moving it is one single-document write: it can
 * never be lost, nor be in two sidebars. `position` orders a sidebar; ties fall back to `_id`.
 * `instance` is the settings' JSON (stored as text: BSON would not keep every client key).
 */
export interface WidgetDoc {
  _id: string;
  idBase: string;
  number: number;
  sidebar: string;
  position: number;
  instance: string;
}

export const widgetsCollection = (db: Db): Collection<WidgetDoc> => db.collection<WidgetDoc>('widgets');

export const widgetIndexes: IndexSpec[] = [
  { collection: 'widgets', key: { sidebar: 1, position: 1, _id: 1 }, name: 'sidebar_position' },
  { collection: 'widgets', key: { idBase: 1, number: 1 }, name: 'idbase_number' },
];

/** `wp_parse_widget_id`: the id base, and the number after its last `-` when only digits follow. */
export function parseWidgetId(id: string): { idBase: string; number?: number } {
  const match = /^(.+)-(\d+)$/.exec(id);
  return match ? { idBase: match[1], number: Number(match[2]) } : { idBase: id };
}
