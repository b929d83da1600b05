import type { FormatEnum } from 'sharp';
import { type ImageSize } from './media.model.js';

type Sharp = (typeof import('sharp'))['default'];
let loaded: Promise<Sharp> | undefined;

/**
 * sharp, loaded at the first image rather than at start: libvips maps tens of megabytes, which a
 * process that is never sent an image need not hold.
 */
export function imageLibrary(): Promise<Sharp> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    // Every image is read once per upload: libvips' operation cache would only hold memory.
    sharp.cache(false);
    return sharp;
  });
  return loaded;
}

/** WordPress's default image sizes (`thumbnail_size_w` ... and `wp_get_registered_image_subsizes`). */
export const IMAGE_SIZES = [
  { name: 'thumbnail', width: 150, height: 150, crop: true },
  { name: 'medium', width: 300, height: 300, crop: false },
  { name: 'medium_large', width: 768, height: 0, crop: false },
  { name: 'large', width: 1024, height: 1024, crop: false },
  { name: '1536x1536', width: 1536, height: 1536, crop: false },
  { name: '2048x2048', width: 2048, height: 2048, crop: false },
] as const;

type SizeDef = (typeof IMAGE_SIZES)[number];

/**
 * The dimensions a size gets from an image (`image_resize_dimensions`), or undefined when the
 * image is not larger than the size: WordPress never upscales.
 */
export function sizeDimensions(width: number, height: number, size: SizeDef): { width: number; height: number } | undefined {
  const maxW = size.width || Infinity;
  const maxH = size.height || Infinity;
  if (size.crop) {
    if (width <= maxW && height <= maxH) return undefined;
    return { width: Math.min(maxW, width), height: Math.min(maxH, height) };
  }
  if (width <= maxW && height <= maxH) return undefined;
  const ratio = Math.min(maxW / width, maxH / height);
  return { width: Math.max(1, Math.round(width * ratio)), height: Math.max(1, Math.round(height * ratio)) };
}

export interface ImageFacts {
  /** As displayed: EXIF orientation applied. */
  width: number;
  height: number;
  orientation: number;
}

/** Width, height and orientation of an image; throws when sharp cannot decode it whole. */
export async function readImage(data: Buffer): Promise<ImageFacts> {
  const sharp = await imageLibrary();
  const meta = await sharp(data, { failOn: 'truncated' }).metadata();
  if (!meta.width || !meta.height) throw new Error('image without dimensions');
  // Decoding every pixel once proves the file is whole (a truncated file's header still reads).
  await sharp(data, { failOn: 'truncated' }).stats();
  const orientation = meta.orientation ?? 1;
  const turned = orientation >= 5;
  return { width: turned ? meta.height : meta.width, height: turned ? meta.width : meta.height, orientation };
}

const FORMATS: Record<string, keyof FormatEnum | 'avif'> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
};

/** One size of an image, oriented upright, in the original's format. */
export async function resizeImage(data: Buffer, mime: string, target: { width: number; height: number }, crop: boolean): Promise<Buffer> {
  const sharp = await imageLibrary();
  return sharp(data, { failOn: 'truncated', animated: mime === 'image/gif' })
    .rotate()
    .resize(target.width, target.height, { fit: crop ? 'cover' : 'fill', position: 'centre' })
    .toFormat(FORMATS[mime])
    .toBuffer();
}

/** The sizes an image gets, each once: a size with the dimensions of an earlier one shares its file. */
export function plannedSizes(facts: ImageFacts): { size: SizeDef; width: number; height: number }[] {
  const planned = [];
  for (const size of IMAGE_SIZES) {
    const dims = sizeDimensions(facts.width, facts.height, size);
    if (dims && !(dims.width === facts.width && dims.height === facts.height)) planned.push({ size, ...dims });
  }
  return planned;
}

/** `image_meta` as WordPress fills it when the file says nothing else (`wp_read_image_metadata`). */
export function imageMeta(orientation: number): Record<string, unknown> {
  return {
    aperture: '0',
    credit: '',
    camera: '',
    caption: '',
    created_timestamp: '0',
    copyright: '',
    focal_length: '0',
    iso: '0',
    shutter_speed: '0',
    title: '',
    orientation: String(orientation),
    keywords: [],
  };
}

export type { ImageSize };
