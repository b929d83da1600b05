import { can, isRole, type RoleName } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError, defineRestErrorWith } from '../../rest/errors.js';
import { argsFromSchema, collectionArgs, contextArg } from '../../rest/item-schema.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { created } from '../../rest/rest-response.js';
import { BATCH_V1, CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE, type EndpointSpec } from '../../rest/route.js';
import { type ArgSpecs } from '../../rest/args.js';
import { createUserAccount, deleteUserAccount, updateUserAccount, UsersTrashNotSupported, type NewUser } from './user.commands.js';
import { usersCollection, type UserDoc } from './user.model.js';
import { canCreateUser, canDeleteUser, canListUsers, canReadUser, canUpdateUser, targetUser } from './user.permissions.js';
import { userListQuery } from './user.queries.js';
import { userSchema } from './user.schema.js';
import { prepareUser } from './user.serializer.js';
import { savesOf } from '../../registry/saved-fields.js';

export const UserExists = defineRestError('rest_user_exists', 'Cannot create existing user.', 400);
const RoleDoesNotExist = defineRestErrorWith('rest_user_invalid_role', 400, (role: string) => `The role ${role} does not exist.`);
const InvalidUsername = defineRestError('rest_user_invalid_username', 'This username is invalid because it uses illegal characters. Please enter a valid username.', 400);
const EmptyPassword = defineRestError('rest_user_invalid_password', 'Passwords cannot be empty.', 400);
const BackslashInPassword = defineRestError('rest_user_invalid_password', 'Passwords cannot contain the "\\" character.', 400);
const ReassignNotInteger = defineRestError('rest_invalid_type', 'reassign is not of type integer.', 400);
const RoleNotGrantable = defineAuthError('rest_user_invalid_role', 'Sorry, you are not allowed to give users that role.');

// WordPress's `sanitize_user( $login, true )`: a username must already be in this form.
const STRICT_USERNAME = /^[A-Za-z0-9 _.\-@]+$/;

const writeArgs = (mode: 'create' | 'update'): ArgSpecs<RestRequest> => {
  const args: ArgSpecs<RestRequest> = argsFromSchema(userSchema, mode);
  args.username = {
    ...args.username,
    validate: (value) => {
      const username = String(value);
      if (!STRICT_USERNAME.test(username) || username.trim() !== username || username === '') {
        throw new InvalidUsername();
      }
    },
  };
  args.password = {
    ...args.password,
    validate: (value) => {
      const password = String(value);
      if (password.trim() === '') throw new EmptyPassword();
      if (password.includes('\\')) throw new BackslashInPassword();
    },
  };
  return args;
};

/** Checks the requested roles exist and that the caller may give them (and does not demote itself). */
function checkRoles(req: RestRequest, target: number | null): RoleName[] | undefined {
  const roles = req.params.roles as string[] | undefined;
  if (roles === undefined) return undefined;
  for (const role of roles) if (!isRole(role)) throw new RoleDoesNotExist(role);
  const granted = roles as RoleName[];
  if (!can(req.user, 'promote_users')) throw new RoleNotGrantable(req);
  if (target === req.user.id && !granted.some((role) => can({ id: target, roles: [role] }, 'edit_users'))) {
    throw new RoleNotGrantable(req);
  }
  return granted;
}

function changesFrom(params: Record<string, unknown>): Partial<NewUser> {
  const keys = ['username', 'email', 'password', 'name', 'first_name', 'last_name', 'nickname', 'slug', 'url', 'description', 'locale', 'meta'] as const;
  return Object.fromEntries(keys.filter((key) => params[key] !== undefined).map((key) => [key, params[key]]));
}

async function listUsers(req: RestRequest, deps: Deps) {
  const { filter, sort, comment } = await userListQuery(req, deps);
  const window = pageWindow(req.params);
  const users = usersCollection(deps.store.db);
  const [total, docs] = await Promise.all([
    // Everyone: the collection's own count, not a scan that counts.
    Object.keys(filter).length === 0 ? users.estimatedDocumentCount() : users.countDocuments(filter, { comment }),
    users.find(filter, { comment }).sort(sort).skip(window.skip).limit(window.perPage).toArray(),
  ]);
  if (req.params.orderby === 'include' || req.params.orderby === 'include_slugs') {
    const order = (req.params.orderby === 'include' ? (req.params.include as number[]) : (req.params.slug as string[])) ?? [];
    const key = (doc: UserDoc) => order.indexOf((req.params.orderby === 'include' ? doc._id : doc.slug) as never);
    docs.sort((a, b) => key(a) - key(b));
  }
  return pageOf(docs.map((doc) => prepareUser(doc, req, deps.siteUrl)), total, window);
}

