import { type Deps } from '../../deps.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { type ArgSpecs } from '../../rest/args.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { contextArg } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { CREATABLE, defineRoutes, READABLE, type RouteSpec } from '../../rest/route.js';
import { type ItemSchema } from '../../rest/schema.js';
import { autosavePost, findPostOfType, postTypeSchema, postWriteArgs } from '../posts/index.js';
import { changesFromRequest } from '../posts/post.input.js';
import { type PostDoc, type PostFields } from '../posts/post.model.js';
import { canEditPost } from '../posts/post.permissions.js';
import { afterPostWrite } from '../posts/post.side-effects.js';
import { CannotEditParent, canReadRevisions } from '../revisions/revision.permissions.js';
import { autosavesOf, parentOf, newestAutosave } from '../revisions/revision.queries.js';
import { parentArg } from '../revisions/revision.schema.js';
import { itemAsRevisionRecord, revisionRecord, type RevisionRecord } from '../revisions/revision.serializer.js';
import { autosaveSchema } from './autosave.schema.js';
import { prepareAutosave } from './autosave.serializer.js';

const CannotReadAutosaves = defineAuthError('rest_cannot_read', 'Sorry, you are not allowed to view autosaves of this post.');
const InvalidItemId = defineRestError('rest_post_invalid_id', 'Invalid item ID.', 404);
const InvalidParentId = defineRestError('rest_post_invalid_id', 'Invalid post parent ID.', 404);
const NoAutosave = defineRestError('rest_post_no_autosave', 'There is no autosave revision for this post.', 404);

/**
 * What autosaves borrow from the parent type's own controller: its schema (for the text fields),
 * its update arguments (which an autosave accepts), and how an update request becomes changes.
 */
export interface AutosaveParent {
  schema: ItemSchema;
  updateArgs: ArgSpecs<RestRequest>;
  changes(req: RestRequest, deps: Deps, current: PostDoc): Promise<Partial<PostFields>>;
}

/** The posts controller as the parent: posts and pages. */
export function postAutosaveParent(type: PostTypeDef): AutosaveParent {
  return {
    schema: postTypeSchema(type),
    updateArgs: postWriteArgs(type, 'update'),
    changes: (req, deps, current) => changesFromRequest(req, deps, type, current),
  };
}

/**
 * `/<rest_base>/<id>/autosaves` and `/<rest_base>/<parent>/autosaves/<id>` of a post type, as
 * `WP_REST_Autosaves_Controller` registers them. Composed from the revisions' parts rather than
 * inheriting them: the same parent lookup, read check, record shape and serializer.
 */
export function autosaveRoutes(type: PostTypeDef, parent: AutosaveParent = postAutosaveParent(type)): RouteSpec<Deps>[] {
  const schema = autosaveSchema(type, parent.schema);
  const base = `/${type.rest_base}`;
  const autosaveParent = parentArg('The ID for the parent of the autosave.');
  const prepare = (req: RestRequest, deps: Deps, record: RevisionRecord, itemId: number, inPlace: boolean) =>
    prepareAutosave(record, req, type, schema, { itemId, inPlace }, deps);

  return defineRoutes<Deps>(type.rest_namespace, [
    {
      path: `${base}/(?P<id>[\\d]+)/autosaves`,
      schema,
      endpoints: [
        {
          // Every user's autosaves, newest first, in one list without paging headers.
          methods: READABLE,
          args: { parent: autosaveParent, context: contextArg(schema) },
          permission: canReadRevisions(type, 'id', CannotReadAutosaves),
          response: { body: 'items' },
          handler: async (req, deps) => {
            const item = await parentOf(req, deps, type, 'id');
            const items: Record<string, unknown>[] = [];
            for await (const doc of autosavesOf(deps, item._id)) items.push(prepare(req, deps, revisionRecord(doc, deps.siteUrl), item._id, false));
            return items;
          },
        },
        {
          // The parent's update arguments win over the route's `parent` (pages: the page's parent).
          methods: CREATABLE,
          args: { parent: autosaveParent, ...parent.updateArgs },
          permission: async (req, deps) => {
            if (!Number(req.params.id)) throw new InvalidItemId();
            const doc = await findPostOfType(deps, type, req.params.id);
            if (!canEditPost(req.user, doc)) throw new CannotEditParent(req);
            return true;
          },
          handler: async (req, deps) => {
            const current = await parentOf(req, deps, type, 'id');
            const changes = await parent.changes(req, deps, current);
            const result = await autosavePost(deps, current._id, changes, req.user.id);
            req.context = 'edit';
            // WordPress answers 200, not 201: an autosave is saved over, never created as a resource.
            if (result.inPlace) {
              await afterPostWrite(deps, current, result.doc);
              return prepare(req, deps, itemAsRevisionRecord(result.doc), result.doc._id, true);
            }
            return prepare(req, deps, revisionRecord(result.autosave, deps.siteUrl), current._id, false);
          },
        },
      ],
    },
    {
      path: `${base}/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)`,
      schema,
      endpoints: [
        {
          // The id in the URL is ignored: WordPress answers with the item's newest autosave, anyone's.
          methods: READABLE,
          args: { parent: autosaveParent, id: { description: 'The ID for the autosave.', type: 'integer' }, context: contextArg(schema) },
          permission: canReadRevisions(type),
          handler: async (req, deps) => {
            const itemId = Number(req.params.parent);
            if (!(itemId > 0)) throw new InvalidParentId();
            const autosave = await newestAutosave(deps, itemId);
            if (!autosave) throw new NoAutosave();
            return prepare(req, deps, revisionRecord(autosave, deps.siteUrl), itemId, false);
          },
        },
      ],
    },
  ]);
}
