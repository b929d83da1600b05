import { randomUUID } from 'node:crypto';
import { can } from '../../auth/capabilities.js';
import { isAuthUser } from '../../auth/authenticate.js';
import { generatePassword, hashApplicationPassword } from '../../auth/passwords.js';
import { loadSiteKey } from '../../auth/site-key.js';
import { type Deps } from '../../deps.js';
import { defineAuthError, defineRestError, type AuthErrorClass } from '../../rest/errors.js';
import { argsFromSchema, contextArg } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { created } from '../../rest/rest-response.js';
import { CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE, type Permission } from '../../rest/route.js';
import { applicationPasswordsCollection, type ApplicationPasswordDoc, type UserDoc, userByIdOrMe } from '../users/index.js';
import { applicationPasswordSchema } from './application-password.schema.js';
import { savesOf } from '../../registry/saved-fields.js';

const NotFound = defineRestError('rest_application_password_not_found', 'Application password not found.', 404);
const DuplicateName = defineRestError('application_password_duplicate_name', 'Each application name should be unique.', 409);
const NoAppPassword = defineRestError('rest_no_authenticated_app_password', 'Cannot introspect application password.', 404);
const CannotIntrospect = defineAuthError(
  'rest_cannot_introspect_app_password_for_non_authenticated_user',
  'The authenticated application password can only be introspected for the current user.',
);
const CannotList = defineAuthError('rest_cannot_list_application_passwords', 'Sorry, you are not allowed to list application passwords for this user.');
const CannotRead = defineAuthError('rest_cannot_read_application_password', 'Sorry, you are not allowed to read this application password.');
const CannotCreate = defineAuthError('rest_cannot_create_application_passwords', 'Sorry, you are not allowed to create application passwords for this user.');
const CannotEdit = defineAuthError('rest_cannot_edit_application_password', 'Sorry, you are not allowed to edit this application password.');
const CannotDeleteOne = defineAuthError('rest_cannot_delete_application_password', 'Sorry, you are not allowed to delete this application password.');
const CannotDeleteAll = defineAuthError('rest_cannot_delete_application_passwords', 'Sorry, you are not allowed to delete application passwords for this user.');

/** The route's user: a number, or `me` for the caller. */
function owner(req: RestRequest, deps: Deps): Promise<UserDoc> {
  return userByIdOrMe(deps, req.params.user_id === 'me' ? 'me' : Number(req.params.user_id), req.user);
}

/** Every route here maps to `edit_user` on the owner (the user themself or an administrator). */
const mayEdit = (denied: AuthErrorClass): Permission<Deps> => async (req, deps) => {
  const user = await owner(req, deps);
  if (!can(req.user, 'edit_user', { user: { id: user._id } })) throw new denied(req);
  return true;
};

const gmt = (date: Date | null) => (date ? date.toISOString().slice(0, 19) : null);

function prepare(doc: ApplicationPasswordDoc, req: RestRequest, password?: string): Record<string, unknown> {
  const data: Record<string, unknown> = {
    uuid: doc._id,
    app_id: doc.app_id,
    name: doc.name,
    created: gmt(doc.created),
    last_used: gmt(doc.last_used),
    last_ip: doc.last_ip,
  };
  // WordPress shows the new password once, in groups of four.
  if (password) data.password = password.match(/.{4}/g)!.join(' ');
  if (req.wants('_links')) data._links = { self: [{ href: req.url(`/cms/v2/users/${doc.user}/application-passwords/${doc._id}`) }] };
  return data;
}

async function findOwned(req: RestRequest, deps: Deps): Promise<ApplicationPasswordDoc> {
  const user = await owner(req, deps);
  const doc = await applicationPasswordsCollection(deps.store.db).findOne({ _id: String(req.params.uuid), user: user._id });
  if (!doc) throw new NotFound();
  return doc;
}

async function assertUniqueName(deps: Deps, user: number, name: string, except?: string): Promise<void> {
  const clash = await applicationPasswordsCollection(deps.store.db).findOne({ user, name, ...(except ? { _id: { $ne: except } } : {}) });
  if (clash) throw new DuplicateName();
}

const userIdArg = { user_id: { description: 'The user id, or `me`.', type: 'string' } } as const;
const uuidArg = { uuid: { description: 'The unique identifier for the application password.', type: 'string' } } as const;
const base = '/users/(?P<user_id>(?:[\\d]+|me))/application-passwords';

