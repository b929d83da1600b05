import { api, type SessionUser } from './api.js';
import { type Item, type ItemType, type Revision } from './model.js';

/** One item as the page shows it: what it is now, its states, and what the caller may do. */
export interface ItemContext {
  type: ItemType;
  id: number;
  base: string;
  user: SessionUser;
  item: Item;
  etag: string;
  /** Revisions and autosaves, oldest first: the states that can be compared. */
  revisions: Revision[];
  autosaveIds: Set<number>;
  /** The fields a revision of this type keeps (the diff route's fields). */
  fields: string[];
  /** The fields each autosave carried (`AutosaveLog.carried`): the others it holds empty, and they are left as they are. */
  autosaveFields: Map<number, string[]>;
  names: Map<number, string>;
  /** Reads the item again and redraws the whole view (after a restore). */
  reload(): Promise<void>;
}

export async function loadItem(ctx: Pick<ItemContext, 'base'>): Promise<{ item: Item; etag: string }> {
  const { data, headers } = await api<Item>(ctx.base, { query: { context: 'edit' } });
  return { item: data, etag: headers.get('ETag') ?? '' };
}

const contents = new Map<string, Promise<Revision>>();

/** The fields a state sets: an autosave's, those it carried; a revision's, every field it keeps. */
export const fieldsOf = (ctx: Pick<ItemContext, 'fields' | 'autosaveFields'>, state: { id: number }): string[] => ctx.autosaveFields.get(state.id) ?? ctx.fields;

/** The fields a state keeps but does not set (an autosave's, not carried): unchanged by it. */
export const fieldsLeftAlone = (ctx: Pick<ItemContext, 'fields' | 'autosaveFields'>, state: { id: number }): string[] => {
  const set = fieldsOf(ctx, state);
  return ctx.fields.filter((field) => !set.includes(field));
};

/** A revision or autosave with its content (edit context), read once. */
export function revisionContent(ctx: Pick<ItemContext, 'base'>, id: number): Promise<Revision> {
  const key = `${ctx.base}:${id}`;
  let revision = contents.get(key);
  if (!revision) {
    revision = api<Revision>(`${ctx.base}/revisions/${id}`, { query: { context: 'edit' } }).then((r) => r.data);
    revision.catch(() => contents.delete(key));
    contents.set(key, revision);
  }
  return revision;
}
