import { type Deps } from '../../deps.js';
import { sanitizeSlug } from '../../lib/slugs.js';
import { type TaxonomyDef } from '../../registry/taxonomies.js';
import { type TermController, type TermWrite } from './term.controller.js';
import { DuplicateTermSlug, EmptyTermName, ParentTermInvalid, TaxonomyNotHierarchical } from './term.errors.js';
import { DEFAULT_CATEGORY_ID, termsCollection, type TermDoc } from './term.model.js';
import { escapeRegex } from '../../lib/regex.js';
import { findTerm } from './term.queries.js';
import { mergeMeta } from '../../registry/meta.js';
import { isDuplicateKey } from '../../store/database/mongo.js';

/** What a create or update request sends, as validated by its arguments. */
export interface TermInput {
  name?: string;
  slug?: string;
  description?: string;
  /** Any value: a flat taxonomy refuses the key itself, whatever it holds. */
  parent?: unknown;
  meta?: Record<string, unknown>;
}

const MAX_ATTEMPTS = 5;

/** The parent a request sets: refused on a flat taxonomy, and it must be a term of the same taxonomy. */
async function requestedParent(deps: Deps, taxonomy: TaxonomyDef, parent: unknown): Promise<number | undefined> {
  if (parent === undefined || parent === null) return undefined;
  if (!taxonomy.hierarchical) throw new TaxonomyNotHierarchical();
  const id = Number(parent);
  if (id !== 0 && !(await findTerm(deps, taxonomy.slug, id))) throw new ParentTermInvalid();
  return id;
}

async function slugTaken(deps: Deps, taxonomy: string, slug: string, exceptId?: number): Promise<boolean> {
  const filter = exceptId === undefined ? { taxonomy, slug } : { taxonomy, slug, _id: { $ne: exceptId } };
  return (await termsCollection(deps.store.db).findOne(filter, { projection: { _id: 1 } })) !== null;
}

/**
 * `wp_unique_term_slug`: a taken slug first gets its ancestors' slugs appended (hierarchical
 * taxonomies), then `-2`, `-3`, ... Slugs are unique within a taxonomy.
 */
async function uniqueSlug(deps: Deps, taxonomy: TaxonomyDef, slug: string, parent: number, exceptId?: number): Promise<string> {
  if (!(await slugTaken(deps, taxonomy.slug, slug, exceptId))) return slug;
  let candidate = slug;
  if (taxonomy.hierarchical && parent) {
    const seen = new Set<number>();
    for (let id = parent; id && !seen.has(id);) {
      seen.add(id);
      const ancestor = await findTerm(deps, taxonomy.slug, id);
      if (!ancestor) break;
      candidate += `-${ancestor.slug}`;
      if (!(await slugTaken(deps, taxonomy.slug, candidate, exceptId))) return candidate;
      id = ancestor.parent;
    }
  }
  let suffix = 2;
  while (await slugTaken(deps, taxonomy.slug, `${candidate}-${suffix}`, exceptId)) suffix++;
  return `${candidate}-${suffix}`;
}

/**
 * `wp_insert_term`'s duplicate rule: a name already used at the same level is refused unless the
 * client chose a slug nobody has; in a hierarchical taxonomy only a sibling with that exact name
 * (or the chosen slug) counts.
 */
async function refuseDuplicate(ctl: TermController, deps: Deps, write: TermWrite): Promise<void> {
  const terms = termsCollection(deps.store.db);
  const taxonomy = ctl.taxonomy.slug;
  const exactName = { $regex: `^${escapeRegex(write.name)}$`, $options: 'i' };
  const nameMatch = await terms.findOne({ taxonomy, parent: write.parent, name: exactName });
  if (!nameMatch) return;
  const slugMatch = await terms.findOne({ taxonomy, slug: write.slug });
  if (write.slugProvided && nameMatch.slug !== write.slug && !slugMatch) return;
  if (!ctl.taxonomy.hierarchical) throw new ctl.TermExists(nameMatch._id);
  const sameName = await terms.findOne({ taxonomy, parent: write.parent, name: write.name }, { projection: { _id: 1 } });
  if ((!write.slugProvided || nameMatch.slug === write.slug) && sameName) throw new ctl.TermExists(nameMatch._id);
  if (slugMatch && slugMatch.parent === write.parent) throw new ctl.TermExists(slugMatch._id);
}

function termMeta(taxonomy: string, stored: string, changes: Record<string, unknown>): string {
  return JSON.stringify(mergeMeta('term', taxonomy, stored, changes));
}

