import { findPostStatus } from '../../registry/post-statuses.js';
import { type PostTypeDef } from '../../registry/post-types.js';
import { type ChangeSource } from '../manifest.js';
import { filterByContext } from '../../rest/item-schema.js';
import { postHistory, postTypeSchema, prepareMany } from '../posts/index.js';
import { REVISIONED_FIELDS, type PostDoc, type RevisionedField } from '../posts/post.model.js';
import { canEditPost, canReadPost } from '../posts/post.permissions.js';

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
    diffFields: REVISIONED_FIELDS,
    fieldText: (doc, field) => doc[field as RevisionedField] ?? '',
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
