import { type Db, type ObjectId } from 'mongodb';
import { readWhole, storeBuffer } from './media.files.js';
import { imageLibrary, imageMeta, plannedSizes, readImage, resizeImage } from './media.images.js';
import { uploadsBucket, type ImageSize } from './media.model.js';
import { RESIZABLE } from './media.types.js';

export interface DescribedFile {
  media_details: Record<string, unknown>;
  /** Files made from the original (image sizes), to remove with it. */
  made: ObjectId[];
}

/** The original as stored, and where its sizes go. */
export interface Original {
  id: ObjectId;
  attachment: number;
  /** `YYYY/MM/<name>` without extension. */
  stem: string;
  extension: string;
  mime: string;
  size: number;
}

/** Thrown when an image's bytes do not decode: the upload is refused. */
export class NotAnImage extends Error {}

/**
 * `media_details` of a new item (`wp_generate_attachment_metadata`): an image gets its width,
 * height and every size it is larger than, each stored as its own file; audio and video what
 * `music-metadata` reads; anything else its size. `made` lists the files written so far even
 * when this fails (the caller removes them).
 */
export async function describeFile(db: Db, original: Original, made: ObjectId[]): Promise<Record<string, unknown>> {
  if (RESIZABLE.has(original.mime)) return describeImage(db, original, made);
  if (original.mime.startsWith('image/')) {
    const sharp = await imageLibrary();
    const meta = await sharp(await readWhole(db, original.id)).metadata().catch(() => undefined);
    return meta?.width ? { width: meta.width, height: meta.height, file: `${original.stem}.${original.extension}`, filesize: original.size, sizes: {}, image_meta: imageMeta(meta.orientation ?? 1) } : { filesize: original.size };
  }
  if (original.mime.startsWith('audio/') || original.mime.startsWith('video/')) return describeMedia(db, original);
  return { filesize: original.size };
}

async function describeImage(db: Db, original: Original, made: ObjectId[]): Promise<Record<string, unknown>> {
  const data = await readWhole(db, original.id);
  const facts = await readImage(data).catch(() => {
    throw new NotAnImage();
  });
  const name = original.stem.slice(original.stem.lastIndexOf('/') + 1);
  const sizes: Record<string, ImageSize> = {};
  const byDimensions = new Map<string, ImageSize>();
  for (const { size, width, height } of plannedSizes(facts)) {
    const key = `${width}x${height}`;
    let entry = byDimensions.get(key);
    if (!entry) {
      const bytes = await resizeImage(data, original.mime, { width, height }, size.crop);
      made.push(
        await storeBuffer(db, bytes, `${original.stem}-${key}.${original.extension}`, {
          attachment: original.attachment,
          size: size.name,
          contentType: original.mime,
          stem: original.stem,
        }),
      );
      entry = { file: `${name}-${key}.${original.extension}`, width, height, filesize: bytes.length, mime_type: original.mime };
      byDimensions.set(key, entry);
    }
    sizes[size.name] = entry;
  }
  return {
    width: facts.width,
    height: facts.height,
    file: `${original.stem}.${original.extension}`,
    filesize: original.size,
    sizes,
    image_meta: imageMeta(facts.orientation),
  };
}

const formatLength = (seconds: number) => {
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
};

/** What a pure-JS reader gets from audio and video (WordPress uses getID3 for the same fields). */
async function describeMedia(db: Db, original: Original): Promise<Record<string, unknown>> {
  const details: Record<string, unknown> = { filesize: original.size, mime_type: original.mime };
  const stream = uploadsBucket(db).openDownloadStream(original.id);
  try {
    // Loaded at the first audio or video file: most processes never read one.
    const { parseStream } = await import('music-metadata');
    const { format } = await parseStream(stream, { mimeType: original.mime, size: original.size }, { duration: false, skipCovers: true });
    if (format.duration !== undefined) {
      details.length = Math.round(format.duration);
      details.length_formatted = formatLength(format.duration);
    }
    if (format.container) details.fileformat = format.container.toLowerCase();
    if (format.codec) details.dataformat = format.codec.toLowerCase();
    if (format.bitrate !== undefined) details.bitrate = Math.round(format.bitrate);
    if (format.sampleRate !== undefined) details.sample_rate = format.sampleRate;
    if (format.numberOfChannels !== undefined) details.channels = format.numberOfChannels;
    if (format.bitsPerSample !== undefined) details.bits_per_sample = format.bitsPerSample;
    if (format.lossless !== undefined) details.lossless = format.lossless;
    const video = format.trackInfo?.find((track) => track.video)?.video;
    if (video?.pixelWidth) {
      details.width = video.pixelWidth;
      details.height = video.pixelHeight;
    }
  } catch {
    // A file the reader does not understand keeps its size only, as WordPress keeps what getID3 reads.
  } finally {
    stream.destroy();
  }
  return details;
}

