import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { type RestRequest, type RestUser } from '../../rest/rest-request.js';
import { type Permission } from '../../rest/route.js';
import { POST_TYPES } from '../../registry/post-types.js';
import { usersCollection, type UserDoc } from './user.model.js';

export const UserInvalidId = defineRestError('rest_user_invalid_id', 'Invalid user ID.', 404);
export const NotLoggedIn = defineRestError('rest_not_logged_in', 'You are not currently logged in.', 401);
export const UserCannotView = defineAuthError('rest_user_cannot_view', 'Sorry, you are not allowed to list users.');
export const ForbiddenUsersContext = defineAuthError('rest_forbidden_context', 'Sorry, you are not allowed to list users.');
export const ForbiddenOrderby = defineAuthError('rest_forbidden_orderby', 'Sorry, you are not allowed to order users by this parameter.');
export const ForbiddenWho = defineAuthError('rest_forbidden_who', 'Sorry, you are not allowed to query users by this parameter.');
export const UserCannotFilterRoles = defineAuthError('rest_user_cannot_view', 'Sorry, you are not allowed to filter users by role.');
export const CannotCreateUser = defineAuthError('rest_cannot_create_user', 'Sorry, you are not allowed to create new users.');
export const CannotEditUser = defineAuthError('rest_cannot_edit', 'Sorry, you are not allowed to edit this user.');
export const CannotEditRoles = defineAuthError('rest_cannot_edit_roles', 'Sorry, you are not allowed to edit roles of this user.');
export const CannotDeleteUser = defineAuthError('rest_user_cannot_delete', 'Sorry, you are not allowed to delete this user.');

/** A user by id, or the caller for `me` (401 `rest_not_logged_in` when anonymous). */
export async function userByIdOrMe(deps: Deps, id: number | 'me', caller: RestUser): Promise<UserDoc> {
  if (id === 'me' && caller.id === 0) throw new NotLoggedIn();
  const userId = id === 'me' ? caller.id : id;
  const doc = userId > 0 ? await usersCollection(deps.store.db).findOne({ _id: userId }) : null;
  if (!doc) throw new UserInvalidId();
  return doc;
}

/**
 * The user a route names: `/users/<id>`, or the caller for `/users/me`, told by the matched
 * route, not by `id`: on `/users/me` an `id` in the body is no argument of the route, so nothing
 * checked it (an object there was converted and answered 500).
 */
export function targetUser(req: RestRequest, deps: Deps): Promise<UserDoc> {
  return userByIdOrMe(deps, req.route.endsWith('/users/me') ? 'me' : Number(req.params.id), req.user);
}

const editsSomePostType = (req: RestRequest) => POST_TYPES.some((type) => type.show_in_rest && can(req.user, type.caps.edit_posts));

export const canListUsers: Permission<Deps> = (req) => {
  const listUsers = can(req.user, 'list_users');
  if (req.context === 'edit' && !listUsers) throw new ForbiddenUsersContext(req);
  if ((req.params.roles !== undefined || req.params.capabilities !== undefined) && !listUsers) throw new UserCannotFilterRoles(req);
  if ((req.params.orderby === 'email' || req.params.orderby === 'registered_date') && !listUsers) throw new ForbiddenOrderby(req);
  if (req.params.who === 'authors' && !editsSomePostType(req)) throw new ForbiddenWho(req);
  return true;
};

export const canReadUser: Permission<Deps> = async (req, deps) => {
  const target = await targetUser(req, deps);
  if (target._id === req.user.id) return true;
  if (req.context === 'edit' && !can(req.user, 'list_users')) throw new UserCannotView(req);
  if (can(req.user, 'list_users') || can(req.user, 'edit_user', { user: { id: target._id } })) return true;
  const authors = await deps.hooks.publishedAuthorIds(deps.store.db, [target._id]);
  if (!authors.includes(target._id)) throw new UserCannotView(req);
  return true;
};

export const canCreateUser: Permission<Deps> = (req) => {
  if (!can(req.user, 'create_users')) throw new CannotCreateUser(req);
  return true;
};

export const canUpdateUser: Permission<Deps> = async (req, deps) => {
  const target = await targetUser(req, deps);
  if (!can(req.user, 'edit_user', { user: { id: target._id } })) throw new CannotEditUser(req);
  if (req.params.roles !== undefined && !can(req.user, 'promote_user', { user: { id: target._id } })) throw new CannotEditRoles(req);
  return true;
};

export const canDeleteUser: Permission<Deps> = async (req, deps) => {
  const target = await targetUser(req, deps);
  if (!can(req.user, 'delete_user', { user: { id: target._id } })) throw new CannotDeleteUser(req);
  return true;
};
