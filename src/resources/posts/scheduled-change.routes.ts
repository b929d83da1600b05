import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { formatRestDate, parseRestDate, parseRestDateGmt } from '../../lib/site-dates.js';
import { postTypesSupporting, type PostTypeDef } from '../../registry/post-types.js';
import { savesOf } from '../../registry/saved-fields.js';
import { etagHeader, ifMatchOf, ifMatchPasses } from '../../rest/conditional.js';
import { InvalidDate, invalidParams, PreconditionFailed, WriteConflict } from '../../rest/errors.js';
import { collectionArgs, contextArg, filterByContext } from '../../rest/item-schema.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestResponse } from '../../rest/rest-response.js';
import { CREATABLE, defineRoutes, DELETABLE, EDITABLE, READABLE, type RouteSpec } from '../../rest/route.js';
import { siteTimezone } from '../settings/index.js';
import { rolesOfUser } from '../users/index.js';
import { mergeMeta } from '../../registry/meta.js';
import { rawText } from './post.input.js';
import { type PostDoc } from './post.model.js';
import { mayEditRouteItem, routeItem } from './post.routes.js';
import { postTypeSchema, postWriteArgs } from './post.schema.js';
import { prepareOne } from './post.serializer.js';
import { admitScheduled } from './scheduled-change.commands.js';
import { carriedFields, pendingChanges, scheduledChangesCollection, type ScheduledChangeDoc } from './scheduled-change.model.js';
import { CannotEditScheduledChange, DateNotAhead, ScheduledChangeDone, ScheduledChangeInvalidId, scheduledChangeSchema } from './scheduled-change.schema.js';

/** The item's fields a change does not carry: `date_gmt` is when it applies. */
const NOT_CARRIED = ['id', 'date', 'date_gmt'];

/**
 * The write parameters the request sends, by the update's argument names, as the update reads
 * them: the text fields' raw text, and the registered meta keys. Nothing a client names is kept
 * (an object sent as a title, a meta key no one registered): the update would ignore it too.
 */
function sentFields(req: RestRequest, type: PostTypeDef): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(postWriteArgs(type, 'update'))) {
    const value = req.params[name];
    if (NOT_CARRIED.includes(name) || value === undefined) continue;
    if (name === 'title' || name === 'content' || name === 'excerpt') {
      const text = rawText(value);
      // As the update reads them: `{ "raw": "" }` leaves a title as it is.
      if (text !== undefined && !(name === 'title' && typeof value === 'object' && text === '')) fields[name] = text;
    } else if (name === 'meta') {
      fields.meta = mergeMeta('post', type.slug, undefined, value);
    } else {
      fields[name] = value;
    }
  }
  return fields;
}

/** `date_gmt` as sent, which must be a time to come. */
function dateAhead(req: RestRequest, deps: Deps): string {
  const instant = parseRestDateGmt(String(req.params.date_gmt));
  if (!instant) throw new InvalidDate();
  if (instant.getTime() <= deps.clock().getTime()) throw invalidParams({ date_gmt: new DateNotAhead() });
  return formatRestDate(instant)!;
}

const itemPath = (type: PostTypeDef, item: number) => `/${type.rest_namespace}/${type.rest_base}/${item}`;

export function prepareScheduledChange(doc: ScheduledChangeDoc, req: RestRequest): Record<string, unknown> {
  const type = postTypesSupporting('posts').find((candidate) => candidate.slug === doc.itemType)!;
  const item = itemPath(type, doc.item);
  return {
    id: doc._id,
    parent: doc.item,
    type: doc.itemType,
    author: doc.author,
    date_gmt: doc.dateGmt,
    status: doc.state,
    fields: carriedFields(doc),
    created_gmt: formatRestDate(doc.created),
    modified_gmt: formatRestDate(doc.modified),
    applied_position: doc.appliedPosition ?? null,
    failure: doc.failure ?? null,
    _links: {
      self: [{ href: req.url(`${item}/scheduled-changes/${doc._id}`) }],
      collection: [{ href: req.url(`${item}/scheduled-changes`) }],
      up: [{ href: req.url(item), embeddable: true }],
      author: [{ href: req.url(`/cms/v2/users/${doc.author}`), embeddable: true }],
    },
  };
}

const etagOf = (doc: ScheduledChangeDoc) => etagHeader(String(doc.edits));

/** The item as it will read once the pending change is applied: the change admitted for its author, on the item now; nothing stored. */
async function previewOf(req: RestRequest, deps: Deps, type: PostTypeDef, item: PostDoc, change: ScheduledChangeDoc) {
  const writer = { user: { id: change.author, roles: (await rolesOfUser(deps.store.db, change.author)) ?? [] } };
  const { meta, ...admitted } = await admitScheduled(writer, deps, type, item, carriedFields(change));
  const next: PostDoc = { ...item, ...admitted, ...(meta !== undefined ? { meta: JSON.stringify(meta) } : {}) };
  return filterByContext(postTypeSchema(type), await prepareOne(next, req, deps, type), req.context);
}

