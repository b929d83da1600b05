import { type Deps } from '../../deps.js';
import { type ArgSpecs } from '../../rest/args.js';
import { defineAuthError, defineRestError } from '../../rest/errors.js';
import { contextArg } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { CREATABLE, defineRoutes, READABLE, type RouteSpec } from '../../rest/route.js';
import { CannotEditPost, PostInvalidId } from '../post-errors.js';
import {
  autosavesOf,
  canReadRevisions,
  newestAutosave,
  parentOf,
  revisionRecord,
  routeItemOf,
  type RevisionedItem,
  type RevisionedType,
  type RevisionRecord,
} from '../revisions/index.js';
import { autosaveSchema } from './autosave.schema.js';
import { prepareAutosave } from './autosave.serializer.js';
import { savesOf } from '../../registry/saved-fields.js';

const CannotReadAutosaves = defineAuthError('rest_cannot_read', 'Sorry, you are not allowed to view autosaves of this post.');
const InvalidItemId = defineRestError('rest_post_invalid_id', 'Invalid item ID.', 404);
const NoAutosave = defineRestError('rest_post_no_autosave', 'There is no autosave revision for this post.', 404);

/** A revisioned type whose items take autosaves: what it accepts, and how it saves one. */
export interface AutosavingType<Item extends RevisionedItem = RevisionedItem> extends RevisionedType<Item> {
  /** What a POST accepts: the type's own update arguments. */
  readonly updateArgs: ArgSpecs<RestRequest>;
  /**
   * Saves the request as the caller's autosave of `item`, or, where the type says so (a draft of
   * its own author), into the item itself; answers with what was saved, as a revision record.
   */
  autosave(deps: Deps, item: Item, req: RestRequest): Promise<{ record: RevisionRecord; inPlace: boolean }>;
}

/**
 * `/<rest_base>/<id>/autosaves` and `/<rest_base>/<parent>/autosaves/<id>` of a post type, as
 * `WP_REST_Autosaves_Controller` registers them. Composed from the revisions' parts rather than
 * inheriting them: the same parent lookup, read check, record shape and serializer.
 */
export function autosaveRoutes<Item extends RevisionedItem>(type: AutosavingType<Item>): RouteSpec<Deps>[] {
  const schema = autosaveSchema(type);
  const { route } = type;
  const base = `/${route.base}`;
  const autosaveParent = route.idArg('The ID for the parent of the autosave.');
  const prepare = (req: RestRequest, deps: Deps, record: RevisionRecord, item: Item, inPlace: boolean) =>
    prepareAutosave(record, req, type, schema, { item, inPlace }, deps);

  /** The item an autosave is made of, as the permission check, the handler and `Allow` share it. */
  const autosavedItem = (req: RestRequest, deps: Deps) => routeItemOf(req, deps, type, 'id', PostInvalidId);

  return defineRoutes<Deps>(route.namespace, [
    {
      path: `${base}/(?P<id>${route.idPattern})/autosaves`,
      schema,
      endpoints: [
        {
          // Every user's autosaves, newest first, in one list without paging headers.
          methods: READABLE,
          // WordPress lists only `parent`, though the path names the item `id`: an id a client
          // cannot guess (`<theme>//<slug>`) is declared too, with its examples.
          args: { ...(route.idsHoldSlashes ? { id: route.idArg('The ID of the item whose autosaves are listed.') } : {}), parent: autosaveParent, context: contextArg(schema) },
          permission: canReadRevisions(type, 'id', CannotReadAutosaves),
          response: { body: 'items' },
          handler: async (req, deps) => {
            const item = await parentOf(req, deps, type, 'id');
            const items: Record<string, unknown>[] = [];
            for await (const doc of autosavesOf(deps, item._id)) items.push(prepare(req, deps, revisionRecord(doc, deps.siteUrl), item, false));
            return items;
          },
        },
        {
          // The parent's update arguments win over the route's `parent` (pages: the page's parent).
          methods: CREATABLE,
          changes: 'content',
          args: { parent: autosaveParent, ...type.updateArgs },
          saves: savesOf(type.postType.rest_base),
          permission: async (req, deps) => {
            if (!route.names(req.params.id)) throw new InvalidItemId();
            const item = await autosavedItem(req, deps);
            if (!type.canEdit(req.user, item)) throw new CannotEditPost(req);
            return true;
          },
          answerContext: 'edit',
          handler: async (req, deps) => {
            const current = await autosavedItem(req, deps);
            const { record, inPlace } = await type.autosave(deps, current, req);
            // WordPress answers 200, not 201: an autosave is saved over, never created as a resource.
            return prepare(req, deps, record, current, inPlace);
          },
        },
      ],
    },
    {
      path: `${base}/(?P<parent>${route.idPattern})/autosaves/(?P<id>[\\d]+)`,
      schema,
      endpoints: [
        {
          // The id in the URL is ignored: WordPress answers with the item's newest autosave, anyone's.
          methods: READABLE,
          args: { parent: autosaveParent, id: { description: 'The ID for the autosave.', type: 'integer' }, context: contextArg(schema) },
          permission: canReadRevisions(type),
          handler: async (req, deps) => {
            const item = await parentOf(req, deps, type);
            const autosave = await newestAutosave(deps, item._id);
            if (!autosave) throw new NoAutosave();
            return prepare(req, deps, revisionRecord(autosave, deps.siteUrl), item, false);
          },
        },
      ],
    },
  ]);
}
