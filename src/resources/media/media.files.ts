import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Db, type ObjectId } from 'mongodb';
import { uploadsBucket, type StoredFileMeta } from './media.model.js';
import { sniffedKind } from './media.types.js';
import { isDuplicateKey } from '../../store/database/mongo.js';
import { postExists } from '../posts/index.js';

/** How many bytes of a file are read before its type is decided (what `file-type` looks at). */
const SNIFF_BYTES = 4100;

/** Why a streamed file was refused before it was kept; the upload route answers each in WordPress's terms. */
export class FileRefused extends Error {
  constructor(readonly reason: 'too-big' | 'empty' | 'type' | 'hash') {
    super(reason);
  }
}

export interface StoredFile {
  id: ObjectId;
  filename: string;
  size: number;
  /** What the first bytes are, after `sniffedKind`. */
  sniffed: string | undefined;
  md5: string;
}

/**
 * Counts the bytes (refusing past `limit`), holds back the first ones until `decide` has judged
 * what they are, and hashes everything: one pass, nothing kept beyond the sniffed head.
 */
class Gate extends Transform {
  size = 0;
  sniffed: string | undefined;
  private head: Buffer[] = [];
  private headSize = 0;
  private decided = false;
  private readonly hash = createHash('md5');

  constructor(private readonly limit: number, private readonly decide: (kind: string | undefined) => void) {
    super();
  }

  get md5(): string {
    return this.hash.digest('hex');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limit) return done(new FileRefused('too-big'));
    this.hash.update(chunk);
    if (this.decided) return done(null, chunk);
    this.head.push(chunk);
    this.headSize += chunk.length;
    if (this.headSize < SNIFF_BYTES) return done();
    this.release().then(() => done(), done);
  }

  override _flush(done: TransformCallback): void {
    if (this.size === 0) return done(new FileRefused('empty'));
    if (this.decided) return done();
    this.release().then(() => done(), done);
  }

  private async release(): Promise<void> {
    const head = Buffer.concat(this.head);
    this.head = [];
    // Loaded at the first upload, as sharp is: a process that is never sent a file does not hold it.
    const { fileTypeFromBuffer } = await import('file-type');
    this.sniffed = sniffedKind((await fileTypeFromBuffer(head))?.mime, head.subarray(0, SNIFF_BYTES));
    this.decide(this.sniffed);
    this.decided = true;
    this.push(head);
  }
}

/**
 * Streams `source` into GridFS as `filename`, as it arrives. A file that is too big, empty, of a
 * refused kind (`decide` throws), or that fails to store is aborted: GridFS drops its chunks
 * and no file document is written.
 */
export async function storeStream(
  db: Db,
  source: Readable,
  filename: string,
  metadata: StoredFileMeta,
  options: { limit: number; decide: (kind: string | undefined) => void },
): Promise<StoredFile> {
  const bucket = uploadsBucket(db);
  const gate = new Gate(options.limit, options.decide);
  const upload = bucket.openUploadStream(filename, { metadata, chunkSizeBytes: 255 * 1024 });
  // The request is not the pipeline's to destroy: the refusal must still be answered on its socket.
  let complete = false;
  const cut = (error?: Error) => {
    if (!complete) gate.destroy(error ?? new Error('upload cut short by the client'));
  };
  source.once('end', () => (complete = true));
  source.once('error', cut);
  source.once('close', () => cut());
  source.pipe(gate);
  try {
    await pipeline(gate, upload);
  } catch (error) {
    source.unpipe(gate);
    // What the client still sends is read and dropped; the answer closes the connection.
    source.resume();
    await upload.abort().catch(() => undefined);
    await removeChunks(db, upload.id);
    throw error;
  }
  return { id: upload.id, filename, size: gate.size, sniffed: gate.sniffed, md5: gate.md5 };
}

/** Stores a file made here (an image size) whole. */
export async function storeBuffer(db: Db, data: Buffer, filename: string, metadata: StoredFileMeta): Promise<ObjectId> {
  const upload = uploadsBucket(db).openUploadStream(filename, { metadata });
  try {
    await new Promise<void>((resolve, reject) => {
      upload.once('error', reject);
      upload.once('finish', resolve);
      upload.end(data);
    });
  } catch (error) {
    await upload.abort().catch(() => undefined);
    await removeChunks(db, upload.id);
    throw error;
  }
  return upload.id;
}

/** Reads a stored file whole (an image, to make its sizes: sharp decodes it in memory anyway). */
export async function readWhole(db: Db, id: ObjectId): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of uploadsBucket(db).openDownloadStream(id)) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

async function removeChunks(db: Db, id: ObjectId): Promise<void> {
  await db.collection(`uploads.chunks`).deleteMany({ files_id: id });
}

/** Removes stored files and their chunks; a file already gone is no error. */
export async function removeFiles(db: Db, ids: readonly ObjectId[]): Promise<void> {
  if (!ids.length) return;
  await db.collection('uploads.files').deleteMany({ _id: { $in: [...ids] } });
  await db.collection('uploads.chunks').deleteMany({ files_id: { $in: [...ids] } });
}

/** Every stored file of an item (the original and its sizes). */
export async function filesOf(db: Db, attachment: number): Promise<ObjectId[]> {
  const docs = await db.collection('uploads.files').find({ 'metadata.attachment': attachment }, { projection: { _id: 1 } }).toArray();
  return docs.map((doc) => doc._id as ObjectId);
}

/**
 * Claims the name `stem` (`YYYY/MM/<name>` without extension) for an item, before anything is
 * stored under it: the unique `_id` decides between uploads of one name at the same moment.
 */
export async function claimName(db: Db, stem: string, attachment: number): Promise<boolean> {
  try {
    await db.collection<{ _id: string; attachment: number }>('upload_names').insertOne({ _id: stem, attachment });
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/** Frees a name claimed by an upload that was refused, or by an item deleted with its files. */
export async function releaseName(db: Db, stem: string): Promise<void> {
  await db.collection<{ _id: string }>('upload_names').deleteOne({ _id: stem });
}

/** An upload under way: its item's id, and when it began. */
interface PendingUpload {
  _id: number;
  at: Date;
}

const pendingUploads = (db: Db) => db.collection<PendingUpload>('pending_uploads');

/**
 * An upload is journaled before anything of it is stored and forgotten once its item is written
 * or everything it stored is removed, so that what a crash in between leaves (files, a claimed
 * name) is found and removed at the next start.
 */
export async function beginUpload(db: Db, attachment: number, at: Date): Promise<void> {
  await pendingUploads(db).insertOne({ _id: attachment, at });
}

export async function endUpload(db: Db, attachment: number): Promise<void> {
  await pendingUploads(db).deleteOne({ _id: attachment });
}

/** An upload still under way after this long was interrupted (the largest upload takes well under a minute). */
const INTERRUPTED_AFTER_MS = 60 * 60 * 1000;

/**
 * At start-up: removes the files and names of uploads a crash interrupted before their item was
 * written; an upload whose item was written (the crash came after) is only forgotten.
 */
export async function sweepInterruptedUploads(db: Db, now: Date): Promise<number> {
  let swept = 0;
  for (const pending of await pendingUploads(db).find({ at: { $lt: new Date(now.getTime() - INTERRUPTED_AFTER_MS) } }).toArray()) {
    if (!(await postExists(db, pending._id))) {
      await removeFiles(db, await filesOf(db, pending._id));
      await db.collection('upload_names').deleteMany({ attachment: pending._id });
      swept++;
    }
    await endUpload(db, pending._id);
  }
  return swept;
}