const scheduledChanges = (deps: Deps) => scheduledChangesCollection(deps.store.db);

/** The update's write arguments a change carries: all but the item's id and dates. */
function changeWriteArgs(type: PostTypeDef) {
  const args = postWriteArgs(type, 'update');
  for (const name of NOT_CARRIED) delete args[name];
  return args;
}

/** The route's change of the route's item, read once. */
const routeChange = (req: RestRequest, deps: Deps, type: PostTypeDef) =>
  req.memo('scheduled-change', async () => {
    const item = await routeItem(req, deps, type);
    const doc = await scheduledChanges(deps).findOne({ _id: Number(req.params.sid), item: item._id });
    if (!doc) throw new ScheduledChangeInvalidId();
    return doc;
  });

/** Editing or cancelling: who may edit the item, and the change is theirs or they may edit others' items. */
const mayChange = (type: PostTypeDef) => {
  const mayEdit = mayEditRouteItem(type);
  return async (req: RestRequest, deps: Deps) => {
    await mayEdit(req, deps);
    const change = await routeChange(req, deps, type);
    if (change.author !== req.user.id && !can(req.user, type.caps.edit_others_posts)) throw new CannotEditScheduledChange(req);
    return true;
  };
};

/** The change as the caller decided on it: pending, and as `If-Match` names it. */
function pendingAsRead(req: RestRequest, change: ScheduledChangeDoc): void {
  if (change.state !== 'pending') throw new ScheduledChangeDone();
  if (!ifMatchPasses(ifMatchOf(req), String(change.edits))) throw new PreconditionFailed();
}

/** A conditional write matched nothing: applied meanwhile, or edited by another. */
async function lostRace(req: RestRequest, deps: Deps, change: ScheduledChangeDoc) {
  const now = await scheduledChanges(deps).findOne({ _id: change._id });
  if (!now) return new ScheduledChangeInvalidId();
  if (now.state !== 'pending') return new ScheduledChangeDone();
  return ifMatchOf(req) ? new PreconditionFailed() : new WriteConflict();
}

/** A page of the item's pending changes, soonest first. */
const listScheduledChanges = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const item = await routeItem(req, deps, type);
  const window = pageWindow(req.params);
  const pending = await pendingChanges(deps.store.db, item._id);
  const page = pending.slice(window.skip, window.skip + window.perPage);
  return pageOf(page.map((doc) => prepareScheduledChange(doc, req)), pending.length, window);
};

/** Schedules a change of the item, refused as the same update sent now would be; answered 201 with its `Location`. */
const createScheduledChange = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const item = await routeItem(req, deps, type);
  const dateGmt = dateAhead(req, deps);
  const fields = sentFields(req, type);
  // Refused as the same update sent now would be (400s, and 403 for what the caller may not do).
  await admitScheduled(req, deps, type, item, fields);
  const now = deps.clock();
  const doc: ScheduledChangeDoc = {
    _id: await deps.ids.next('content'),
    item: item._id,
    itemType: type.slug,
    author: req.user.id,
    dateGmt,
    fields: JSON.stringify(fields),
    basedOnSeq: item.version,
    state: 'pending',
    created: now,
    modified: now,
    edits: 1,
  };
  await scheduledChanges(deps).insertOne(doc);
  const location = req.url(`${itemPath(type, item._id)}/scheduled-changes/${doc._id}`);
  return new RestResponse(prepareScheduledChange(doc, req), 201, { Location: location, ...etagOf(doc) });
};

/** The route's change, or with `preview` the item as it will read once the change is applied. */
const getScheduledChange = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const change = await routeChange(req, deps, type);
  if (req.params.preview !== true) return new RestResponse(prepareScheduledChange(change, req), 200, etagOf(change));
  if (change.state !== 'pending') throw new ScheduledChangeDone();
  return previewOf(req, deps, type, await routeItem(req, deps, type), change);
};

/** Edits a pending change (its fields, its time, or both); it becomes the caller's. */
const updateScheduledChange = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const item = await routeItem(req, deps, type);
  const change = await routeChange(req, deps, type);
  pendingAsRead(req, change);
  const dateGmt = req.params.date_gmt !== undefined ? dateAhead(req, deps) : change.dateGmt;
  const sent = sentFields(req, type);
  const fields = Object.assign(carriedFields(change), sent);
  await admitScheduled(req, deps, type, item, fields);
  // Its fields edited, the change is decided on the item as it is now; only rescheduled, on what it was before.
  const basedOn = Object.keys(sent).length > 0 ? { basedOnSeq: item.version } : {};
  const set = { author: req.user.id, dateGmt, fields: JSON.stringify(fields), ...basedOn, modified: deps.clock(), edits: change.edits + 1 };
  const result = await scheduledChanges(deps).updateOne({ _id: change._id, state: 'pending', edits: change.edits }, { $set: set });
  if (result.matchedCount === 0) throw await lostRace(req, deps, change);
  const doc = { ...change, ...set };
  return new RestResponse(prepareScheduledChange(doc, req), 200, etagOf(doc));
};

