import { findPostStatus } from '../../registry/post-statuses.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { findTaxonomy } from '../../registry/taxonomies.js';
import { integerItemRoute } from '../../rest/item-route.js';
import { filterByContext } from '../../rest/item-schema.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type HistorySubject } from '../history/index.js';
import { type ChangeSource } from '../manifest.js';
import { findPostOfType, postHistory } from './post.history.js';
import { REVISIONED_FIELDS, type PostDoc, type RevisionedField } from './post.model.js';
import { canEditPost, canReadPost } from './post.permissions.js';
import { postTypeSchema } from './post.schema.js';
import { prepareMany } from './post.serializer.js';

/** A post's stored `terms` are, on the wire, the REST bases of the taxonomies it holds (`categories`, `tags`). */
export function postWireNames(field: string, value: unknown): readonly string[] | undefined {
  if (field !== 'terms' || !value || typeof value !== 'object') return undefined;
  return Object.keys(value).map((taxonomy) => findTaxonomy(taxonomy)?.rest_base ?? taxonomy);
}

/** `/history` of one post type of the posts controller: for those who may edit the item. */
export function postHistorySubject(postType: PostTypeDef): HistorySubject<PostDoc> {
  return {
    route: integerItemRoute(postType.rest_namespace, postType.rest_base),
    find: (deps, id) => findPostOfType(deps, postType, Number.isSafeInteger(Number(id)) ? Number(id) : 0),
    mayRead: (req: RestRequest, item) => canEditPost(req.user, item),
    wireNames: postWireNames,
  };
}

/**
 * The changes of posts-controller items (posts, pages) as the change feed shows them: their
 * history is for those who may edit them, as `/history` is; a published item without a password
 * is public, content included.
 */
export function postChangeSource(types: readonly PostTypeDef[]): ChangeSource<PostDoc> {
  const bySlug = new Map(types.map((type) => [type.slug, type]));
  return {
    itemTypes: types.map((type) => type.slug),
    history: postHistory,
    mayReadHistory: canEditPost,
    mayRead: canReadPost,
    isPublic: (doc) => findPostStatus(doc.status)?.public === true && !doc.password,
    longFields: [...REVISIONED_FIELDS, 'meta'],
    diffFields: REVISIONED_FIELDS,
    fieldText: (doc, field) => doc[field as RevisionedField] ?? '',
    wireNames: postWireNames,
    async prepare(docs, req, deps) {
      const prepared = new Map<PostDoc, Record<string, unknown>>();
      for (const [slug, type] of bySlug) {
        const ofType = docs.filter((doc) => doc.type === slug);
        if (!ofType.length) continue;
        const answers = filterByContext(postTypeSchema(type), await prepareMany(ofType, req, deps, type), 'view') as Record<string, unknown>[];
        ofType.forEach((doc, index) => prepared.set(doc, answers[index]));
      }
      return docs.map((doc) => prepared.get(doc)!);
    },
  };
}
