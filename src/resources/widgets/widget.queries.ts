import { type Deps } from '../../deps.js';
import { knownSidebars } from './widget.sidebars.js';
import { widgetsCollection, type WidgetDoc } from './widget.model.js';

export function findWidget(deps: Deps, id: string): Promise<WidgetDoc | null> {
  return widgetsCollection(deps.store.db).findOne({ _id: id });
}

/**
 * Widgets in sidebar order: the known sidebars first, in their order, then any other sidebar a
 * client named, by id; within a sidebar, by position.
 */
export async function listWidgets(deps: Deps, sidebar?: string): Promise<WidgetDoc[]> {
  const docs = await widgetsCollection(deps.store.db)
    .find(sidebar === undefined ? {} : { sidebar }, { sort: sidebar === undefined ? { sidebar: 1, position: 1, _id: 1 } : { position: 1, _id: 1 } })
    .toArray();
  if (sidebar !== undefined) return docs;
  const rank = new Map(knownSidebars(deps).map((known, i) => [known.id, i]));
  const order = (doc: WidgetDoc) => rank.get(doc.sidebar) ?? rank.size;
  // A stable sort: the database's order stays within a sidebar, and among unknown sidebars.
  return docs.map((doc, i) => ({ doc, i })).sort((a, b) => order(a.doc) - order(b.doc) || a.i - b.i).map(({ doc }) => doc);
}

/** The position after the last widget of `sidebar` (0 when it is empty). */
export async function endOfSidebar(deps: Deps, sidebar: string): Promise<number> {
  const last = await widgetsCollection(deps.store.db).findOne({ sidebar }, { sort: { position: -1, _id: -1 }, projection: { position: 1 } });
  return last ? last.position + 1 : 0;
}

/** The highest number a widget of this type has (1 when there is none, WordPress's placeholder). */
export async function highestNumber(deps: Deps, idBase: string): Promise<number> {
  const top = await widgetsCollection(deps.store.db).findOne({ idBase }, { sort: { number: -1 }, projection: { number: 1 } });
  return Math.max(top?.number ?? 1, 1);
}