/** `create_item` then `wp_insert_term`. */
export async function createTerm(ctl: TermController, deps: Deps, input: TermInput): Promise<TermDoc> {
  const { taxonomy } = ctl;
  const parent = (await requestedParent(deps, taxonomy, input.parent)) ?? 0;
  // Filtered as `pre_term_name` filters it before the handler ran (src/registry/saved-fields.ts).
  const name = input.name ?? '';
  if (name === '') throw new EmptyTermName();
  const chosenSlug = sanitizeSlug(input.slug ?? '');
  const write: TermWrite = {
    name,
    slug: chosenSlug || sanitizeSlug(name),
    slugProvided: chosenSlug !== '',
    description: input.description ?? '',
    parent,
  };
  await ctl.extension.beforeWrite?.(write, null, deps);

  const terms = termsCollection(deps.store.db);
  let id: number | undefined;
  for (let attempt = 1; ; attempt++) {
    await refuseDuplicate(ctl, deps, write);
    id ??= await deps.ids.next('term');
    // A name with nothing usable for a slug gets the term's id, as `sanitize_title`'s fallback does.
    const slug = await uniqueSlug(deps, taxonomy, write.slug || String(id), parent);
    const doc: TermDoc = {
      _id: id,
      taxonomy: taxonomy.slug,
      name: write.name,
      slug,
      description: write.description,
      parent,
      count: 0,
      meta: termMeta(taxonomy.slug, '{}', input.meta ?? {}),
    };
    try {
      await terms.insertOne(doc);
      return doc;
    } catch (error) {
      // Another request took the slug in between: check again from the start.
      if (!isDuplicateKey(error) || attempt === MAX_ATTEMPTS) throw error;
    }
  }
}

/** Whether making `parentId` the parent of `termId` would put the term under itself. */
async function makesLoop(deps: Deps, taxonomy: string, termId: number, parentId: number): Promise<boolean> {
  const seen = new Set<number>();
  for (let id = parentId; id > 0 && !seen.has(id);) {
    if (id === termId) return true;
    seen.add(id);
    id = (await findTerm(deps, taxonomy, id))?.parent ?? 0;
  }
  return false;
}

/** `update_item` then `wp_update_term`: only the fields sent change; a taken slug is refused unless it was derived. */
export async function updateTerm(ctl: TermController, deps: Deps, current: TermDoc, input: TermInput): Promise<TermDoc> {
  const { taxonomy } = ctl;
  const requested = await requestedParent(deps, taxonomy, input.parent);
  const changes: Partial<TermDoc> = {};
  if (input.meta !== undefined) changes.meta = termMeta(taxonomy.slug, current.meta, input.meta);

  const touchesTerm = input.name !== undefined || input.slug !== undefined || input.description !== undefined || requested !== undefined;
  if (touchesTerm) {
    const name = input.name ?? current.name;
    if (name === '') throw new EmptyTermName();
    // WordPress's `wp_check_term_hierarchy_for_loops`: a parent under the term itself becomes 0.
    let parent = requested ?? current.parent;
    if (parent && (await makesLoop(deps, taxonomy.slug, current._id, parent))) parent = 0;
    const chosenSlug = input.slug === undefined ? current.slug : sanitizeSlug(input.slug);
    const write: TermWrite = {
      name,
      slug: chosenSlug || sanitizeSlug(name) || String(current._id),
      slugProvided: chosenSlug !== '',
      description: input.description ?? current.description,
      parent,
    };
    await ctl.extension.beforeWrite?.(write, current, deps);
    if (await slugTaken(deps, taxonomy.slug, write.slug, current._id)) {
      if (write.slugProvided && parent === current.parent) throw new DuplicateTermSlug(write.slug);
      write.slug = await uniqueSlug(deps, taxonomy, write.slug, parent, current._id);
    }
    Object.assign(changes, { name: write.name, slug: write.slug, description: write.description, parent });
  }

  if (Object.keys(changes).length) {
    try {
      await termsCollection(deps.store.db).updateOne({ _id: current._id, taxonomy: taxonomy.slug }, { $set: changes });
    } catch (error) {
      if (isDuplicateKey(error)) throw new DuplicateTermSlug(changes.slug ?? current.slug);
      throw error;
    }
  }
  return { ...current, ...changes };
}

/** `wp_delete_term`: the term goes, and its children move up to its parent. */
export async function deleteTerm(ctl: TermController, deps: Deps, doc: TermDoc): Promise<void> {
  const terms = termsCollection(deps.store.db);
  await terms.deleteOne({ _id: doc._id, taxonomy: ctl.taxonomy.slug });
  await terms.updateMany({ taxonomy: ctl.taxonomy.slug, parent: doc._id }, { $set: { parent: doc.parent } });
}

/** Seeds WordPress's default category (term 1, "Uncategorized") once; later starts leave it as it is. */
export async function ensureDefaultCategory(deps: Deps): Promise<void> {
  await deps.ids.reserve('term', DEFAULT_CATEGORY_ID);
  const fields: Omit<TermDoc, '_id'> = {
    taxonomy: 'category',
    name: 'Uncategorized',
    slug: 'uncategorized',
    description: '',
    parent: 0,
    count: 0,
    meta: '{}',
  };
  try {
    await termsCollection(deps.store.db).updateOne({ _id: DEFAULT_CATEGORY_ID }, { $setOnInsert: fields }, { upsert: true });
  } catch (error) {
    // Another process seeded it first.
    if (!isDuplicateKey(error)) throw error;
  }
}
