import { generatePassword, hashPassword } from '../../auth/passwords.js';
import { endSessionsOf } from '../../auth/sessions.js';
import { DEFAULT_ROLE } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineRestError, RestError } from '../../rest/errors.js';
import { sanitizeSlug } from '../../lib/slugs.js';
import { applicationPasswordsCollection, usersCollection, type UserDoc } from './user.model.js';
import { type SeedReport } from '../manifest.js';
import { mergeMeta } from '../../registry/meta.js';
import { isDuplicateKey } from '../../store/database/mongo.js';

// `wp_insert_user` fails without a status, which WordPress's REST server sends as 500; a client's
// mistake is a 400 here (CONTRACT.md), with WordPress's code.
export const ExistingUserLogin = defineRestError('existing_user_login', 'Sorry, that username already exists!', 400);
export const ExistingUserEmail = defineRestError('existing_user_email', 'Sorry, that email address is already used!', 400);
export const UserLoginTooLong = defineRestError('user_login_too_long', 'Username may not be longer than 60 characters.', 400);

export interface NewUser {
  username: string;
  email: string;
  password: string;
  roles?: string[];
  name?: string;
  first_name?: string;
  last_name?: string;
  nickname?: string;
  slug?: string;
  url?: string;
  description?: string;
  locale?: string;
  meta?: Record<string, unknown>;
}

/** Creates an account (API, first start and `npm run user:create` alike), refusing a taken username or email. */
export async function createUserAccount(deps: Pick<Deps, 'store' | 'ids' | 'clock'>, input: NewUser): Promise<UserDoc> {
  const username = input.username.trim();
  if (username.length > 60) throw new UserLoginTooLong();
  const users = usersCollection(deps.store.db);
  const email = input.email.trim().toLowerCase();
  if (await users.findOne({ username }, { projection: { _id: 1 } })) throw new ExistingUserLogin();
  if (await users.findOne({ email }, { projection: { _id: 1 } })) throw new ExistingUserEmail();
  const slug = await uniqueUserSlug(deps, sanitizeSlug(input.slug || username) || 'user');
  const doc: UserDoc = {
    _id: await deps.ids.next('user'),
    username,
    email,
    passwordHash: await hashPassword(input.password),
    name: input.name ?? username,
    first_name: input.first_name ?? '',
    last_name: input.last_name ?? '',
    nickname: input.nickname ?? username,
    slug,
    url: input.url ?? '',
    description: input.description ?? '',
    locale: input.locale ?? '',
    roles: input.roles ?? [DEFAULT_ROLE],
    registered: deps.clock(),
    meta: JSON.stringify(mergeMeta('user', 'user', '{}', input.meta ?? {})),
  };
  try {
    await users.insertOne(doc);
  } catch (error) {
    // A concurrent create won the race for the username, email or slug: asked which, not read from the message.
    if (!isDuplicateKey(error)) throw error;
    const taken = async (filter: Partial<UserDoc>) => (await users.findOne(filter, { projection: { _id: 1 } })) !== null;
    if (await taken({ email })) throw new ExistingUserEmail();
    if (!(await taken({ username })) && (await taken({ slug }))) throw new UserSlugTaken();
    throw new ExistingUserLogin();
  }
  return doc;
}

async function uniqueUserSlug(deps: Pick<Deps, 'store'>, base: string): Promise<string> {
  const users = usersCollection(deps.store.db);
  let slug = base;
  for (let suffix = 2; await users.findOne({ slug }, { projection: { _id: 1 } }); suffix++) slug = `${base}-${suffix}`;
  return slug;
}

/**
 * On first start with no users: the administrator from `CMS_ADMIN_USER` and `CMS_ADMIN_PASSWORD`,
 * or a random password printed once to the log.
 */
export async function ensureAdministrator(deps: Deps): Promise<SeedReport | void> {
  if (await usersCollection(deps.store.db).findOne({}, { projection: { _id: 1 } })) return;
  const password = deps.config.adminPassword ?? generatePassword(20);
  try {
    await createUserAccount(deps, {
      username: deps.config.adminUser,
      email: `${sanitizeSlug(deps.config.adminUser) || 'admin'}@localhost.localdomain`,
      password,
      roles: ['administrator'],
    });
  } catch (error) {
    // Another process created it first.
    if (error instanceof RestError && error.code.startsWith('existing_user')) return;
    throw error;
  }
  if (deps.config.adminPassword) return void deps.logger.info({ username: deps.config.adminUser }, 'administrator created');
  deps.logger.warn(`administrator "${deps.config.adminUser}" created with the generated password ${password} (shown only this once)`);
  return { generatedAdministrator: { username: deps.config.adminUser, password } };
}

