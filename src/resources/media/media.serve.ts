import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response, type Router } from 'express';
import { type ObjectId } from 'mongodb';
import { type Deps } from '../../deps.js';
import { ifNoneMatchHits } from '../../rest/conditional.js';
import { readWhole } from './media.files.js';
import { uploadsBucket, type StoredFileMeta } from './media.model.js';

interface StoredFileDoc {
  _id: ObjectId;
  length: number;
  uploadDate: Date;
  metadata?: StoredFileMeta;
}

// A stored file never changes (a new upload gets a new name), so clients may keep it for a year.
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * `{site_url}/uploads/YYYY/MM/<name>`: the files of the media library, read from GridFS (so every
 * service process serves every file), streamed, with validators, conditional GETs and one
 * byte range.
 */
export function uploadsRouter(deps: Deps): Router {
  const router = express.Router();
  const small = new SmallFiles(SMALL_FILES_BYTES);
  router.get('/uploads/:year/:month/:name', async (req: Request, res: Response, next) => {
    const { year, month, name } = req.params as Record<string, string>;
    if (!/^\d{4}$/.test(year) || !/^\d{2}$/.test(month) || name.includes('/') || name.startsWith('.')) return next();
    const files = deps.store.db.collection<StoredFileDoc>('uploads.files');
    const file = await files.findOne({ filename: `${year}/${month}/${name}` }, { projection: { _id: 1, length: 1, uploadDate: 1, metadata: 1 } });
    if (!file) return next();
    await sendFile(deps, req, res, file, small);
  });
  return router;
}

/** Files of at most this size (one GridFS chunk: thumbnails, icons) are kept in memory once read. */
const SMALL_FILE_BYTES = 255 * 1024;
const SMALL_FILES_BYTES = 32 * 1024 * 1024;

/**
 * The bytes of small files by GridFS id, least recently used dropped first. A stored file never
 * changes (a new upload is a new id), so what is kept is never stale; the name is still looked
 * up on every request, so a deleted file is not served.
 */
class SmallFiles {
  private readonly files = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly capacity: number) {}

  async read(deps: Deps, id: ObjectId): Promise<Buffer> {
    const key = id.toHexString();
    const kept = this.files.get(key);
    if (kept) {
      this.files.delete(key);
      this.files.set(key, kept);
      return kept;
    }
    const data = await readWhole(deps.store.db, id);
    this.files.set(key, data);
    this.bytes += data.length;
    for (const [oldest, buffer] of this.files) {
      if (this.bytes <= this.capacity) break;
      this.files.delete(oldest);
      this.bytes -= buffer.length;
    }
    return data;
  }
}

async function sendFile(deps: Deps, req: Request, res: Response, file: StoredFileDoc, small: SmallFiles): Promise<void> {
  const etag = `"${file._id.toHexString()}"`;
  const lastModified = new Date(Math.floor(file.uploadDate.getTime() / 1000) * 1000);
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', lastModified.toUTCString());
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (notModified(req, etag, lastModified)) {
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Type', file.metadata?.contentType ?? 'application/octet-stream');
  let start = 0;
  let end = file.length - 1;
  let status = 200;
  const ifRange = req.get('If-Range');
  const rangeApplies = req.get('Range') !== undefined && (ifRange === undefined || ifRange === etag || ifRange === lastModified.toUTCString());
  const ranges = rangeApplies ? req.range(file.length, { combine: true }) : undefined;
  if (ranges === -1 || (Array.isArray(ranges) && file.length === 0)) {
    res.status(416).setHeader('Content-Range', `bytes */${file.length}`);
    res.end();
    return;
  }
  // A malformed header (-2) is ignored, as RFC 9110 allows; several ranges get the whole file.
  if (Array.isArray(ranges) && ranges.length === 1) {
    ({ start, end } = ranges[0]);
    status = 206;
    res.setHeader('Content-Range', `bytes ${start}-${end}/${file.length}`);
  }
  const length = file.length === 0 ? 0 : end - start + 1;
  res.status(status).setHeader('Content-Length', String(length));
  if (req.method === 'HEAD' || length === 0) {
    res.end();
    return;
  }
  const download = file.length <= SMALL_FILE_BYTES
    ? Readable.from([(await small.read(deps, file._id)).subarray(start, end + 1)])
    : uploadsBucket(deps.store.db).openDownloadStream(file._id, { start, end: end + 1 });
  try {
    await pipeline(download, res);
  } catch (error) {
    // The status is sent: a file that fails half-way can only be cut short.
    if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') req.log?.warn({ err: error }, 'media file not sent whole');
    res.destroy();
  }
}

/** RFC 9110's order: `If-None-Match` decides when present, else `If-Modified-Since`. */
function notModified(req: Request, etag: string, lastModified: Date): boolean {
  const ifNoneMatch = req.get('If-None-Match');
  if (ifNoneMatch !== undefined) return ifNoneMatchHits(ifNoneMatch, etag);
  const since = req.get('If-Modified-Since');
  if (since === undefined) return false;
  const time = Date.parse(since);
  return Number.isFinite(time) && lastModified.getTime() <= time;
}