/** Cancels a pending change. */
const deleteScheduledChange = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const change = await routeChange(req, deps, type);
  pendingAsRead(req, change);
  const result = await scheduledChanges(deps).deleteOne({ _id: change._id, state: 'pending', edits: change.edits });
  if (result.deletedCount === 0) throw await lostRace(req, deps, change);
  return { deleted: true, previous: prepareScheduledChange(change, req) };
};

/**
 * `/<rest_base>/<id>/scheduled-changes`: changes to an item, applied by the scheduler at their time
 * as updates by who scheduled them. A route table: each endpoint's handler is a named function
 * above, in the order the API reference lists them.
 */
export function scheduledChangeRoutes(type: PostTypeDef): RouteSpec<Deps>[] {
  const base = `/${type.rest_base}/(?P<id>[\\d]+)/scheduled-changes`;
  const schema = scheduledChangeSchema;
  const idArg = { id: { description: 'The ID of the item the change is for.', type: 'integer' } } as const;
  const sidArg = { sid: { description: 'Unique identifier for the scheduled change.', type: 'integer' } } as const;
  const dateArg = { description: 'When the change is applied, as GMT; a time to come.', type: 'string', format: 'date-time' } as const;
  const mayEdit = mayEditRouteItem(type);
  const mayEditChange = mayChange(type);

  return defineRoutes<Deps>(type.rest_namespace, [
    {
      path: base,
      schema,
      endpoints: [
        {
          methods: READABLE,
          args: { ...idArg, context: contextArg(schema), ...collectionArgs() },
          response: { body: 'items' },
          permission: mayEdit,
          handler: listScheduledChanges(type),
        },
        {
          methods: CREATABLE,
          changes: 'content',
          args: { ...idArg, ...changeWriteArgs(type), date_gmt: { ...dateArg, required: true } },
          saves: savesOf(type.rest_base),
          response: { status: 201 },
          permission: mayEdit,
          answerContext: 'edit',
          handler: createScheduledChange(type),
        },
      ],
    },
    {
      path: `${base}/(?P<sid>[\\d]+)`,
      schema,
      endpoints: [
        {
          methods: READABLE,
          args: {
            ...idArg,
            ...sidArg,
            context: contextArg(schema),
            preview: { description: 'Answer the item as it will read once the change is applied (nothing is stored).', type: 'boolean', default: false },
          },
          permission: mayEdit,
          handler: getScheduledChange(type),
        },
        {
          methods: EDITABLE,
          changes: 'content',
          args: { ...idArg, ...sidArg, ...changeWriteArgs(type), date_gmt: dateArg },
          saves: savesOf(type.rest_base),
          permission: mayEditChange,
          answerContext: 'edit',
          handler: updateScheduledChange(type),
        },
        {
          methods: DELETABLE,
          changes: 'content',
          args: { ...idArg, ...sidArg },
          response: { body: 'deleted' },
          permission: mayEditChange,
          answerContext: 'edit',
          handler: deleteScheduledChange(type),
        },
      ],
    },
  ]);
}

/** The types whose pending changes the caller may list: those whose others' items they may edit. */
const listableTypes = (req: RestRequest) => postTypesSupporting('posts').filter((type) => can(req.user, type.caps.edit_others_posts));

/** `GET /scheduled-changes`: every pending change, soonest first, between `after` and `before`, for editors. */
export const scheduledChangesListRoutes: RouteSpec<Deps>[] = defineRoutes<Deps>('cms/v2', [
  {
    path: '/scheduled-changes',
    schema: scheduledChangeSchema,
    endpoints: [
      {
        methods: READABLE,
        args: {
          context: contextArg(scheduledChangeSchema),
          ...collectionArgs(),
          after: { description: 'Limit response to changes applied after a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
          before: { description: 'Limit response to changes applied before a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
        },
        response: { body: 'items' },
        permission: (req) => listableTypes(req).length > 0,
        handler: async (req, deps) => {
          const bounds: { after?: string; before?: string } = {};
          for (const param of ['after', 'before'] as const) {
            if (req.params[param] === undefined) continue;
            const instant = parseRestDate(String(req.params[param]), await siteTimezone(deps));
            if (!instant) throw new InvalidDate();
            bounds[param] = formatRestDate(instant)!;
          }
          const types = listableTypes(req).map((type) => type.slug);
          const listed = (await pendingChanges(deps.store.db)).filter(
            (change) => types.includes(change.itemType) && !(bounds.after !== undefined && change.dateGmt <= bounds.after) && !(bounds.before !== undefined && change.dateGmt >= bounds.before),
          );
          const window = pageWindow(req.params);
          const docs = listed.slice(window.skip, window.skip + window.perPage);
          const total = listed.length;
          return pageOf(docs.map((doc) => prepareScheduledChange(doc, req)), total, window);
        },
      },
    ],
  },
]);
