import { type Deps } from '../../deps.js';
import { formatRestDate, formatSiteDate } from '../../lib/site-dates.js';
import { suffixedSlug } from '../../lib/slugs.js';
import { ifMatchPasses, type IfMatch } from '../../rest/conditional.js';
import { ItemTooLarge, PreconditionFailed } from '../../rest/errors.js';
import { createItem, runCommand, type Decision } from '../../store/history/kernel.js';
import { lockKey, otherHolder, type LockRef } from '../locks/index.js';
import { templatePartArea } from '../../themes/template-types.js';
import { type TemplateKind } from '../../themes/themes.js';
import { siteTimezone } from '../settings/index.js';
import { InvalidAuthor } from '../post-errors.js';
import { userExists } from '../users/index.js';
import { autosaveOf, revisionsCollection, type RevisionDoc } from '../revisions/index.js';
import { type TemplateChanged, type TemplateCreated, type TemplateEvent } from './template.events.js';
import { loadTemplate, templateHistory } from './template.history.js';
import { claimTemplateKey, releaseTemplateKey, templateKey } from './template.keys.js';
import { TEMPLATE_REVISIONED_FIELDS, templateFingerprint, type TemplateDoc, type TemplateFields } from './template.model.js';
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

/** When a revision or autosave is saved: now, in the site's timezone and in GMT. */
async function siteNow(deps: Deps): Promise<{ local: string; gmt: string }> {
  const now = deps.clock();
  return { local: formatSiteDate(now, await siteTimezone(deps))!, gmt: formatRestDate(now)! };
}

/** Runs the kernel's command cycle on a template, with the client's `If-Match` when it sent one. */
function commit(deps: Deps, doc: TemplateDoc, actor: number, decide: (state: TemplateDoc) => Promise<Decision<TemplateEvent>>, ifMatch?: IfMatch) {
  return runCommand(deps, templateHistory, doc._id, actor, decide, { current: doc, ...(ifMatch ? { precondition: (etag: string) => ifMatchPasses(ifMatch, etag) } : {}) });
}

/**
 * Appends a new template's creation once its key is claimed, taking the next free slug (`-2`,
 * `-3`, ...) when `dedupe` is set and the theme has one by that name already, as
 * `wp_unique_post_slug` does per theme, with no limit on the suffix. Without `dedupe`, answers the
 * id of the template holding the key instead.
 */
async function createWithKey(deps: Deps, fields: TemplateFields, actor: number, dedupe: boolean): Promise<TemplateDoc | number> {
  const id = await deps.ids.next('content');
  for (let attempt = 1; ; attempt++) {
    const slug = attempt === 1 ? fields.slug : suffixedSlug(fields.slug, attempt);
    const holder = await claimTemplateKey(deps.store.db, templateKey({ ...fields, slug }), id, deps.clock());
    if (holder !== null) {
      if (!dedupe) return holder;
      continue;
    }
    const created: TemplateCreated = { fields: { ...fields, slug } };
    return createItem(deps, templateHistory, fields.type, id, actor, { type: 'created', data: created });
  }
}

