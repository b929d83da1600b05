import { lockKey } from '../locks/index.js';
import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { TAXONOMIES } from '../../registry/taxonomies.js';
import { ifMatchOf } from '../../rest/conditional.js';
import { defineRestError, ForbiddenContext } from '../../rest/errors.js';
import { contextArg } from '../../rest/item-schema.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestResponse } from '../../rest/rest-response.js';
import { BATCH_V1, CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE, type RouteSpec } from '../../rest/route.js';
import { CannotCreatePost, CannotDeletePost, CannotEditPost, ForbiddenPostTypeContext, PostExists } from '../post-errors.js';
import { readSetting } from '../settings/index.js';
import { createPost, deletePost, siteNow, trashPost, updatePost } from './post.commands.js';
import { findPostOfType, postEtag } from './post.history.js';
import { changesFromRequest } from './post.input.js';
import { postsCollection, type PostDoc, type PostFields } from './post.model.js';
import { postListIndex } from './post.projection.js';
import { type Filter, type Sort } from 'mongodb';
import { canDeletePost, canEditPost, canReadPost } from './post.permissions.js';
import { postListQuery, PostInvalidPage } from './post.queries.js';
import { postListArgs, postTypeSchema, postWriteArgs } from './post.schema.js';
import { permalink, prepareMany, prepareOne } from './post.serializer.js';
import { savesOf } from '../../registry/saved-fields.js';
import { AS_OF_ARGS, asksAsOf } from '../../rest/as-of.js';
import { canListPast, canReadPast, getPostAt, listPostsAt, restorePostAt } from './post.as-of.js';

const AlreadyTrashed = defineRestError('rest_already_trashed', 'The post has already been deleted.', 410);
const IncorrectPassword = defineRestError('rest_post_incorrect_password', 'Incorrect post password.', 403);

/** The route's item as it was when the request arrived, read once for permission, handler and `Allow`. */
export const routeItem = (req: RestRequest, deps: Deps, type: PostTypeDef) => req.memo('item', () => findPostOfType(deps, type, req.params.id));

/** The update's permission: the caller may edit the route's item (`edit_post`). Routes that write the item in other ways ask the same. */
export const mayEditRouteItem = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  if (!canEditPost(req.user, await routeItem(req, deps, type))) throw new CannotEditPost(req);
  return true;
};

/** A new item's fields: the request's, over WordPress's defaults for the type and the site. */
async function newPostFields(req: RestRequest, deps: Deps, type: PostTypeDef, id: number): Promise<PostFields> {
  const now = await siteNow(deps);
  const changes = await changesFromRequest(req, deps, type, null);
  const setting = async (name: 'default_comment_status' | 'default_ping_status' | 'default_category') => readSetting(deps.store.db, name);
  const terms: Record<string, number[]> = {};
  for (const taxonomy of TAXONOMIES.filter((candidate) => candidate.types.includes(type.slug))) terms[taxonomy.slug] = [];
  if ('category' in terms) terms.category = [Number((await setting('default_category')) ?? 1)];
  const fields: PostFields = {
    type: type.slug,
    status: 'draft',
    trashedFrom: null,
    title: '',
    content: '',
    excerpt: '',
    slug: '',
    author: req.user.id,
    date: now.local,
    dateGmt: null,
    modified: now.local,
    modifiedGmt: now.gmt,
    password: '',
    featured_media: 0,
    comment_status: type.supports.comments && type.slug === 'post' ? String((await setting('default_comment_status')) ?? 'open') : 'closed',
    ping_status: type.supports.comments && type.slug === 'post' ? String((await setting('default_ping_status')) ?? 'open') : 'closed',
    format: type.supports['post-formats'] ? 'standard' : '',
    sticky: false,
    template: '',
    meta: {},
    terms,
    parent: 0,
    menu_order: 0,
    guid: permalink(deps.siteUrl, { _id: id, type: type.slug }),
    ...changes,
  };
  fields.terms = { ...terms, ...(changes.terms ?? {}) };
  // Published and scheduled items have a fixed date; drafts float until then (`post_date_gmt` zero).
  if (['publish', 'future', 'private'].includes(fields.status) && fields.dateGmt === null) {
    fields.date = now.local;
    fields.dateGmt = now.gmt;
  }
  return fields;
}

