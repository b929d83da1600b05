/**
 * Which files the library takes, after WordPress's `get_allowed_mime_types` without what a
 * browser would run from the site's origin (HTML, SVG, XML, scripts, executables): the
 * extension names the type, and the bytes must agree (`wp_check_filetype_and_ext`).
 */
interface AllowedType {
  /** The MIME type stored and served. */
  mime: string;
  /** What `file-type` reads from such a file's bytes; `text` for plain text it cannot name. */
  sniffed: readonly string[];
}

const image = (mime: string, ...sniffed: string[]): AllowedType => ({ mime, sniffed: [mime, ...sniffed] });
const same = (mime: string, ...sniffed: string[]): AllowedType => ({ mime, sniffed: [mime, ...sniffed] });
// Word 97-2003 files and their kin are Compound File Binary containers: the extension tells them apart.
const cfb = (mime: string): AllowedType => ({ mime, sniffed: ['application/x-cfb'] });
const text = (mime: string): AllowedType => ({ mime, sniffed: ['text'] });

const ALLOWED: ReadonlyMap<string, AllowedType> = new Map([
  ['jpg', image('image/jpeg')],
  ['jpeg', image('image/jpeg')],
  ['jpe', image('image/jpeg')],
  ['png', image('image/png')],
  ['gif', image('image/gif')],
  ['webp', image('image/webp')],
  ['avif', image('image/avif')],
  ['bmp', image('image/bmp')],
  ['tif', image('image/tiff')],
  ['tiff', image('image/tiff')],
  ['mp3', same('audio/mpeg')],
  ['m4a', same('audio/mp4', 'audio/x-m4a')],
  ['ogg', same('audio/ogg', 'audio/opus', 'video/ogg')],
  ['oga', same('audio/ogg', 'audio/opus')],
  ['wav', same('audio/wav', 'audio/vnd.wave', 'audio/x-wav')],
  ['flac', same('audio/flac', 'audio/x-flac')],
  ['mp4', same('video/mp4', 'audio/mp4', 'video/x-m4v')],
  ['m4v', same('video/mp4', 'video/x-m4v')],
  ['webm', same('video/webm', 'audio/webm')],
  ['ogv', same('video/ogg')],
  ['mov', same('video/quicktime')],
  ['avi', same('video/x-msvideo', 'video/vnd.avi')],
  ['mkv', same('video/x-matroska')],
  ['3gp', same('video/3gpp')],
  ['pdf', same('application/pdf')],
  ['doc', cfb('application/msword')],
  ['xls', cfb('application/vnd.ms-excel')],
  ['ppt', cfb('application/vnd.ms-powerpoint')],
  ['docx', same('application/vnd.openxmlformats-officedocument.wordprocessingml.document')],
  ['xlsx', same('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')],
  ['pptx', same('application/vnd.openxmlformats-officedocument.presentationml.presentation')],
  ['odt', same('application/vnd.oasis.opendocument.text')],
  ['ods', same('application/vnd.oasis.opendocument.spreadsheet')],
  ['odp', same('application/vnd.oasis.opendocument.presentation')],
  ['rtf', same('application/rtf')],
  ['txt', text('text/plain')],
  ['csv', text('text/csv')],
  ['vtt', text('text/vtt')],
]);

/** Images whose sizes are made (what sharp reads and writes). */
export const RESIZABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif']);

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The type an extension may carry, or undefined when the library does not take it. */
export function allowedTypeOf(extension: string): AllowedType | undefined {
  return ALLOWED.get(extension);
}

// Markup a browser would render if it ever sniffed the file: refused even in a `.txt`.
const MARKUP = /<\s*(!doctype|html|head|body|script|svg|\?xml|iframe|object|embed|meta|link|style)\b/i;

/** What the bytes say, given what `file-type` found (undefined: nothing binary it knows). */
export function sniffedKind(detected: string | undefined, head: Buffer): string | undefined {
  if (detected) return detected;
  if (head.includes(0)) return undefined;
  const start = head.toString('utf8');
  return MARKUP.test(start) ? 'text/html' : 'text';
}

/** WordPress's `wp_get_mime_types` major type, as the list filter `media_type` reads it. */
export const MEDIA_TYPES = ['image', 'video', 'text', 'application', 'audio'] as const;

/**
 * A stored file name from a client's (`sanitize_file_name`): no folder, no control or reserved
 * characters, no leading dots, spaces as dashes; undefined when nothing usable is left.
 */
export function sanitizeFileName(raw: string): { stem: string; extension: string } | undefined {
  const base = raw.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f?[\]/\\=<>:;,'"&$#*()|~`!{}%+’«»”“]/g, '')
    .replace(/[\s-]+/g, '-')
    .replace(/^[.\-_]+|[.\-_]+$/g, '');
  const extension = extensionOf(cleaned);
  if (!extension) return undefined;
  const stem = cleaned.slice(0, cleaned.length - extension.length - 1).replace(/\./g, '_').replace(/[.\-_]+$/g, '').slice(0, 180);
  return stem ? { stem, extension } : undefined;
}
