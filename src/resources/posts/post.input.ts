import { can, type Principal } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { formatRestDate, formatSiteDate, parseRestDate, parseRestDateGmt } from '../../lib/site-dates.js';
import { sanitizeSlug } from '../../lib/slugs.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { TAXONOMIES } from '../../registry/taxonomies.js';
import { defineAuthError, defineRestError, defineRestErrorWith, InvalidDate, invalidParams } from '../../rest/errors.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { siteTimezone } from '../settings/index.js';
import { listTemplates } from '../templates/index.js';
import { userExists } from '../users/index.js';
import { uniqueSlug, type AdmittedChanges } from './post.commands.js';
import { postsCollection, type PostDoc, type PostFields } from './post.model.js';
import { mergeMeta } from '../../registry/meta.js';
import { CannotDeletePost, InvalidAuthor } from '../post-errors.js';
import { canDeletePost } from './post.permissions.js';

export const CannotPublish = defineAuthError('rest_cannot_publish', 'Sorry, you are not allowed to publish posts in this post type.');
export const CannotCreatePrivate = defineAuthError('rest_cannot_publish', 'Sorry, you are not allowed to create private posts in this post type.');
export const CannotEditOthers = defineAuthError('rest_cannot_edit_others', 'Sorry, you are not allowed to update posts as this user.');
export const CannotAssignSticky = defineAuthError('rest_cannot_assign_sticky', 'Sorry, you are not allowed to make posts sticky.');
export const CannotAssignTerm = defineAuthError('rest_cannot_assign_term', 'Sorry, you are not allowed to assign the provided terms.');
export const InvalidParent = defineRestError('rest_post_invalid_id', 'Invalid post parent ID.', 400);
export const InvalidFeaturedMedia = defineRestError('rest_invalid_featured_media', 'Invalid featured media ID.', 400);
const NotText = defineRestErrorWith('rest_invalid_param', 400, (name: string) => `${name} is not of type string.`);
const TemplateNotOffered = defineRestErrorWith('rest_invalid_param', 400, (allowed: string[]) => `template is not one of ${allowed.join(', ')}.`);
const InvalidTerm = defineRestErrorWith('rest_invalid_term_id', 400, (taxonomy: string) => `Invalid ${taxonomy} term ID.`);

/** Whom a write is for: the caller whose rights it is admitted under. */
export interface Writer {
  readonly user: Principal;
}

/** What the input policy reads of a write request: its parameters and its caller (a scheduled change replays both). */
export type WriteRequest = Pick<RestRequest, 'params' | 'user'>;

/** `title`, `content` and `excerpt` are written as a string or as `{ raw }`. */
export function rawText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object') {
    const raw = (value as { raw?: unknown }).raw;
    return raw === undefined || raw === null ? undefined : String(raw);
  }
  return String(value);
}

// WordPress publishes a "future" post whose date is under a minute away, and schedules a
// "publish" one whose date is at least a minute ahead (`wp_insert_post`).
const SCHEDULE_MARGIN_MS = 60_000;

/**
 * The fields a create or update request sets, checked as WordPress's posts controller checks
 * them (`prepare_item_for_database`, `handle_status_param`, `check_assign_terms_permission` ...).
 */
export async function changesFromRequest(
  req: WriteRequest,
  deps: Deps,
  type: PostTypeDef,
  current: PostDoc | null,
  unread: readonly string[] = [],
): Promise<AdmittedChanges> {
  // A route that declares fewer fields (media) names the others: sent anyway, they are not its
  // arguments, so nothing checked them, and they are ignored, as WordPress reads only its schema's.
  const p: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(req.params)) if (!unread.includes(name)) p[name] = value;
  // A field the type's route does not declare reaches here unchecked: an object is refused, not stringified.
  const text = (name: string): string => {
    const value = p[name];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw invalidParams({ [name]: new NotText(name) });
  };
  const changes: Partial<PostFields> = {};
  // Title, content, excerpt and meta come filtered by their save filters (src/registry/saved-fields.ts).
  for (const field of ['title', 'content', 'excerpt'] as const) {
    const text = rawText(p[field]);
    if (text === undefined) continue;
    if (field === 'title' && typeof p.title === 'object' && text === '') continue;
    changes[field] = text;
  }
  if (p.password !== undefined) changes.password = text('password');
  for (const key of ['comment_status', 'ping_status', 'format'] as const) {
    if (p[key] !== undefined) changes[key] = text(key);
  }
  if (p.template !== undefined) changes.template = text('template');
  if (p.menu_order !== undefined && type.supports['page-attributes']) changes.menu_order = Number(p.menu_order);
  if (p.meta !== undefined) changes.meta = mergeMeta('post', type.slug, current?.meta, p.meta);

  if (p.author !== undefined && Number(p.author) !== (current?.author ?? req.user.id)) changes.author = Number(p.author);
  if (p.parent !== undefined && type.hierarchical) changes.parent = Number(p.parent);
  if (p.featured_media !== undefined && type.supports.thumbnail) changes.featured_media = Number(p.featured_media);
  if (p.sticky !== undefined && type.slug === 'post') changes.sticky = Boolean(p.sticky);
  applyTerms(req, type, changes, current);
  await applyDates(req, deps, changes);
  applyStatus(req, changes, current, deps.clock());
  await applySlug(req, deps, type, changes, current);
  return admitPostChanges(req, deps, type, current, changes);
}

