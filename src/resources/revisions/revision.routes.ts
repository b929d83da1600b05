import { type Deps } from '../../deps.js';
import { defineRestError, defineRestErrorWith } from '../../rest/errors.js';
import { contextArg, filterByContext } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestResponse } from '../../rest/rest-response.js';
import { StreamedList } from '../../rest/streamed-list.js';
import { CREATABLE, DELETABLE, defineRoutes, READABLE, type RouteSpec } from '../../rest/route.js';
import { type ItemSchema } from '../../rest/schema.js';
import { REVISION_TEXT_FIELDS, revisionsCollection, type RevisionDoc } from './revision.model.js';
import { diffRevisions } from './revision.diff.js';
import { canDeleteRevision, canReadRevisions, canRestoreRevision } from './revision.permissions.js';
import { parentOf, routeRevision, InvalidRevision, predecessorOf, revisionPage, type RevisionListParams } from './revision.queries.js';
import { revisionDiffSchema, revisionIdArg, revisionListArgs, revisionSchema } from './revision.schema.js';
import { prepareRevision, renderLongRevision, revisionRecord, wantsField } from './revision.serializer.js';
import { type RevisionedItem, type RevisionedType } from './revisioned-type.js';

const TrashNotSupported = defineRestError('rest_trash_not_supported', "Revisions do not support trashing. Set 'force=true' to delete.", 501);

/** WordPress 6.5+: a revision asked for under another item's URL (its message names the parent). */
const ParentIdMismatch = defineRestErrorWith(
  'rest_revision_parent_id_mismatch',
  404,
  (parent: number) => `The revision does not belong to the specified parent with id of "${parent}"`,
);

/** The parent and the revision a `.../revisions/<id>` URL names, the revision belonging to that parent. */
async function parentAndRevision<Item extends RevisionedItem>(deps: Deps, type: RevisionedType<Item>, req: RestRequest): Promise<{ parent: Item; revision: RevisionDoc }> {
  const parent = await parentOf(req, deps, type);
  const revision = await routeRevision(req, deps);
  if (revision.parent !== parent._id) throw new ParentIdMismatch(parent._id);
  return { parent, revision };
}

/** Rows are read without the text fields the response does not show. */
function projectionFor(req: RestRequest, schema: ItemSchema): Record<string, 0> {
  const projection: Record<string, 0> = {};
  for (const field of REVISION_TEXT_FIELDS) if (!wantsField(req, schema, field)) projection[field] = 0;
  return projection;
}

function listParams(req: RestRequest): RevisionListParams {
  const p = req.params;
  return {
    page: Number(p.page ?? 1),
    perPage: p.per_page === undefined ? undefined : Number(p.per_page),
    offset: p.offset === undefined ? undefined : Number(p.offset),
    order: p.order === 'asc' ? 'asc' : 'desc',
    orderby: String(p.orderby ?? 'date'),
    include: (p.include as number[] | undefined) ?? [],
    exclude: (p.exclude as number[] | undefined) ?? [],
    search: typeof p.search === 'string' && p.search !== '' ? p.search : undefined,
  };
}

async function listRevisions<Item extends RevisionedItem>(type: RevisionedType<Item>, schema: ItemSchema, req: RestRequest, deps: Deps): Promise<RestResponse> {
  const parent = await parentOf(req, deps, type);
  const params = listParams(req);
  const { docs, total, totalPages } = await revisionPage(deps, parent, params, projectionFor(req, schema));
  // Each revision is read, rendered and written before the next: WordPress answers every one
  // without `per_page`, and a long post's were held all at once.
  async function* items(): AsyncGenerator<Record<string, unknown>> {
    for await (const doc of docs) {
      const rendered = await renderLongRevision(doc, req, schema, deps);
      yield prepareRevision(revisionRecord(doc, deps.siteUrl), req, type, schema, parent, rendered);
    }
  }
  const headers = { 'X-WP-Total': String(total), 'X-WP-TotalPages': String(totalPages) };
  return new RestResponse(new StreamedList(items()), 200, headers, { total, totalPages, page: params.page });
}

/**
 * DELETE has no `context` argument, so WordPress prepares `previous` in the context a `context`
 * parameter names, `view` by default. Unlike WordPress, a revision of another item is refused
 * (404), so deleting through one item's URL cannot reach another item's history.
 */