/** `create_item`: a template of the site's own, for the theme sent or the active one. */
export async function createTemplate(deps: Deps, kind: TemplateKind, input: TemplateInput, userId: number): Promise<TemplateDoc> {
  const author = (await checkedAuthor(deps, input.author)) ?? userId;
  const fields: TemplateFields = {
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
  return (await createWithKey(deps, fields, userId, true)) as TemplateDoc;
}

// How long an update waits for a theme file's customized copy that another request is creating.
const CUSTOMIZED_WAIT_MS = 2_000;

/** The template holding a key another request claimed: read once its creation is projected. */
async function claimedTemplate(deps: Deps, id: number): Promise<TemplateDoc> {
  const until = Date.now() + CUSTOMIZED_WAIT_MS;
  for (;;) {
    try {
      return await loadTemplate(deps, id);
    } catch (error) {
      if (Date.now() >= until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * `update_item`: a template is updated (only the fields sent); a theme file gets its customized
 * copy, with the same id, pre-filled from the file for the fields not sent.
 */
export async function updateTemplate(deps: Deps, current: TemplateView, input: TemplateInput, userId: number, ifMatch?: IfMatch): Promise<TemplateDoc> {
  const author = await checkedAuthor(deps, input.author);
  const changes: Partial<TemplateFields> = {};
  const content = rawOf(input.content);
  const title = rawOf(input.title);
  if (content !== undefined) changes.content = content;
  if (title !== undefined) changes.title = title;
  if (input.description !== undefined) changes.description = input.description;
  if (input.status !== undefined) changes.status = input.status;
  if (author !== undefined) changes.author = author;
  if (input.area !== undefined && current.type === 'cms_template_part') changes.area = templatePartArea(input.area);

  if (!current.doc) {
    // A theme file has no entity tag: only `*` names it.
    if (ifMatch && !ifMatch.any) throw new PreconditionFailed();
    const fields: TemplateFields = {
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
      modified: deps.clock(),
    };
    checkSize(fields);
    const created = await createWithKey(deps, fields, userId, false);
    if (typeof created !== 'number') return created;
    // Another request customized it first: this update applies to that copy.
    return applyChanges(deps, await claimedTemplate(deps, created), changes, userId);
  }
  return applyChanges(deps, current.doc, changes, userId, ifMatch, { key: lockKey(current.type, current.id), id: current.doc._id });
}

/**
 * An update's event: the fields it changes, stamped, and a revision when WordPress would save one
 * (the first update always; later ones when the title, content or description differ from the
 * newest revision).
 */
async function changedEvent(deps: Deps, state: TemplateDoc, changes: Partial<TemplateFields>, type: 'updated' | 'restored', fromRevision?: number, locked?: { lock: LockRef; actor: number }): Promise<Decision<TemplateEvent>> {
  const changed: Partial<TemplateFields> = Object.fromEntries(Object.entries(changes).filter(([field, value]) => state[field as keyof TemplateFields] !== value));
  changed.modified = deps.clock();
  const next = { ...state, ...changed };
  checkSize(next);
  const data: TemplateChanged = { changes: changed };
  // A status other than trash sent to a trashed template untrashes it.
  if (state.trashedFrom !== undefined && changed.status !== undefined && changed.status !== 'trash') data.unset = ['trashedFrom'];
  if (type === 'restored' || state.headFingerprint === null || templateFingerprint(next) !== state.headFingerprint) {
    const [revisionId, savedAt] = await Promise.all([deps.ids.next('content'), siteNow(deps)]);
    data.revisionId = revisionId;
    data.savedAt = savedAt;
  }
  if (fromRevision !== undefined) data.fromRevision = fromRevision;
  const holder = locked ? await otherHolder(deps, locked.lock, locked.actor) : undefined;
  if (holder !== undefined) data.lockedBy = holder;
  return { type, data };
}

async function applyChanges(deps: Deps, doc: TemplateDoc, changes: Partial<TemplateFields>, actor: number, ifMatch?: IfMatch, lock?: LockRef): Promise<TemplateDoc> {
  const { state } = await commit(deps, doc, actor, (state) => changedEvent(deps, state, changes, 'updated', undefined, lock && { lock, actor }), ifMatch);
  return state!;
}

export async function trashTemplate(deps: Deps, doc: TemplateDoc, actor: number, ifMatch?: IfMatch): Promise<TemplateDoc> {
  const { state } = await commit(
    deps,
    doc,
    actor,
    async (state) => ({ type: 'trashed', data: { changes: { status: 'trash', trashedFrom: state.status, modified: deps.clock() } } }),
    ifMatch,
  );
  return state!;
}

/**
 * Deletes a template for good, erasing its content from the log; a customization's theme file is
 * what the id names again, and the key is free for a new template.
 */
export async function deleteTemplate(deps: Deps, doc: TemplateDoc, actor: number, ifMatch?: IfMatch): Promise<void> {
  await commit(deps, doc, actor, async () => ({ type: 'deleted', data: {}, erase: 'all' as const }), ifMatch);
  await releaseTemplateKey(deps.store.db, templateKey(doc), doc._id);
}

/** The fields an autosave or a restore takes, by the names a template has them. */
export type TemplateText = Pick<TemplateFields, (typeof TEMPLATE_REVISIONED_FIELDS)[number]>;

/**
 * The caller's one autosave of the template: the title, content and description sent, the rest as
 * the template has them, written when it is new or differs from the caller's last one. A
 * template's autosave is never saved into the template itself.
 */
export async function autosaveTemplate(deps: Deps, doc: TemplateDoc, input: TemplateInput, actor: number): Promise<RevisionDoc> {
  let autosaveId = 0;
  const { event, documents } = await commit(deps, doc, actor, async (state) => {
    const fields: TemplateText = {
      title: rawOf(input.title) ?? state.title,
      content: rawOf(input.content) ?? state.content,
      description: input.description ?? state.description,
    };
    checkSize(fields);
    const existing = await autosaveOf(deps.store.db, state._id, actor);
    if (existing && existing.title === fields.title && existing.content === fields.content && existing.excerpt === fields.description) {
      autosaveId = existing._id;
      return null;
    }
    autosaveId = existing?._id ?? (await deps.ids.next('content'));
    return { type: 'autosaved', data: { autosaveId, isNew: !existing, fields, savedAt: await siteNow(deps) } };
  });
  const written = event ? (documents as RevisionDoc[]).find((row) => row._id === autosaveId) : undefined;
  return written ?? (await revisionsCollection(deps.store.db).findOne({ _id: autosaveId }))!;
}

/** Makes a revision's title, content and description current again; a new revision records it. */
export async function restoreTemplateRevision(deps: Deps, doc: TemplateDoc, revisionId: number, text: TemplateText, actor: number, ifMatch?: IfMatch): Promise<TemplateDoc> {
  const { state } = await commit(deps, doc, actor, (state) => changedEvent(deps, state, text, 'restored', revisionId), ifMatch);
  return state!;
}

/** Deletes a revision or autosave and erases from the log the words only it held. */
export async function deleteTemplateRevision(deps: Deps, doc: TemplateDoc, revision: RevisionDoc, actor: number): Promise<void> {
  const revisions = revisionsCollection(deps.store.db);
  await commit(deps, doc, actor, async (state) => {
    const gone: Record<string, unknown[]> = {};
    const held: [field: keyof TemplateText, row: 'title' | 'content' | 'excerpt'][] = [['title', 'title'], ['content', 'content'], ['description', 'excerpt']];
    for (const [field, row] of held) {
      const value = revision[row];
      if (!value || state[field] === value) continue;
      if (await revisions.findOne({ parent: state._id, _id: { $ne: revision._id }, [row]: value }, { projection: { _id: 1 } })) continue;
      gone[field] = [value];
    }
    return { type: 'revision_deleted', data: { revisionId: revision._id }, erase: gone };
  });
}
