import { type PostTypeDef } from '../../registry/post-types.js';
import { filterSaved } from '../../registry/saved-fields.js';
import { ifMatchOf } from '../../rest/conditional.js';
import { integerItemRoute } from '../../rest/item-route.js';
import { RestResponse } from '../../rest/rest-response.js';
import { type AutosavingType } from '../autosaves/index.js';
import { lockKey } from '../locks/index.js';
import { restoringWriters, revisionRecord, type RevisionedType, type RevisionRecord } from '../revisions/index.js';
import { autosavePost, deleteRevision, restoreRevision } from './post.commands.js';
import { findPost, postEtag } from './post.history.js';
import { admitRestored, changesFromRequest } from './post.input.js';
import { REVISIONED_FIELDS, type PostDoc, type RevisionDoc, type RevisionedField } from './post.model.js';
import { canDeletePost, canEditPost } from './post.permissions.js';
import { postTypeSchema, postWriteArgs } from './post.schema.js';
import { permalink, prepareOne } from './post.serializer.js';

/** An item as its own autosave (the author's draft saved in place): its id, parent and dates. */
export function itemAsRevisionRecord(doc: PostDoc): RevisionRecord {
  return {
    id: doc._id,
    parent: doc.parent ?? 0,
    author: doc.author,
    date: doc.dateGmt === null ? null : doc.date,
    dateGmt: doc.dateGmt,
    modified: doc.modified,
    modifiedGmt: doc.modifiedGmt,
    slug: doc.slug,
    guid: doc.guid,
    title: doc.title,
    content: doc.content,
    excerpt: doc.excerpt,
  };
}

/** Posts and pages as a revisioned type: the items of one post type of the posts controller. */
export function postRevisions(type: PostTypeDef): RevisionedType<PostDoc> {
  return {
    postType: type,
    route: integerItemRoute(type.rest_namespace, type.rest_base),
    ...(type.viewable ? { permalink: (siteUrl: string, item: PostDoc) => permalink(siteUrl, { _id: item._id, type: type.slug }) } : {}),
    itemSchema: postTypeSchema(type),
    findItem: (deps, id) => findPost(deps, type, id),
    canEdit: canEditPost,
    canDelete: canDeletePost,
    async restore(deps, item, revision, req) {
      const fields: Record<string, unknown> = { title: revision.title, content: revision.content, excerpt: revision.excerpt };
      filterSaved(type.rest_base, fields, await restoringWriters(deps, req, revision));
      const restored = fields as Pick<RevisionDoc, RevisionedField>;
      const admit = (now: PostDoc) => admitRestored(req, deps, type, now, restored);
      const doc = await restoreRevision(deps, item._id, revision._id, admit, req.user.id, { ifMatch: ifMatchOf(req), revisions: Boolean(type.supports.revisions), current: item });
      return new RestResponse(await prepareOne(doc, req, deps, type), 200, postEtag(doc));
    },
    deleteRevision: (deps, item, revision, actor) => deleteRevision(deps, item, revision, actor),
    diffFields: REVISIONED_FIELDS,
    fieldText: (revision, field) => revision[field as RevisionedField],
  };
}

/** Posts and pages: WordPress's autosave through the posts controller. */
export function postAutosaves(type: PostTypeDef): AutosavingType<PostDoc> {
  return {
    ...postRevisions(type),
    updateArgs: postWriteArgs(type, 'update'),
    async autosave(deps, item, req) {
      const changes = await changesFromRequest(req, deps, type, item);
      const result = await autosavePost(deps, item._id, changes, req.user.id, { current: item, lock: { key: lockKey(type.slug, item._id), id: item._id } });
      if (!result.inPlace) return { record: revisionRecord(result.autosave, deps.siteUrl), inPlace: false };
      return { record: itemAsRevisionRecord(result.doc), inPlace: true };
    },
  };
}
