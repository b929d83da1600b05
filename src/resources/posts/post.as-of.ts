import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { filterSaved } from '../../registry/saved-fields.js';
import { asOfAnswer, asOfListTag, HISTORY_ITEM_LINKS, pinLinks, requestedPosition, restorePosition } from '../../rest/as-of.js';
import { ifMatchOf } from '../../rest/conditional.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestResponse } from '../../rest/rest-response.js';
import { listAt, stateAt } from '../../store/history/as-of.js';
import { CannotReadPostRevisions, ForbiddenPostTypeContext, PostInvalidId } from '../post-errors.js';
import { postEtag, postHistory } from './post.history.js';
import { updatePost } from './post.commands.js';
import { admitRestored } from './post.input.js';
import { fieldsOf, postsCollection, type PostDoc, type PostFields } from './post.model.js';
import { canEditPost } from './post.permissions.js';
import { postListIndex } from './post.projection.js';
import { postListQuery, PostInvalidPage } from './post.queries.js';
import { prepareMany, prepareOne } from './post.serializer.js';



/** Whether the caller may read the item as of a point: as they may read its revisions (`edit_post`). */
export const canReadPast = (req: RestRequest, doc: PostDoc) => {
  if (!canEditPost(req.user, doc)) throw new CannotReadPostRevisions(req);
  return true;
};

/** Whether the caller may list items of the type as of a point: as they may list them in `edit` context. */
export const canListPast = (req: RestRequest, type: PostTypeDef) => {
  if (!can(req.user, type.caps.edit_posts)) throw new ForbiddenPostTypeContext(req);
  return true;
};

/** `GET /posts/<id>?as_of=...`: the item as it stood then, through the same serializer as a live read. */
export async function getPostAt(req: RestRequest, deps: Deps, type: PostTypeDef, current: PostDoc): Promise<RestResponse> {
  const position = (await requestedPosition(req, deps.store.db, deps.clock()))!;
  const doc = await stateAt(deps.store.db, postHistory, current._id, position, current);
  if (!doc || doc.type !== type.slug) throw new PostInvalidId();
  const data = pinLinks(await prepareOne(doc, req, deps, type), position, HISTORY_ITEM_LINKS);
  return asOfAnswer(new RestResponse(data), position, `${doc._id}@${position}:${req.context}`);
}

/** `GET /posts?as_of=...`: a page of the list as it stood then, with the list's filters, order and total. */
export async function listPostsAt(req: RestRequest, deps: Deps, type: PostTypeDef): Promise<RestResponse> {
  const position = (await requestedPosition(req, deps.store.db, deps.clock()))!;
  const { filter, sort, include, slugs } = await postListQuery(req, deps, type);
  const window = pageWindow(req.params);
  const { docs, total } = await listAt(deps.store.db, {
    type: postHistory,
    index: postListIndex,
    collection: postsCollection(deps.store.db),
    position,
    filter,
    sort,
    readable: (now) => now.type === type.slug && canEditPost(req.user, now as PostDoc),
    skip: window.skip,
    limit: window.perPage,
  });
  if (include) docs.sort((a, b) => include.indexOf(a._id) - include.indexOf(b._id));
  if (slugs) docs.sort((a, b) => slugs.indexOf(a.slug) - slugs.indexOf(b.slug));
  const items = (await prepareMany(docs, req, deps, type)).map((item) => pinLinks(item, position, HISTORY_ITEM_LINKS));
  const response = pageOf(items, total, window, PostInvalidPage);
  return asOfAnswer(response, position, asOfListTag(req, type.slug, position));
}

/**
 * `POST /posts/<id>/restore?as_of=...`: the item's fields return to what they were at that point,
 * by one `restored` command on the kernel's path, which records the position it restored. Its
 * kind, address and modification time stay the item's own; text fields pass the caller's save
 * filters, as an update's do. What was erased since stays erased (the state is the log's).
 */
export async function restorePostAt(req: RestRequest, deps: Deps, type: PostTypeDef, current: PostDoc): Promise<{ doc: PostDoc; response: RestResponse }> {
  const position = await restorePosition(req, deps.store.db, deps.clock());
  const then = await stateAt(deps.store.db, postHistory, current._id, position, current);
  if (!then || then.type !== type.slug) throw new PostInvalidId();
  const { type: _type, guid: _guid, modified: _modified, modifiedGmt: _modifiedGmt, ...fields } = fieldsOf(then);
  filterSaved(type.rest_base, fields as Record<string, unknown>, [req.user]);
  const admit = (now: PostDoc) => admitRestored(req, deps, type, now, fields as Partial<PostFields>);
  const doc = await updatePost(deps, current._id, admit, req.user.id, {
    ifMatch: ifMatchOf(req),
    type: 'restored',
    fromPosition: position,
    revisions: Boolean(type.supports.revisions),
    current,
  });
  return { doc, response: new RestResponse(await prepareOne(doc, req, deps, type), 200, postEtag(doc)) };
}
