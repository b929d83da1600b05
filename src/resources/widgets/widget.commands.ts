import { type Deps } from '../../deps.js';
import { ItemTooLarge } from '../../rest/errors.js';
import { WidgetNotFound } from './widget.errors.js';
import { INACTIVE_SIDEBAR, widgetsCollection, type WidgetDoc } from './widget.model.js';
import { endOfSidebar, highestNumber } from './widget.queries.js';
import { isDuplicateKey } from '../../store/database/mongo.js';

// Well under a document's 16 MB; a sidebar id is an index key, kept short enough for any server's key limit.
const MAX_INSTANCE_BYTES = 8 * 1024 * 1024;
const MAX_SIDEBAR_BYTES = 512;

/** Refuses, before anything is written, what the database could not store. */
export function checkSize(fields: { instance?: string; sidebar?: string }): void {
  if (fields.instance !== undefined && Buffer.byteLength(fields.instance) > MAX_INSTANCE_BYTES) throw new ItemTooLarge();
  if (fields.sidebar !== undefined && Buffer.byteLength(fields.sidebar) > MAX_SIDEBAR_BYTES) throw new ItemTooLarge();
}

/**
 * A new widget at the end of `sidebar`. Its number is 1 + the highest of its type
 * (`next_widget_id_number`), claimed by inserting it: the unique `_id` decides between two
 * concurrent creates, and the loser takes the next number.
 */
export async function insertWidget(deps: Deps, idBase: string, sidebar: string, instance: string): Promise<WidgetDoc> {
  checkSize({ instance, sidebar });
  let candidate = (await highestNumber(deps, idBase)) + 1;
  for (;;) {
    const doc = await insertNumbered(deps, idBase, candidate, sidebar, instance);
    if (doc) return doc;
    candidate = Math.max(candidate, await highestNumber(deps, idBase)) + 1;
  }
}

/** A new widget with the given number at the end of `sidebar`; null when that id is taken. */
export async function insertNumbered(deps: Deps, idBase: string, number: number, sidebar: string, instance: string): Promise<WidgetDoc | null> {
  checkSize({ instance, sidebar });
  const doc: WidgetDoc = { _id: `${idBase}-${number}`, idBase, number, sidebar, position: await endOfSidebar(deps, sidebar), instance };
  try {
    await widgetsCollection(deps.store.db).insertOne(doc);
    return doc;
  } catch (error) {
    if (isDuplicateKey(error)) return null;
    throw error;
  }
}

/** Replaces a widget's settings; the widget must still exist. */
export async function saveInstance(deps: Deps, doc: WidgetDoc, instance: string): Promise<WidgetDoc> {
  checkSize({ instance });
  const result = await widgetsCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: { instance } });
  if (result.matchedCount === 0) throw new WidgetNotFound();
  return { ...doc, instance };
}

/** `wp_assign_widget_to_sidebar`: the widget leaves wherever it is for the end of `sidebar`, in one write. */
export async function moveWidget(deps: Deps, doc: WidgetDoc, sidebar: string): Promise<WidgetDoc> {
  checkSize({ sidebar });
  const position = await endOfSidebar(deps, sidebar);
  const result = await widgetsCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: { sidebar, position } });
  if (result.matchedCount === 0) throw new WidgetNotFound();
  return { ...doc, sidebar, position };
}

export async function deleteWidget(deps: Deps, doc: WidgetDoc): Promise<void> {
  await widgetsCollection(deps.store.db).deleteOne({ _id: doc._id });
}

/**
 * A sidebar's update with `widgets` (`WP_REST_Sidebars_Controller::update_item`): the listed
 * widgets come here, from wherever they are, in the given order; widgets that were here and are
 * not listed go to the end of the inactive sidebar. Ids of no widget are ignored.
 *
 * Each widget is moved by one write to its own document, so whatever runs at the same time, a
 * widget is in exactly one sidebar; a widget sent away is moved only if it is still here, so a
 * concurrent move elsewhere is not undone.
 */
export async function assignSidebar(deps: Deps, sidebar: string, ids: readonly string[]): Promise<void> {
  const widgets = widgetsCollection(deps.store.db);
  const listed = [...new Set(ids)];
  // One update at a time: FerretDB 1.24 was seen to stall on a batch of them.
  for (const [position, id] of listed.entries()) await widgets.updateOne({ _id: id }, { $set: { sidebar, position } });
  const keep = new Set(listed);
  const left = (await widgets.find({ sidebar }, { sort: { position: 1, _id: 1 }, projection: { _id: 1 } }).toArray()).filter((doc) => !keep.has(doc._id));
  if (!left.length) return;
  const start = Math.max(await endOfSidebar(deps, INACTIVE_SIDEBAR), sidebar === INACTIVE_SIDEBAR ? listed.length : 0);
  for (const [i, doc] of left.entries()) {
    await widgets.updateOne({ _id: doc._id, sidebar }, { $set: { sidebar: INACTIVE_SIDEBAR, position: start + i } });
  }
}
