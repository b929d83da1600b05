import { can } from '../../auth/capabilities.js';
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
import { uniqueSlug } from './post.commands.js';
import { postsCollection, type PostDoc, type PostFields } from './post.model.js';
import { mergeMeta } from '../../registry/meta.js';
import { InvalidAuthor } from '../post-errors.js';

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
  req: RestRequest,
  deps: Deps,
  type: PostTypeDef,
  current: PostDoc | null,
  unread: readonly string[] = [],
): Promise<Partial<PostFields>> {
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
  if (p.template !== undefined) changes.template = await checkedTemplate(deps, type, text('template'), current);
  if (p.menu_order !== undefined && type.supports['page-attributes']) changes.menu_order = Number(p.menu_order);
  if (p.meta !== undefined) changes.meta = mergeMeta('post', type.slug, current?.meta, p.meta);

  if (p.author !== undefined && Number(p.author) !== (current?.author ?? req.user.id)) {
    const author = Number(p.author);
    if (author !== req.user.id && !can(req.user, type.caps.edit_others_posts)) throw new CannotEditOthers(req);
    if (!(await userExists(deps.store.db, author))) throw new InvalidAuthor();
    changes.author = author;
  }
  if (p.parent !== undefined && type.hierarchical) {
    const parent = Number(p.parent);
    if (parent !== 0 && (parent === current?._id || !(await postsCollection(deps.store.db).findOne({ _id: parent, type: type.slug }, { projection: { _id: 1 } })))) {
      throw new InvalidParent();
    }
    changes.parent = parent;
  }
  if (p.featured_media !== undefined && type.supports.thumbnail) {
    const media = Number(p.featured_media);
    if (media !== 0 && !(await postsCollection(deps.store.db).findOne({ _id: media, type: 'attachment' }, { projection: { _id: 1 } }))) {
      throw new InvalidFeaturedMedia();
    }
    changes.featured_media = media;
  }
  if (p.sticky !== undefined && type.slug === 'post') {
    // Current WordPress lets whoever may publish make a post sticky (`publish_posts`), not only editors.
    if (p.sticky === true && !can(req.user, type.caps.edit_others_posts) && !can(req.user, type.caps.publish_posts)) throw new CannotAssignSticky(req);
    changes.sticky = Boolean(p.sticky);
  }
  await applyTerms(req, deps, type, changes);
  await applyDates(req, deps, changes);
  applyStatus(req, type, changes, current);
  await applySlug(req, deps, type, changes, current);
  return changes;
}

/**
 * `check_template`: a template must be one the theme offers for the type (its custom templates),
 * or the one the item already has; anything else is 400 `rest_invalid_param` naming the choices.
 */
async function checkedTemplate(deps: Deps, type: PostTypeDef, template: string, current: PostDoc | null): Promise<string> {
  if (template === '' || template === current?.template) return template;
  const allowed = (await listTemplates(deps, 'cms_template', { post_type: type.slug })).map((view) => view.slug);
  if (allowed.includes(template)) return template;
  throw invalidParams({ template: new TemplateNotOffered(allowed) });
}

async function applyTerms(req: RestRequest, deps: Deps, type: PostTypeDef, changes: Partial<PostFields>): Promise<void> {
  for (const taxonomy of TAXONOMIES.filter((candidate) => candidate.types.includes(type.slug))) {
    const ids = req.params[taxonomy.rest_base] as number[] | undefined;
    if (ids === undefined) continue;
    if (!can(req.user, taxonomy.capabilities.assign_terms)) throw new CannotAssignTerm(req);
    const unique = [...new Set(ids)];
    const found = await deps.hooks.countTermsOf(deps.store.db, taxonomy.slug, unique);
    if (found !== unique.length) throw new InvalidTerm(taxonomy.slug);
    changes.terms = { ...(changes.terms ?? {}), [taxonomy.slug]: unique };
  }
}

/**
 * `date` alone is wall-clock time in the site's timezone, `date_gmt` alone is GMT; an explicit
 * offset wins. `date: null` on a draft makes its date float again (WordPress 5.x).
 */
async function applyDates(req: RestRequest, deps: Deps, changes: Partial<PostFields>): Promise<void> {
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

function applyStatus(req: RestRequest, type: PostTypeDef, changes: Partial<PostFields>, current: PostDoc | null): void {
  let status = req.params.status === undefined ? undefined : String(req.params.status);
  const previous = current?.status ?? 'draft';
  if (status === undefined && current === null) status = 'draft';
  if (status !== undefined && status !== previous) {
    if ((status === 'publish' || status === 'future') && !can(req.user, type.caps.publish_posts)) throw new CannotPublish(req);
    if (status === 'private' && !can(req.user, type.caps.publish_posts)) throw new CannotCreatePrivate(req);
  }
  const effective = status ?? previous;
  const dateGmt = changes.dateGmt !== undefined ? changes.dateGmt : current?.dateGmt ?? null;
  if ((effective === 'publish' || effective === 'future') && dateGmt) {
    const ahead = Date.parse(`${dateGmt}Z`) - Date.now();
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
async function applySlug(req: RestRequest, deps: Deps, type: PostTypeDef, changes: Partial<PostFields>, current: PostDoc | null): Promise<void> {
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
