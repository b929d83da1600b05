import { type Collection, type Db } from 'mongodb';
import { type Deps } from '../../deps.js';
import { type IndexSpec, isDuplicateKey } from '../../store/database/mongo.js';

/**
 * A theme's user global styles (WordPress's `wp_global_styles` post): one per theme, created on
 * first need. `styles` and `settings` are the client's objects, kept as JSON strings: their keys
 * (block names, custom properties) may contain `.` or start with `$`.
 */
export interface GlobalStylesDoc {
  _id: number;
  theme: string;
  title: string;
  styles: string;
  settings: string;
  modified: Date;
}

export const globalStylesCollection = (db: Db): Collection<GlobalStylesDoc> => db.collection<GlobalStylesDoc>('global_styles');

// The unique index decides which of two processes creating a theme's record at once wins.
export const globalStylesIndexes: IndexSpec[] = [{ collection: 'global_styles', key: { theme: 1 }, name: 'theme_unique', unique: true }];


/** WordPress's default title of the record (`Custom Styles`). */
export const DEFAULT_GLOBAL_STYLES_TITLE = 'Custom Styles';

export async function findGlobalStylesOfTheme(deps: Deps, theme: string): Promise<GlobalStylesDoc | null> {
  return globalStylesCollection(deps.store.db).findOne({ theme });
}

export async function findGlobalStyles(deps: Deps, id: number): Promise<GlobalStylesDoc | null> {
  return globalStylesCollection(deps.store.db).findOne({ _id: id });
}

/** `get_user_global_styles_post_id`: the theme's record, created when it has none. */
export async function ensureGlobalStyles(deps: Deps, theme: string): Promise<GlobalStylesDoc> {
  const existing = await findGlobalStylesOfTheme(deps, theme);
  if (existing) return existing;
  const doc: GlobalStylesDoc = {
    _id: await deps.ids.next('content'),
    theme,
    title: DEFAULT_GLOBAL_STYLES_TITLE,
    styles: '{}',
    settings: '{}',
    modified: deps.clock(),
  };
  try {
    await globalStylesCollection(deps.store.db).insertOne(doc);
    return doc;
  } catch (error) {
    // Another request created it first: theirs is the one.
    if (!isDuplicateKey(error)) throw error;
    const winner = await findGlobalStylesOfTheme(deps, theme);
    if (!winner) throw error;
    return winner;
  }
}
