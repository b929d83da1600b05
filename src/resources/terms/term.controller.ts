import { type Deps } from '../../deps.js';
import { type ArgSpecs } from '../../rest/args.js';
import { type RestErrorClass } from '../../rest/errors.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type Permission } from '../../rest/route.js';
import { type Context, type ItemSchema } from '../../rest/schema.js';
import { type TaxonomyDef } from '../../registry/taxonomies.js';
import { defineTermExists, TrashNotSupported, type TermExistsClass } from './term.errors.js';
import { type TermDoc } from './term.model.js';
import { type TaggedPost } from './term.queries.js';
import { termSchema } from './term.schema.js';

/** A create or update after sanitizing, before it is stored. */
export interface TermWrite {
  name: string;
  slug: string;
  /** Whether the client chose the slug (WordPress then allows a second term of the same name). */
  slugProvided: boolean;
  description: string;
  parent: number;
}

/**
 * How another resource reuses the terms controller for a taxonomy of its own by composition
 * (WordPress's menus controller extends the terms controller): every hook is optional.
 */
export interface TermExtension {
  /** Changes the taxonomy's item schema (menus drop `count`, `link`, `taxonomy`, `parent` and add `locations`, `auto_add`). */
  schema?(base: ItemSchema): ItemSchema;
  /** Changes the write arguments derived from the schema, e.g. to validate an added property. */
  args?(args: ArgSpecs, mode: 'create' | 'update'): ArgSpecs;
  /** A read check run after the terms' own, on the list and on a single term (menus: `rest_cannot_view`). */
  canRead?: Permission<Deps>;
  /** Fields beyond the stored ones (menus: `locations`, `auto_add`). */
  prepare?(doc: TermDoc, req: RestRequest, deps: Deps): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Links beyond the term's own (menus: `wp:menu-location`). */
  links?(doc: TermDoc, req: RestRequest, deps: Deps): Links | Promise<Links>;
  /** Checks a create or update against what only the running site knows, before anything is stored (menus: registered locations). */
  validate?(req: RestRequest, deps: Deps): void | Promise<void>;
  /** Runs before a create or update is stored, ahead of the duplicate checks; throw to refuse (menus: `menu_exists`). */
  beforeWrite?(write: TermWrite, current: TermDoc | null, deps: Deps): void | Promise<void>;
  /** Runs after a create or update is stored, before the answer is prepared (menus: `locations`, `auto_add`). */
  afterWrite?(doc: TermDoc, req: RestRequest, deps: Deps, creating: boolean): void | Promise<void>;
  /** The object a `post` filter names, with the terms it carries, where it is not a post (menus: a menu item). */
  taggedObject?(deps: Deps, id: number): Promise<TaggedPost | null>;
  /** The ids of the terms `hide_empty` keeps, where the stored count does not tell (menus: those with a published item). */
  nonEmpty?(deps: Deps): Promise<number[]>;
  /** Runs after a term is deleted (menus: their items and location assignments). */
  afterDelete?(doc: TermDoc, req: RestRequest, deps: Deps): void | Promise<void>;
  /** The context creates and updates answer in: `edit` for terms, `view` for menus. */
  writeContext?: Context;
  /** The 501 of a DELETE without `force` (menus word it "Menus do not support trashing."). */
  trashNotSupported?: RestErrorClass;
}

/** Everything the terms endpoints of one taxonomy need, fixed at boot. */
export interface TermController {
  readonly taxonomy: TaxonomyDef;
  readonly schema: ItemSchema;
  /** The collection route, `/cms/v2/<rest_base>`. */
  readonly route: string;
  readonly extension: TermExtension;
  readonly writeContext: Context;
  readonly TermExists: TermExistsClass;
  readonly TrashNotSupported: RestErrorClass;
}

export function termController(taxonomy: TaxonomyDef, extension: TermExtension = {}): TermController {
  const base = termSchema(taxonomy);
  return {
    taxonomy,
    schema: extension.schema ? extension.schema(base) : base,
    route: `/${taxonomy.rest_namespace}/${taxonomy.rest_base}`,
    extension,
    writeContext: extension.writeContext ?? 'edit',
    TermExists: defineTermExists(taxonomy.duplicateMessage),
    TrashNotSupported: extension.trashNotSupported ?? TrashNotSupported,
  };
}