/**
 * The input policy every write of an item's fields passes, whatever their source: an update, a
 * revision restored, a state restored as of a point. `changes` is what the write would set; it
 * is checked as WordPress checks an update by `caller` (`check_assign_terms_permission`,
 * `handle_status_param`, `prepare_item_for_database`): the rights each field asks for, and that
 * what it names exists. A write that needs a right the caller lacks is refused whole, with the
 * update's own error, so nothing the caller may not do reaches the item by another path.
 */
export async function admitPostChanges(caller: Writer, deps: Deps, type: PostTypeDef, current: PostDoc | null, changes: Partial<PostFields>): Promise<AdmittedChanges> {
  const posts = postsCollection(deps.store.db);
  const { template, author, parent, featured_media: media, sticky, terms, status } = changes;
  if (template !== undefined && template !== '' && template !== current?.template) await checkTemplateOffered(deps, type, template);
  if (author !== undefined && author !== (current?.author ?? caller.user.id)) {
    if (author !== caller.user.id && !can(caller.user, type.caps.edit_others_posts)) throw new CannotEditOthers(caller);
    if (!(await userExists(deps.store.db, author))) throw new InvalidAuthor();
  }
  if (parent !== undefined && parent !== 0) {
    if (parent === current?._id || !(await posts.findOne({ _id: parent, type: type.slug }, { projection: { _id: 1 } }))) throw new InvalidParent();
  }
  if (media !== undefined && media !== 0 && !(await posts.findOne({ _id: media, type: 'attachment' }, { projection: { _id: 1 } }))) {
    throw new InvalidFeaturedMedia();
  }
  // Current WordPress lets whoever may publish make a post sticky (`publish_posts`), not only editors.
  if (sticky === true && !can(caller.user, type.caps.edit_others_posts) && !can(caller.user, type.caps.publish_posts)) throw new CannotAssignSticky(caller);
  for (const [taxonomy, ids] of Object.entries(terms ?? {})) {
    const definition = TAXONOMIES.find((candidate) => candidate.slug === taxonomy);
    if (!definition) continue;
    if (!can(caller.user, definition.capabilities.assign_terms)) throw new CannotAssignTerm(caller);
    if ((await deps.hooks.countTermsOf(deps.store.db, taxonomy, ids)) !== ids.length) throw new InvalidTerm(taxonomy);
  }
  if (status !== undefined && status !== (current?.status ?? 'draft')) {
    if ((status === 'publish' || status === 'future') && !can(caller.user, type.caps.publish_posts)) throw new CannotPublish(caller);
    if (status === 'private' && !can(caller.user, type.caps.publish_posts)) throw new CannotCreatePrivate(caller);
  }
  return changes as AdmittedChanges;
}

/**
 * What a restore (of a revision, or of the item as of a point) writes: the restored fields,
 * admitted as an update of those that differ from the item's would be for `caller`. A slug taken
 * since by another item is made unique, as a sent one is; a state that was in the trash is
 * restored only by who may trash the item, as no update can move it there.
 */
export async function admitRestored(caller: Writer, deps: Deps, type: PostTypeDef, current: PostDoc, restored: Partial<PostFields>): Promise<AdmittedChanges> {
  const changed: Partial<PostFields> = {};
  for (const [field, value] of Object.entries(restored) as [keyof PostFields, unknown][]) {
    if (JSON.stringify(value) !== JSON.stringify(current[field])) (changed as Record<string, unknown>)[field] = value;
  }
  if (changed.status === 'trash' && !canDeletePost(caller.user, current)) throw new CannotDeletePost(caller);
  await admitPostChanges(caller, deps, type, current, changed);
  const admitted = { ...restored };
  if (changed.slug) admitted.slug = await uniqueSlug(deps, type.slug, changed.slug, current._id, type.hierarchical ? (admitted.parent ?? current.parent) : undefined);
  return admitted as AdmittedChanges;
}