async function deleteOne<Item extends RevisionedItem>(type: RevisionedType<Item>, schema: ItemSchema, req: RestRequest, deps: Deps): Promise<Record<string, unknown>> {
  const parent = await parentOf(req, deps, type);
  const revision = await routeRevision(req, deps);
  if (req.params.force !== true) throw new TrashNotSupported();
  if (revision.parent !== parent._id) throw new ParentIdMismatch(parent._id);
  const { _links: _ignored, ...previous } = prepareRevision(revisionRecord(revision, deps.siteUrl), req, type, schema, parent);
  await type.deleteRevision(deps, parent, revision, req.user.id);
  return { deleted: true, previous: filterByContext(schema, previous, req.context) };
}

/** Makes the revision current; answers with the item as an update does. */
async function restoreOne<Item extends RevisionedItem>(type: RevisionedType<Item>, req: RestRequest, deps: Deps): Promise<RestResponse> {
  const { parent, revision } = await parentAndRevision(deps, type, req);
  return type.restore(deps, parent, revision, req);
}

/** Compares a revision with `against` (a revision of the same item) or, by default, with the one before it. */
async function diffOne<Item extends RevisionedItem>(req: RestRequest, type: RevisionedType<Item>, deps: Deps): Promise<unknown> {
  const { parent, revision } = await parentAndRevision(deps, type, req);
  let from: RevisionDoc | null;
  if (req.params.against !== undefined) {
    from = Number(req.params.against) > 0 ? await revisionsCollection(deps.store.db).findOne({ _id: Number(req.params.against), parent: parent._id }) : null;
    if (!from) throw new InvalidRevision();
  } else {
    from = await predecessorOf(deps, revision);
  }
  return diffRevisions(type, from, revision);
}

/**
 * `/<rest_base>/<parent>/revisions` of a post type, as `WP_REST_Revisions_Controller` registers
 * them, plus `restore` and `diff`, which WordPress keeps to its admin screens.
 */
export function revisionRoutes<Item extends RevisionedItem>(type: RevisionedType<Item>): RouteSpec<Deps>[] {
  const schema = revisionSchema(type);
  const base = `/${type.route.base}/(?P<parent>${type.route.idPattern})/revisions`;
  const parent = type.route.idArg('The ID for the parent of the revision.');
  const read = canReadRevisions(type);

  return defineRoutes<Deps>(type.route.namespace, [
    {
      path: base,
      schema,
      endpoints: [
        { methods: READABLE, args: revisionListArgs(type, schema), permission: read, handler: (req, deps) => listRevisions(type, schema, req, deps), response: { body: 'items' } },
      ],
    },
    {
      path: `${base}/(?P<id>[\\d]+)`,
      schema,
      endpoints: [
        {
          methods: READABLE,
          // A revision is written once: what changes it (an erasure, its deletion) is a write, which empties the cache.
          cache: 'per-caller',
          args: { parent, id: revisionIdArg, context: contextArg(schema) },
          permission: read,
          handler: async (req, deps) => {
            const { parent, revision } = await parentAndRevision(deps, type, req);
            return prepareRevision(revisionRecord(revision, deps.siteUrl), req, type, schema, parent, await renderLongRevision(revision, req, schema, deps));
          },
        },
        {
          methods: DELETABLE,
          changes: 'content',
          args: {
            parent,
            id: revisionIdArg,
            force: { type: 'boolean', default: false, description: 'Required to be true, as revisions do not support trashing.' },
          },
          permission: canDeleteRevision(type),
          answerContext: 'asked',
          handler: (req, deps) => deleteOne(type, schema, req, deps),
        },
      ],
    },
    {
      path: `${base}/(?P<id>[\\d]+)/restore`,
      schema: type.itemSchema,
      endpoints: [{ methods: CREATABLE, changes: 'content', args: { parent, id: revisionIdArg }, permission: canRestoreRevision(type), answerContext: 'edit', handler: (req, deps) => restoreOne(type, req, deps) }],
    },
    {
      path: `${base}/(?P<id>[\\d]+)/diff`,
      schema: revisionDiffSchema(type, type.diffFields),
      endpoints: [
        {
          methods: READABLE,
          cache: 'per-caller',
          args: {
            parent,
            id: revisionIdArg,
            against: { description: 'The revision to compare with; by default, the one saved just before it.', type: 'integer' },
          },
          permission: read,
          handler: (req, deps) => diffOne(req, type, deps),
        },
      ],
    },
  ]);
}
