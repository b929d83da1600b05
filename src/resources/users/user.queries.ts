import { type Db, type Filter, type Sort } from 'mongodb';
import { capabilitiesOf, can, ROLE_NAMES } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { escapeRegex } from '../../lib/regex.js';
import { FULL_SCAN_COMMENT } from '../../store/queries/query-shapes.js';
import { usersCollection, type UserDoc } from './user.model.js';

/** Whether a user has this id (an item's author, checked before it is saved). */
export async function userExists(db: Db, id: number): Promise<boolean> {
  return (await usersCollection(db).findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
}

/** The first administrator's email address (what the installer would have written as `admin_email`), or null. */
export async function firstAdministratorEmail(db: Db): Promise<string | null> {
  const admin = await usersCollection(db).findOne({ roles: 'administrator' }, { sort: { _id: 1 }, projection: { email: 1 } });
  return admin?.email ?? null;
}

/** The roles of the user with this id, or null when there is none. */
export async function rolesOfUser(db: Db, id: number): Promise<string[] | null> {
  const user = await usersCollection(db).findOne({ _id: id }, { projection: { roles: 1 } });
  return user ? (user.roles ?? []) : null;
}

/** The display name of the user with this id, or null when there is none (who holds an edit lock, named in a 409). */
export async function nameOfUser(db: Db, id: number): Promise<string | null> {
  const user = await usersCollection(db).findOne({ _id: id }, { projection: { name: 1 } });
  return user ? user.name : null;
}

/** The Mongo filter and sort of `GET /users`, after `WP_User_Query` as the users controller drives it. */
export async function userListQuery(req: RestRequest, deps: Pick<Deps, 'store' | 'hooks'>): Promise<{ filter: Filter<UserDoc>; sort: Sort; comment?: string }> {
  const p = req.params;
  const and: Filter<UserDoc>[] = [];
  const include = (p.include as number[] | undefined) ?? [];
  const exclude = (p.exclude as number[] | undefined) ?? [];
  if (include.length) and.push({ _id: { $in: include } });
  if (exclude.length) and.push({ _id: { $nin: exclude } });
  const slugs = (p.slug as string[] | undefined) ?? [];
  if (slugs.length) and.push({ slug: { $in: slugs } });
  const roles = (p.roles as string[] | undefined) ?? [];
  if (roles.length) and.push({ roles: { $in: roles } });
  const capabilities = (p.capabilities as string[] | undefined) ?? [];
  for (const cap of capabilities) {
    const granting = ROLE_NAMES.filter((role) => capabilitiesOf({ id: 1, roles: [role] }).has(cap));
    and.push({ roles: { $in: granting } });
  }
  if (p.who === 'authors') {
    and.push({ roles: { $in: ROLE_NAMES.filter((role) => capabilitiesOf({ id: 1, roles: [role] }).has('edit_posts')) } });
  }
  if (typeof p.search === 'string' && p.search !== '') {
    // WordPress treats a leading or trailing `*` as the wildcard; otherwise it matches anywhere.
    const pattern = escapeRegex(p.search.replace(/^\*|\*$/g, ''));
    const regex = { $regex: pattern, $options: 'i' };
    const columns: Filter<UserDoc>[] = [{ username: regex }, { name: regex }, { slug: regex }, { url: regex }];
    if (can(req.user, 'list_users')) columns.push({ email: regex });
    and.push({ $or: columns });
  }
  const mustHavePosts = p.has_published_posts === true || !can(req.user, 'list_users');
  if (mustHavePosts) and.push({ _id: { $in: await deps.hooks.publishedAuthorIds(deps.store.db) } });

  const direction = p.order === 'desc' ? -1 : 1;
  const sortField: Record<string, string> = {
    id: '_id',
    name: 'name',
    registered_date: 'registered',
    slug: 'slug',
    email: 'email',
    url: 'url',
    include: '_id',
    include_slugs: 'slug',
  };
  const field = sortField[String(p.orderby)] ?? 'name';
  const sort: Sort = field === '_id' ? { _id: direction } : { [field]: direction, _id: direction };
  // A substring search (WordPress's LIKE '%…%') reads every user whatever the index: it says so.
  const comment = typeof p.search === 'string' && p.search !== '' ? `${FULL_SCAN_COMMENT} a substring search of users` : undefined;
  return { filter: and.length ? { $and: and } : {}, sort, ...(comment ? { comment } : {}) };
}
