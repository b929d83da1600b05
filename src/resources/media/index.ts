import { type Db } from 'mongodb';
import { type ResourceManifest } from '../manifest.js';
import { postExists, postsCollection } from '../posts/index.js';
import { sweepInterruptedUploads } from './media.files.js';
import { mediaIndexes } from './media.model.js';
import { mediaRoutes } from './media.routes.js';
import { uploadUrl } from './media.serializer.js';
import { uploadsRouter } from './media.serve.js';

/** The media library: `/media` routes, files in GridFS served under `/uploads/`. */
export const mediaResource: ResourceManifest = {
  routes: mediaRoutes,
  indexes: mediaIndexes,
  siteRoutes: uploadsRouter,
  hooks: { answers: { isAttachment: (db, id) => postExists(db, id, 'attachment') } },
  seed: async (deps) => {
    const swept = await sweepInterruptedUploads(deps.store.db, deps.clock());
    if (swept > 0) deps.logger.warn({ swept }, 'files of uploads a crash interrupted were removed');
  },
};

/** The URL of a media item's file (for the site icon), or '' when `id` names none. */
export async function mediaFileUrl(db: Db, siteUrl: string, id: number): Promise<string> {
  if (!id) return '';
  const doc = await postsCollection(db).findOne<{ file?: string }>({ _id: id, type: 'attachment' }, { projection: { file: 1 } });
  return doc?.file ? uploadUrl(siteUrl, doc.file) : '';
}