/** One page of a list and its total (`KeptIndex.list`). */
async function listPosts(deps: Deps, filter: Filter<PostDoc>, sort: Sort, window: { skip: number; perPage: number }): Promise<{ total: number; docs: PostDoc[] }> {
  return postListIndex.list(deps.store.db, postsCollection(deps.store.db), filter, sort, window, 'a search of titles and content, or the title order, which the list index does not keep');
}

/** Listing: anyone, but `edit` context needs `edit_posts`, and a past list its own check. */
const mayListItems = (type: PostTypeDef) => (req: RestRequest) => {
  if (asksAsOf(req)) return canListPast(req, type);
  if (req.context === 'edit' && !can(req.user, type.caps.edit_posts)) throw new ForbiddenPostTypeContext(req);
  return true;
};

/** A page of the type's items, or of the items as they were at a past time. */
const listItems = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  if (asksAsOf(req)) return listPostsAt(req, deps, type);
  const { filter, sort, include, slugs } = await postListQuery(req, deps, type);
  const window = pageWindow(req.params);
  const { total, docs } = await listPosts(deps, filter, sort, window);
  if (include) docs.sort((a, b) => include.indexOf(a._id) - include.indexOf(b._id));
  if (slugs) docs.sort((a, b) => slugs.indexOf(a.slug) - slugs.indexOf(b.slug));
  return pageOf(await prepareMany(docs, req, deps, type), total, window, PostInvalidPage);
};

/** Creating: the caller may create items of the type (`create_posts`). */
const mayCreateItem = (type: PostTypeDef) => (req: RestRequest) => {
  if (!can(req.user, type.caps.create_posts)) throw new CannotCreatePost(req);
  return true;
};

/** A new item of the type, answered 201 with its `Location`. */
const createItem = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  if (req.params.id !== undefined) throw new PostExists();
  const id = await deps.ids.next('content');
  const doc = await createPost(deps, id, await newPostFields(req, deps, type, id), req.user.id);
  return new RestResponse(await prepareOne(doc, req, deps, type), 201, { Location: req.url(`/${type.rest_namespace}/${type.rest_base}/${id}`), ...postEtag(doc) });
};

/** Reading one item: who may read it, in `edit` context who may edit it, and with its password when it has one. */
const mayReadItem = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const doc = await routeItem(req, deps, type);
  if (asksAsOf(req)) return canReadPast(req, doc);
  if (req.context === 'edit' && !canEditPost(req.user, doc)) throw new ForbiddenContext(req, {});
  if (!canReadPost(req.user, doc)) return false;
  if (req.params.password !== undefined && doc.password !== '' && req.params.password !== doc.password && !canEditPost(req.user, doc)) {
    throw new IncorrectPassword();
  }
  return true;
};

/** The route's item, or the item as it was at a past time. */
const getItem = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  if (asksAsOf(req)) return getPostAt(req, deps, type, await routeItem(req, deps, type));
  // The item as the permission check read it.
  const doc = await routeItem(req, deps, type);
  return new RestResponse(await prepareOne(doc, req, deps, type), 200, postEtag(doc));
};

/** Updates the route's item (untrashing it when the update moves it out of the trash). */
const updateItem = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const current = await routeItem(req, deps, type);
  const changes = await changesFromRequest(req, deps, type, current);
  const untrash = current.status === 'trash' && changes.status !== undefined && changes.status !== 'trash';
  const doc = await updatePost(deps, current._id, changes, req.user.id, {
    ifMatch: ifMatchOf(req),
    type: untrash ? 'untrashed' : 'updated',
    revisions: Boolean(type.supports.revisions),
    current,
    lock: { key: lockKey(type.slug, current._id), id: current._id },
  });
  return new RestResponse(await prepareOne(doc, req, deps, type), 200, postEtag(doc));
};

