import { type ArgSpec } from './args.js';

/**
 * How the items of a type are named in URLs: the namespace and base of their routes, the
 * pattern of an id in a path, the argument that reads it, and an item's own id and route.
 * Routes under an item (its revisions, autosaves, history) are built from it, so a type whose
 * ids are not integers (templates: `<theme>//<slug>`) gets them as they are.
 */
export interface ItemRoute<Item> {
  readonly namespace: string;
  /** The items' route base, without slashes (`posts`, `templates`). */
  readonly base: string;
  /** The regular expression an id matches in a path (without a group). */
  readonly idPattern: string;
  /** The argument reading an id from the path, described as the route describes it. */
  idArg(description: string): ArgSpec;
  /** Whether a value from the path can name an item at all (an integer id: above 0). */
  names(raw: unknown): boolean;
  /** Whether an id may hold a `/` (`<theme>//<slug>`): its argument is then declared wherever a path holds it, with examples. */
  readonly idsHoldSlashes?: boolean;
  /** The id an item is named by in URLs and answers. */
  idOf(item: Item): number | string;
}

/** The item's route: `/cms/v2/posts/5`. */
export const itemPath = <Item>(route: ItemRoute<Item>, item: Item) => `/${route.namespace}/${route.base}/${route.idOf(item)}`;

/** A type whose items are named by their integer id, as WordPress's posts, pages and menu items are. */
export function integerItemRoute<Item extends { _id: number }>(namespace: string, base: string): ItemRoute<Item> {
  return {
    namespace,
    base,
    idPattern: '[\\d]+',
    idArg: (description) => ({ description, type: 'integer' }),
    names: (raw) => Number(raw) > 0,
    idOf: (item) => item._id,
  };
}