/**
 * `check_template`: a template must be one the theme offers for the type (its custom templates),
 * or the one the item already has; anything else is 400 `rest_invalid_param` naming the choices.
 */
async function checkTemplateOffered(deps: Deps, type: PostTypeDef, template: string): Promise<void> {
  const allowed = (await listTemplates(deps, 'cms_template', { post_type: type.slug })).map((view) => view.slug);
  if (!allowed.includes(template)) throw invalidParams({ template: new TemplateNotOffered(allowed) });
}

/** The terms of each taxonomy sent; an item's terms in the others stay (`wp_set_object_terms` per taxonomy sent). */
function applyTerms(req: WriteRequest, type: PostTypeDef, changes: Partial<PostFields>, current: PostDoc | null): void {
  for (const taxonomy of TAXONOMIES.filter((candidate) => candidate.types.includes(type.slug))) {
    const ids = req.params[taxonomy.rest_base] as number[] | undefined;
    if (ids === undefined) continue;
    changes.terms = { ...(changes.terms ?? current?.terms ?? {}), [taxonomy.slug]: [...new Set(ids)] };
  }
}

/**
 * `date` alone is wall-clock time in the site's timezone, `date_gmt` alone is GMT; an explicit
 * offset wins. `date: null` on a draft makes its date float again (WordPress 5.x).
 */
async function applyDates(req: WriteRequest, deps: Deps, changes: Partial<PostFields>): Promise<void> {
  const { date, date_gmt: dateGmt } = req.params;
  if (date === undefined && dateGmt === undefined) return;
  const timezone = await siteTimezone(deps);
  if (date === null || dateGmt === null) {
    changes.dateGmt = null;
    changes.date = formatSiteDate(deps.clock(), timezone)!;
    return;
  }
  const instant = date !== undefined ? parseRestDate(String(date), timezone) : parseRestDateGmt(String(dateGmt));
  if (!instant) throw new InvalidDate();
  changes.date = formatSiteDate(instant, timezone)!;
  changes.dateGmt = formatRestDate(instant);
}

/** The status a date decides: a publication dated ahead of `now` (the service's clock, as the scheduler's) is scheduled, a schedule come due published. */
function applyStatus(req: WriteRequest, changes: Partial<PostFields>, current: PostDoc | null, now: Date): void {
  let status = req.params.status === undefined ? undefined : String(req.params.status);
  if (status === undefined && current === null) status = 'draft';
  const effective = status ?? current?.status ?? 'draft';
  const dateGmt = changes.dateGmt !== undefined ? changes.dateGmt : current?.dateGmt ?? null;
  if ((effective === 'publish' || effective === 'future') && dateGmt) {
    const ahead = Date.parse(`${dateGmt}Z`) - now.getTime();
    if (effective === 'publish' && ahead >= SCHEDULE_MARGIN_MS) status = 'future';
    if (effective === 'future' && ahead < SCHEDULE_MARGIN_MS) status = 'publish';
  }
  if (status !== undefined) changes.status = status;
  if (current?.status === 'trash' && status !== undefined && status !== 'trash') {
    changes.trashedFrom = null;
    changes.slug = current.slug.replace(/__trashed$/, '');
  }
}

/** A given slug is made unique; a published item without one gets it from its title. */
async function applySlug(req: WriteRequest, deps: Deps, type: PostTypeDef, changes: Partial<PostFields>, current: PostDoc | null): Promise<void> {
  const id = current?._id ?? -1;
  const parent = type.hierarchical ? (changes.parent ?? current?.parent ?? 0) : undefined;
  if (req.params.slug !== undefined) {
    changes.slug = await uniqueSlug(deps, type.slug, String(req.params.slug), id, parent);
    return;
  }
  const status = changes.status ?? current?.status ?? 'draft';
  const slug = changes.slug ?? current?.slug ?? '';
  if (!slug && ['publish', 'private', 'future'].includes(status)) {
    const title = changes.title ?? current?.title ?? '';
    const generated = sanitizeSlug(title) || String(current?._id ?? '');
    if (generated) changes.slug = await uniqueSlug(deps, type.slug, generated, id, parent);
  }
}