/** Deleting: the caller may delete the route's item (`delete_post`). */
const mayDeleteItem = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const doc = await routeItem(req, deps, type);
  if (!canDeletePost(req.user, doc)) throw new CannotDeletePost(req);
  return true;
};

/** Moves the route's item to the trash, or deletes it for good with `force`. */
const trashOrDeleteItem = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const current = await routeItem(req, deps, type);
  const ifMatch = ifMatchOf(req);
  if (req.params.force === true) {
    const previous = await prepareOne(current, req, deps, type);
    delete previous._links;
    await deletePost(deps, current._id, req.user.id, { ifMatch, current });
    return { deleted: true, previous };
  }
  if (current.status === 'trash') throw new AlreadyTrashed();
  const doc = await trashPost(deps, current._id, req.user.id, { ifMatch, revisions: Boolean(type.supports.revisions), current });
  return new RestResponse(await prepareOne(doc, req, deps, type), 200, postEtag(doc));
};

/** Restores the route's item as it was at a past time. */
const restoreItem = (type: PostTypeDef) => async (req: RestRequest, deps: Deps) => {
  const current = await routeItem(req, deps, type);
  return (await restorePostAt(req, deps, type, current)).response;
};

/**
 * The routes of one post type (`/posts`, `/pages`), generated from the registry as WordPress does.
 * A route table: each endpoint's permission and handler is a named function above.
 */
export function postTypeRoutes(type: PostTypeDef): RouteSpec<Deps>[] {
  const schema = postTypeSchema(type);
  const base = `/${type.rest_base}`;
  const idArg = { id: { description: 'Unique identifier for the post.', type: 'integer' } } as const;

  const mayEdit = mayEditRouteItem(type);

  return defineRoutes<Deps>(type.rest_namespace, [
    {
      path: base,
      schema,
      allowBatch: BATCH_V1,
      endpoints: [
        {
          methods: READABLE,
          args: { ...postListArgs(type), ...AS_OF_ARGS },
          response: { body: 'items' },
          permission: mayListItems(type),
          handler: listItems(type),
        },
        {
          methods: CREATABLE,
          changes: 'content',
          args: postWriteArgs(type, 'create'),
          saves: savesOf(type.rest_base),
          response: { status: 201 },
          permission: mayCreateItem(type),
          answerContext: 'edit',
          handler: createItem(type),
        },
      ],
    },
    {
      path: `${base}/(?P<id>[\\d]+)`,
      schema,
      allowBatch: BATCH_V1,
      endpoints: [
        {
          methods: READABLE,
          args: { ...idArg, context: contextArg(schema), password: { description: 'The password for the post if it is password protected.', type: 'string' }, ...AS_OF_ARGS },
          permission: mayReadItem(type),
          handler: getItem(type),
        },
        {
          methods: EDITABLE,
          changes: 'content',
          args: { ...idArg, ...postWriteArgs(type, 'update') },
          saves: savesOf(type.rest_base),
          permission: mayEdit,
          answerContext: 'edit',
          handler: updateItem(type),
        },
        {
          methods: DELETABLE,
          changes: 'content',
          args: { ...idArg, force: { type: 'boolean', default: false, description: 'Whether to bypass Trash and force deletion.' } },
          response: { body: 'trashed-or-deleted' },
          permission: mayDeleteItem(type),
          answerContext: 'edit',
          handler: trashOrDeleteItem(type),
        },
      ],
    },
    {
      path: `${base}/(?P<id>[\\d]+)/restore`,
      schema,
      endpoints: [
        {
          methods: CREATABLE,
          changes: 'content',
          args: { ...idArg, ...AS_OF_ARGS },
          permission: mayEdit,
          answerContext: 'edit',
          handler: restoreItem(type),
        },
      ],
    },
  ]);
}
