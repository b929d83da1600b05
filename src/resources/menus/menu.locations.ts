import { type Db } from 'mongodb';
import { type Deps } from '../../deps.js';
import { type IndexSpec, isDuplicateKey } from '../../store/database/mongo.js';

/**
 * Which menu each location of a theme shows (WordPress's `nav_menu_locations` theme mod): one
 * document per assigned location, so assigning one never rewrites the others.
 */
interface LocationAssignment {
  /** `<theme>/<location>`. */
  _id: string;
  theme: string;
  location: string;
  menu: number;
}

/** Menus whose new top-level pages are added automatically (`nav_menu_options.auto_add`): present means yes. */
interface AutoAddMenu {
  _id: number;
}

export const menuLocationIndexes: IndexSpec[] = [
  { collection: 'menu_locations', key: { theme: 1, menu: 1 }, name: 'theme_menu' },
  { collection: 'menu_locations', key: { menu: 1 }, name: 'menu' },
];

const assignments = (db: Db) => db.collection<LocationAssignment>('menu_locations');
const autoAddMenus_ = (db: Db) => db.collection<AutoAddMenu>('menu_auto_add');

/** The active theme's locations, each with its menu (0 when none is assigned), in registration order. */
export async function activeLocations(deps: Deps): Promise<{ name: string; description: string; menu: number }[]> {
  const theme = deps.themes.active;
  const assigned = new Map((await assignments(deps.store.db).find({ theme: theme.stylesheet }).toArray()).map((doc) => [doc.location, doc.menu]));
  return [...theme.menuLocations].map(([name, description]) => ({ name, description, menu: assigned.get(name) ?? 0 }));
}

/** The active theme's locations that show `menu`, in registration order. */
export async function locationsOfMenu(deps: Deps, menu: number): Promise<string[]> {
  const theme = deps.themes.active;
  const docs = await assignments(deps.store.db).find({ theme: theme.stylesheet, menu }).toArray();
  const names = new Set(docs.map((doc) => doc.location));
  return [...theme.menuLocations.keys()].filter((name) => names.has(name));
}

/**
 * Makes `locations` the active theme's locations showing `menu`: each is taken from whichever menu
 * had it, and the menu's other locations are left empty.
 */
export async function assignLocations(deps: Deps, menu: number, locations: readonly string[]): Promise<void> {
  const theme = deps.themes.active.stylesheet;
  const collection = assignments(deps.store.db);
  await collection.deleteMany({ theme, menu, location: { $nin: [...locations] } });
  for (const location of locations) {
    const assign = () => collection.updateOne({ _id: `${theme}/${location}` }, { $set: { theme, location, menu } }, { upsert: true });
    // Two first assignments of one location at once: FerretDB does not retry the upsert that lost.
    await assign().catch((error: unknown) => (isDuplicateKey(error) ? assign() : Promise.reject(error)));
  }
}

export async function isAutoAdd(deps: Deps, menu: number): Promise<boolean> {
  return (await autoAddMenus_(deps.store.db).findOne({ _id: menu })) !== null;
}

/** Every menu that adds new top-level pages. */
export async function autoAddMenus(deps: Deps): Promise<number[]> {
  return (await autoAddMenus_(deps.store.db).find({}).toArray()).map((doc) => doc._id);
}

export async function setAutoAdd(deps: Deps, menu: number, autoAdd: boolean): Promise<void> {
  const menus = autoAddMenus_(deps.store.db);
  if (!autoAdd) return void (await menus.deleteOne({ _id: menu }));
  await menus.insertOne({ _id: menu }).catch((error: unknown) => {
    if (!isDuplicateKey(error)) throw error;
  });
}

/** What a deleted menu leaves behind: its locations and its auto-add flag. */
export async function forgetMenu(deps: Deps, menu: number): Promise<void> {
  await assignments(deps.store.db).deleteMany({ menu });
  await autoAddMenus_(deps.store.db).deleteOne({ _id: menu });
}
