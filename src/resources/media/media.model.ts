import { GridFSBucket, type Db } from 'mongodb';
import { type IndexSpec } from '../../store/database/mongo.js';
import { type PostDoc } from '../posts/index.js';

/** The GridFS bucket of media files: `uploads.files` and `uploads.chunks`. */
export const UPLOADS_BUCKET = 'uploads';

export const uploadsBucket = (db: Db) => new GridFSBucket(db, { bucketName: UPLOADS_BUCKET });

/** What GridFS keeps beside each stored file of an item (the original or one of its sizes). */
export interface StoredFileMeta {
  attachment: number;
  /** `full` for the uploaded file, else the image size it was made for. */
  size: string;
  contentType: string;
  /** `YYYY/MM/<name>` without extension: an upload's name is unique by it. */
  stem: string;
}

/** One generated image size, as `media_details.sizes` shows it (`source_url` is added when served). */
export interface ImageSize {
  file: string;
  width: number;
  height: number;
  filesize: number;
  mime_type: string;
}

/**
 * A media item: a post of type `attachment` in `posts`, as WordPress keeps it in `wp_posts`
 * (`content` is the description, `excerpt` the caption, `parent` the post it is attached to),
 * plus what its file is.
 */
export interface AttachmentDoc extends PostDoc {
  mime_type: string;
  /** The original's path under the uploads folder: `YYYY/MM/<name>`. */
  file: string;
  alt_text: string;
  /** `media_details` as stored, without `source_url`s (they follow the site URL). */
  media_details: Record<string, unknown>;
  /** Names of the sizes the image should have; all are made at upload, so none is missing unless a write failed. */
  missing_sizes: string[];
}

export const mediaIndexes: IndexSpec[] = [
  // GridFS's own indexes (the driver creates them on first upload; declared so start-up makes them too).
  { collection: 'uploads.files', key: { filename: 1, uploadDate: 1 }, name: 'filename_1_uploadDate_1' },
  { collection: 'uploads.chunks', key: { files_id: 1, n: 1 }, name: 'files_id_1_n_1', unique: true },
  // Two uploads can never store one name: the later one's write is refused.
  { collection: 'uploads.files', key: { filename: 1 }, name: 'filename_unique', unique: true },
  { collection: 'uploads.files', key: { 'metadata.attachment': 1 }, name: 'metadata_attachment' },
  { collection: 'upload_names', key: { attachment: 1 }, name: 'attachment' },
  { collection: 'posts', key: { featured_media: 1 }, name: 'featured_media' },
];