export const UsernameNotEditable = defineRestError('rest_user_invalid_argument', 'Username is not editable.', 400);
export const UserEmailTaken = defineRestError('rest_user_invalid_email', 'Invalid email address.', 400);
export const UserSlugTaken = defineRestError('rest_user_invalid_slug', 'Invalid slug.', 400);
export const InvalidReassign = defineRestError('rest_user_invalid_reassign', 'Invalid user ID for reassignment.', 400);
export const UsersTrashNotSupported = defineRestError('rest_trash_not_supported', "Users do not support trashing. Set 'force=true' to delete.", 501);

export type UserChanges = Partial<Omit<NewUser, 'username'>> & { username?: string };

/** Applies an update, refusing a new username and an email or slug another user has. */
export async function updateUserAccount(deps: Deps, doc: UserDoc, changes: UserChanges): Promise<UserDoc> {
  const users = usersCollection(deps.store.db);
  if (changes.username !== undefined && changes.username !== doc.username) throw new UsernameNotEditable();
  const set: Partial<UserDoc> = {};
  if (changes.email !== undefined) {
    const email = changes.email.trim().toLowerCase();
    if (await users.findOne({ email, _id: { $ne: doc._id } }, { projection: { _id: 1 } })) throw new UserEmailTaken();
    set.email = email;
  }
  if (changes.slug !== undefined) {
    const slug = sanitizeSlug(changes.slug);
    if (!slug || (await users.findOne({ slug, _id: { $ne: doc._id } }, { projection: { _id: 1 } }))) throw new UserSlugTaken();
    set.slug = slug;
  }
  for (const key of ['name', 'first_name', 'last_name', 'nickname', 'url', 'description', 'locale'] as const) {
    if (changes[key] !== undefined) set[key] = changes[key];
  }
  if (changes.roles !== undefined) set.roles = changes.roles;
  if (changes.meta !== undefined) set.meta = JSON.stringify(mergeMeta('user', 'user', doc.meta, changes.meta));
  if (changes.password !== undefined) set.passwordHash = await hashPassword(changes.password);
  if (Object.keys(set).length) {
    try {
      await users.updateOne({ _id: doc._id }, { $set: set });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // Another user took the email or slug meanwhile: asked which, not read from the message.
      const takenSlug = set.slug !== undefined && (await users.findOne({ slug: set.slug, _id: { $ne: doc._id } }, { projection: { _id: 1 } })) !== null;
      throw takenSlug ? new UserSlugTaken() : new UserEmailTaken();
    }
  }
  // A changed password ends every session of the user (WordPress destroys them too; the page signs in again).
  if (set.passwordHash !== undefined) await endSessionsOf(deps.store.db, doc._id);
  // Roles, passwords and every other field: the next request of this user reads them again.
  if (Object.keys(set).length) deps.auth.forget(doc._id);
  return { ...doc, ...set };
}

/**
 * Deletes a user, giving their posts to `reassignTo`, or deleting them for good when it is null
 * (`wp_delete_user`). The posts slice's commands do it (its `beforeUserDelete` hook), so the
 * change log records each change and healing or a rebuild reach the same result.
 */
export async function deleteUserAccount(deps: Deps, doc: UserDoc, reassignTo: number | null, actor: number): Promise<void> {
  const { db } = deps.store;
  if (reassignTo !== null && (reassignTo === doc._id || !(await usersCollection(db).findOne({ _id: reassignTo }, { projection: { _id: 1 } })))) {
    throw new InvalidReassign();
  }
  await deps.hooks.beforeUserDelete(deps, { user: doc._id, reassignTo, actor });
  await applicationPasswordsCollection(db).deleteMany({ user: doc._id });
  await endSessionsOf(db, doc._id);
  await usersCollection(db).deleteOne({ _id: doc._id });
  deps.auth.forget(doc._id);
}
