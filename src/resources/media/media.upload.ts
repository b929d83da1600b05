import { type IncomingHttpHeaders } from 'node:http';
import { type Readable } from 'node:stream';
import busboy from 'busboy';
import { parse as parseDisposition } from 'content-disposition';
import { type Db, type ObjectId } from 'mongodb';
import { RestError } from '../../rest/errors.js';
import { claimName, FileRefused, releaseName, removeFiles, storeStream, type StoredFile } from './media.files.js';
import {
  EMPTY_FILE,
  NOT_ALLOWED_TYPE,
  NOT_PERMITTED,
  SideloadError,
  UploadHashMismatch,
  UploadInvalidDisposition,
  UploadNoContentType,
  UploadNoData,
  UploadNoDisposition,
  UploadTooBig,
  UploadUnknownError,
} from './media.errors.js';
import { allowedTypeOf, sanitizeFileName } from './media.types.js';

/** An upload's file, stored whole in GridFS, and the form fields that came with it. */
export interface ReceivedUpload {
  file: StoredFile;
  /** The client's name for the file, sanitized, without extension; the title defaults to it. */
  title: string;
  /** The stored name: `YYYY/MM/<stem>.<extension>`. */
  stem: string;
  extension: string;
  mime: string;
  fields: [string, string][];
}

export interface UploadTarget {
  db: Db;
  attachment: number;
  /** `YYYY/MM`, the folder the file goes to. */
  folder: string;
  limit: number;
}

const MAX_FIELDS = 1000;
const MAX_FIELD_BYTES = 1024 * 1024;

/**
 * Reads an upload as WordPress takes it (`WP_REST_Attachments_Controller::create_item`): a raw
 * body named by `Content-Disposition`, or a multipart form whose `file` field is the file. The
 * file goes to GridFS as it arrives; a refused one leaves nothing stored.
 */
export async function receiveUpload(stream: Readable & { headers?: IncomingHttpHeaders }, headers: Record<string, string | undefined>, target: UploadTarget): Promise<ReceivedUpload> {
  const contentType = headers['content-type'];
  if (contentType && /^multipart\/form-data/i.test(contentType)) return receiveMultipart(stream, headers, target);
  return receiveRaw(stream, headers, target);
}

async function receiveRaw(stream: Readable, headers: Record<string, string | undefined>, target: UploadTarget): Promise<ReceivedUpload> {
  const length = headers['content-length'];
  if (length === '0' || (length === undefined && headers['transfer-encoding'] === undefined)) throw new UploadNoData();
  const contentType = headers['content-type'];
  if (!contentType) throw new UploadNoContentType();
  const disposition = headers['content-disposition'];
  if (!disposition) throw new UploadNoDisposition();
  let filename: string | undefined;
  try {
    filename = parseDisposition(disposition).parameters.filename;
  } catch {
    filename = undefined;
  }
  if (!filename) throw new UploadInvalidDisposition();
  const named = await nameFor(target, filename, (message) => new SideloadError(message));
  const file = await store(stream, target, named, (message) => new SideloadError(message));
  await checkHash(target.db, file, headers['content-md5']);
  return { file, ...named, fields: [] };
}

