import { type Deps } from '../../deps.js';
import { suffixedSlug } from '../../lib/slugs.js';
import { ItemTooLarge } from '../../rest/errors.js';
import { isDuplicateKey } from '../../store/mongo.js';
import { templatePartArea } from '../../themes/template-types.js';
import { type TemplateKind } from '../../themes/themes.js';
import { InvalidAuthor } from '../post-errors.js';
import { userExists } from '../users/index.js';
import { templatesCollection, type TemplateDoc } from './template.model.js';
import { type TemplateView } from './template.view.js';

/** What a create or update sends, as its arguments validated it. */
export interface TemplateInput {
  slug?: string;
  theme?: string;
  content?: string | { raw?: string };
  title?: string | { raw?: string };
  description?: string;
  status?: string;
  author?: number;
  area?: string;
}

// Content, title and description together must fit a database document (16 MiB) with room to spare.
const MAX_TEXT_CHARS = 15 * 1024 * 1024;

/** A field sent as a string or as `{raw}`. */
function rawOf(value: string | { raw?: string } | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.raw;
}

async function checkedAuthor(deps: Deps, author: number | undefined): Promise<number | undefined> {
  if (author === undefined) return undefined;
  if (!(await userExists(deps.store.db, author))) throw new InvalidAuthor();
  return author;
}

function checkSize(doc: Pick<TemplateDoc, 'content' | 'title' | 'description'>): void {
  if (doc.content.length + doc.title.length + doc.description.length > MAX_TEXT_CHARS) throw new ItemTooLarge();
}

/**
 * Inserts a record, taking the next free slug (`-2`, `-3`, ...) when `dedupe` is set and the theme
 * has one by that name already, as `wp_unique_post_slug` does per theme, with no limit on the
 * suffix (a limit turned the next create into a server error); the unique index decides races.
 */
async function insertTemplate(deps: Deps, fields: Omit<TemplateDoc, '_id'>, dedupe: boolean): Promise<TemplateDoc> {
  const templates = templatesCollection(deps.store.db);
  const id = await deps.ids.next('content');
  for (let attempt = 1; ; attempt++) {
    const slug = attempt === 1 ? fields.slug : suffixedSlug(fields.slug, attempt);
    const doc: TemplateDoc = { ...fields, _id: id, slug };
    try {
      await templates.insertOne(doc);
      return doc;
    } catch (error) {
      if (!isDuplicateKey(error) || !dedupe) throw error;
    }
  }
}

/** `create_item`: a record of the site's own, for the theme sent or the active one. */
export async function createTemplate(deps: Deps, kind: TemplateKind, input: TemplateInput, userId: number): Promise<TemplateDoc> {
  const author = (await checkedAuthor(deps, input.author)) ?? userId;
  const fields: Omit<TemplateDoc, '_id'> = {
    theme: input.theme ?? deps.themes.active.stylesheet,
    type: kind,
    slug: input.slug!,
    status: input.status ?? 'publish',
    author,
    modified: deps.clock(),
    title: rawOf(input.title) ?? '',
    description: input.description ?? '',
    content: rawOf(input.content) ?? '',
    origin: null,
    ...(kind === 'cms_template_part' ? { area: templatePartArea(input.area) } : {}),
  };
  checkSize(fields);
  return insertTemplate(deps, fields, true);
}

/**
 * `update_item`: a record is updated in place (only the fields sent); a theme file gets its
 * customized copy, with the same id, pre-filled from the file for the fields not sent.
 */
export async function updateTemplate(deps: Deps, current: TemplateView, input: TemplateInput, userId: number): Promise<TemplateDoc> {
  const author = await checkedAuthor(deps, input.author);
  const changes: Partial<TemplateDoc> = { modified: deps.clock() };
  const content = rawOf(input.content);
  const title = rawOf(input.title);
  if (content !== undefined) changes.content = content;
  if (title !== undefined) changes.title = title;
  if (input.description !== undefined) changes.description = input.description;
  if (input.status !== undefined) changes.status = input.status;
  if (author !== undefined) changes.author = author;
  if (input.area !== undefined && current.type === 'cms_template_part') changes.area = templatePartArea(input.area);

  if (!current.doc) {
    const fields: Omit<TemplateDoc, '_id'> = {
      theme: current.theme,
      type: current.type,
      slug: current.slug,
      status: 'publish',
      author: userId,
      title: current.title,
      description: current.description,
      content: current.content,
      origin: 'theme',
      ...(current.area !== undefined ? { area: current.area } : {}),
      ...changes,
      modified: changes.modified!,
    };
    checkSize(fields);
    try {
      return await insertTemplate(deps, fields, false);
    } catch (error) {
      // Another request customized it first: this update applies to that copy.
      if (!isDuplicateKey(error)) throw error;
      const winner = await templatesCollection(deps.store.db).findOne({ theme: current.theme, type: current.type, slug: current.slug });
      if (!winner) throw error;
      return applyChanges(deps, winner, changes);
    }
  }
  return applyChanges(deps, current.doc, changes);
}

async function applyChanges(deps: Deps, doc: TemplateDoc, changes: Partial<TemplateDoc>): Promise<TemplateDoc> {
  const next = { ...doc, ...changes };
  checkSize(next);
  if (changes.status !== undefined && changes.status !== 'trash') delete next.trashedFrom;
  const unset = doc.trashedFrom !== undefined && next.trashedFrom === undefined ? { $unset: { trashedFrom: '' as const } } : {};
  await templatesCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: changes, ...unset });
  return next;
}

export async function trashTemplate(deps: Deps, doc: TemplateDoc): Promise<TemplateDoc> {
  const changes: Partial<TemplateDoc> = { status: 'trash', trashedFrom: doc.status, modified: deps.clock() };
  await templatesCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: changes });
  return { ...doc, ...changes };
}

/** Deletes a record; a customization's theme file is what the id names again. */
export async function deleteTemplate(deps: Deps, doc: TemplateDoc): Promise<void> {
  await templatesCollection(deps.store.db).deleteOne({ _id: doc._id });
}