async function createUser(req: RestRequest, deps: Deps) {
  if (req.params.id !== undefined) throw new UserExists();
  const roles = checkRoles(req, null);
  const doc = await createUserAccount(deps, { ...(changesFrom(req.params) as NewUser), ...(roles ? { roles } : {}) });
  return created(prepareUser(doc, req, deps.siteUrl), req.url(`/cms/v2/users/${doc._id}`));
}

async function updateUser(req: RestRequest, deps: Deps) {
  const doc = await targetUser(req, deps);
  const roles = checkRoles(req, doc._id);
  const updated = await updateUserAccount(deps, doc, { ...changesFrom(req.params), ...(roles ? { roles } : {}) });
  return prepareUser(updated, req, deps.siteUrl);
}

async function deleteUser(req: RestRequest, deps: Deps) {
  const doc = await targetUser(req, deps);
  if (req.params.force !== true) throw new UsersTrashNotSupported();
  const previous = prepareUser(doc, req, deps.siteUrl);
  delete previous._links;
  await deleteUserAccount(deps, doc, reassignTarget(req.params.reassign)!, req.user.id);
  return { deleted: true, previous };
}

/** The user id to give the posts to, null to delete them, undefined when the value is neither. */
function reassignTarget(value: unknown): number | null | undefined {
  if (value === false || value === '' || value === 'false') return null;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

const idArg = { id: { description: 'Unique identifier for the user.', type: 'integer' } } as const;

const deleteArgs: ArgSpecs<RestRequest> = {
  force: { type: 'boolean', default: false, description: 'Required to be true, as users do not support trashing.' },
  // WordPress types it an integer but also takes false or an empty value: delete the posts too.
  reassign: {
    type: ['integer', 'boolean', 'string'],
    required: true,
    description: 'Reassign the deleted user\'s posts and links to this user ID.',
    validate: (value) => {
      if (reassignTarget(value) === undefined) throw new ReassignNotInteger();
    },
  },
};

/** The item endpoints, shared by `/users/<id>` and `/users/me`. */
const itemEndpoints = (withId: boolean): EndpointSpec<Deps>[] => [
  { methods: READABLE, args: { ...(withId ? idArg : {}), context: contextArg(userSchema) }, permission: canReadUser, handler: async (req, deps) => prepareUser(await targetUser(req, deps), req, deps.siteUrl) },
  { methods: EDITABLE, args: { ...(withId ? idArg : {}), ...writeArgs('update') }, saves: savesOf('users'), permission: canUpdateUser, handler: updateUser },
  { methods: DELETABLE, args: { ...(withId ? idArg : {}), ...deleteArgs }, permission: canDeleteUser, answerContext: 'edit', handler: deleteUser },
];

export const userRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: '/users',
    schema: userSchema,
    allowBatch: BATCH_V1,
    endpoints: [
      {
        methods: READABLE,
        args: {
          context: contextArg(userSchema),
          ...collectionArgs(),
          search: { description: 'Limit results to those matching a string.', type: 'string' },
          exclude: { description: 'Ensure result set excludes specific IDs.', type: 'array', items: { type: 'integer' }, default: [] },
          include: { description: 'Limit result set to specific IDs.', type: 'array', items: { type: 'integer' }, default: [] },
          order: { description: 'Order sort attribute ascending or descending.', type: 'string', enum: ['asc', 'desc'], default: 'asc' },
          orderby: {
            description: 'Sort collection by user attribute.',
            type: 'string',
            enum: ['id', 'include', 'name', 'registered_date', 'slug', 'include_slugs', 'email', 'url'],
            default: 'name',
          },
          slug: { description: 'Limit result set to users with one or more specific slugs.', type: 'array', items: { type: 'string' } },
          roles: { description: 'Limit result set to users matching at least one specific role provided.', type: 'array', items: { type: 'string' } },
          capabilities: { description: 'Limit result set to users matching at least one specific capability provided.', type: 'array', items: { type: 'string' } },
          who: { description: 'Limit result set to users who are considered authors.', type: 'string', enum: ['authors'] },
          has_published_posts: { description: 'Limit result set to users who have published posts.', type: ['boolean', 'array'], items: { type: 'string' } },
        },
        permission: canListUsers,
        handler: listUsers,
        response: { body: 'items' },
      },
      { methods: CREATABLE, args: writeArgs('create'), saves: savesOf('users'), permission: canCreateUser, handler: createUser, response: { status: 201 } },
    ],
  },
  { path: '/users/(?P<id>[\\d]+)', schema: userSchema, allowBatch: BATCH_V1, endpoints: itemEndpoints(true) },
  { path: '/users/me', schema: userSchema, endpoints: itemEndpoints(false) },
]);