function receiveMultipart(stream: Readable, headers: Record<string, string | undefined>, target: UploadTarget): Promise<ReceivedUpload> {
  const fail = (message: string) => new UploadUnknownError(message);
  return new Promise<ReceivedUpload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: headers as IncomingHttpHeaders, limits: { fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, files: 10 } });
    } catch {
      return reject(new UploadNoData());
    }
    const fields: [string, string][] = [];
    let storing: Promise<{ file: StoredFile; named: Named }> | undefined;
    let broken: unknown;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) broken ??= new UploadTooBig(MAX_FIELD_BYTES);
      fields.push([name, value]);
    });
    parser.on('file', (name, file, info) => {
      if (name !== 'file' || storing || broken) return void file.resume();
      storing = (async () => {
        const named = await nameFor(target, info.filename ?? '', fail);
        return { file: await store(file, target, named, fail), named };
      })();
      // A refused file is answered at once: the rest of the body is read and dropped.
      storing.catch((error: unknown) => {
        broken ??= error;
        stream.unpipe(parser);
        stream.resume();
        file.resume();
        void finish();
      });
    });
    parser.on('error', (error) => {
      broken ??= new UploadUnknownError((error as Error).message || 'Invalid multipart body passed.');
      stream.unpipe(parser);
      stream.resume();
      void finish();
    });
    parser.on('close', () => void finish());
    stream.pipe(parser);

    let finished = false;
    async function finish() {
      if (finished) return;
      finished = true;
      const outcome = storing ? await storing.then((value) => value, (error: unknown) => ({ error })) : undefined;
      const stored = outcome && 'file' in outcome ? outcome : undefined;
      const failure = broken ?? (outcome && 'error' in outcome ? outcome.error : undefined);
      if (failure !== undefined || !stored) {
        if (stored) {
          await removeStored(target.db, stored.file.id);
          await releaseName(target.db, stored.named.stem);
        }
        return reject(failure ?? new UploadNoData());
      }
      try {
        await checkHash(target.db, stored.file, headers['content-md5']);
      } catch (error) {
        return reject(error);
      }
      resolve({ file: stored.file, ...stored.named, fields });
    }
  });
}

interface Named {
  title: string;
  stem: string;
  extension: string;
  mime: string;
}

/** The stored name: sanitized, of an allowed extension, and free (`-1`, `-2`... as `wp_unique_filename`). */
async function nameFor(target: UploadTarget, clientName: string, fail: (message: string) => RestError): Promise<Named> {
  const clean = sanitizeFileName(clientName);
  if (!clean) throw fail(NOT_ALLOWED_TYPE);
  const type = allowedTypeOf(clean.extension);
  if (!type) throw fail(NOT_ALLOWED_TYPE);
  let stem = `${target.folder}/${clean.stem}`;
  for (let suffix = 1; !(await claimName(target.db, stem, target.attachment)); suffix++) stem = `${target.folder}/${clean.stem}-${suffix}`;
  const title = clientName.split(/[\\/]/).pop()!.replace(/\.[^.]*$/, '');
  return { title, stem, extension: clean.extension, mime: type.mime };
}

async function store(source: Readable, target: UploadTarget, named: Named, fail: (message: string) => RestError): Promise<StoredFile> {
  const type = allowedTypeOf(named.extension)!;
  try {
    return await storeStream(
      target.db,
      source,
      `${named.stem}.${named.extension}`,
      { attachment: target.attachment, size: 'full', contentType: named.mime, stem: named.stem },
      {
        limit: target.limit,
        decide: (kind) => {
          // The bytes must be what the extension says (`wp_check_filetype_and_ext`).
          if (kind === undefined || !type.sniffed.includes(kind)) throw new FileRefused('type');
        },
      },
    );
  } catch (error) {
    await releaseName(target.db, named.stem);
    if (!(error instanceof FileRefused)) throw error;
    if (error.reason === 'too-big') throw new UploadTooBig(target.limit);
    if (error.reason === 'empty') throw fail(EMPTY_FILE);
    throw fail(NOT_PERMITTED);
  }
}

/** `Content-MD5`: the hex md5 of the file, as WordPress checks it; a mismatch keeps nothing. */
async function checkHash(db: Db, file: StoredFile, expected: string | undefined): Promise<void> {
  if (expected === undefined || expected.trim().toLowerCase() === file.md5) return;
  await removeStored(db, file.id);
  await releaseName(db, file.filename.replace(/\.[^.]*$/, ''));
  throw new UploadHashMismatch();
}

async function removeStored(db: Db, id: ObjectId): Promise<void> {
  await removeFiles(db, [id]);
}