export const applicationPasswordRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: base,
    schema: applicationPasswordSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { ...userIdArg, context: contextArg(applicationPasswordSchema) },
        permission: mayEdit(CannotList),
        response: { body: 'items' },
        handler: async (req, deps) => {
          const user = await owner(req, deps);
          const docs = await applicationPasswordsCollection(deps.store.db).find({ user: user._id }).sort({ created: 1 }).toArray();
          return docs.map((doc) => prepare(doc, req));
        },
      },
      {
        methods: CREATABLE,
        args: { ...userIdArg, ...argsFromSchema(applicationPasswordSchema, 'create') },
        saves: savesOf('application-passwords'),
        permission: mayEdit(CannotCreate),
        response: { status: 201 },
        answerContext: 'edit',
        handler: async (req, deps) => {
          const user = await owner(req, deps);
          const name = String(req.params.name).trim();
          await assertUniqueName(deps, user._id, name);
          const password = generatePassword(24);
          const doc: ApplicationPasswordDoc = {
            _id: randomUUID(),
            user: user._id,
            name,
            app_id: String(req.params.app_id ?? ''),
            hash: hashApplicationPassword(password, await loadSiteKey(deps.store.db)),
            created: deps.clock(),
            last_used: null,
            last_ip: null,
          };
          await applicationPasswordsCollection(deps.store.db).insertOne(doc);
          return created(prepare(doc, req, password), req.url(`/cms/v2/users/${user._id}/application-passwords/${doc._id}`));
        },
      },
      {
        methods: DELETABLE,
        args: { ...userIdArg },
        permission: mayEdit(CannotDeleteAll),
        response: {
          body: { type: 'object', properties: { deleted: { type: 'boolean' }, count: { description: 'How many were deleted.', type: 'integer' } } },
        },
        handler: async (req, deps) => {
          const user = await owner(req, deps);
          const { deletedCount } = await applicationPasswordsCollection(deps.store.db).deleteMany({ user: user._id });
          return { deleted: true, count: deletedCount };
        },
      },
    ],
  },
  {
    path: `${base}/introspect`,
    schema: applicationPasswordSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { ...userIdArg, context: contextArg(applicationPasswordSchema) },
        permission: async (req, deps) => {
          const user = await owner(req, deps);
          if (user._id !== req.user.id) throw new CannotIntrospect(req);
          return true;
        },
        handler: async (req, deps) => {
          const uuid = isAuthUser(req.user) ? req.user.applicationPassword : undefined;
          const doc = uuid ? await applicationPasswordsCollection(deps.store.db).findOne({ _id: uuid }) : null;
          if (!doc) throw new NoAppPassword();
          return prepare(doc, req);
        },
      },
    ],
  },
  {
    path: `${base}/(?P<uuid>[\\w\\-]+)`,
    schema: applicationPasswordSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { ...userIdArg, ...uuidArg, context: contextArg(applicationPasswordSchema) },
        permission: mayEdit(CannotRead),
        handler: async (req, deps) => prepare(await findOwned(req, deps), req),
      },
      {
        methods: EDITABLE,
        args: { ...userIdArg, ...uuidArg, ...argsFromSchema(applicationPasswordSchema, 'update') },
        saves: savesOf('application-passwords'),
        permission: mayEdit(CannotEdit),
        handler: async (req, deps) => {
          const doc = await findOwned(req, deps);
          const changes: Partial<ApplicationPasswordDoc> = {};
          if (req.params.name !== undefined) {
            changes.name = String(req.params.name).trim();
            await assertUniqueName(deps, doc.user, changes.name, doc._id);
          }
          if (req.params.app_id !== undefined) changes.app_id = String(req.params.app_id);
          await applicationPasswordsCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: changes });
          return prepare({ ...doc, ...changes }, req);
        },
      },
      {
        methods: DELETABLE,
        args: { ...userIdArg, ...uuidArg },
        permission: mayEdit(CannotDeleteOne),
        answerContext: 'edit',
        handler: async (req, deps) => {
          const doc = await findOwned(req, deps);
          await applicationPasswordsCollection(deps.store.db).deleteOne({ _id: doc._id });
          const previous = prepare(doc, req);
          delete previous._links;
          return { deleted: true, previous };
        },
      },
    ],
  },
]);
