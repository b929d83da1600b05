import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';

type Headers = Record<string, string>;

let app: TestApp;
let editor: { id: number; headers: Headers };
let author: { id: number; headers: Headers };
let author2: { id: number; headers: Headers };
let contributor: { id: number; headers: Headers };
let subscriber: { id: number; headers: Headers };

beforeAll(async () => {
  app = await createTestApp();
  editor = await app.asRole('editor');
  author = await app.asRole('author');
  author2 = await app.asRole('author');
  contributor = await app.asRole('contributor');
  subscriber = await app.asRole('subscriber');
});
afterAll(async () => {
  await app?.stop();
});

/** An image made here: a gradient, so that every size has content to encode. */
async function image(width: number, height: number, format: 'png' | 'jpeg' | 'webp', options: { orientation?: number } = {}): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    raw[i * 3] = (i % width) % 256;
    raw[i * 3 + 1] = Math.floor(i / width) % 256;
    raw[i * 3 + 2] = 128;
  }
  let pipeline = sharp(raw, { raw: { width, height, channels: 3 } }).toFormat(format);
  if (options.orientation) pipeline = pipeline.withMetadata({ orientation: options.orientation });
  return pipeline.toBuffer();
}

function uploadRaw(body: Buffer | string, filename: string, contentType: string, headers: Headers = app.admin, extra: Headers = {}, query: Record<string, string | number> = {}): Promise<ApiResponse> {
  return app.api('POST', '/cms/v2/media', {
    raw: { body: typeof body === 'string' ? body : new Uint8Array(body), contentType },
    headers: { ...headers, 'Content-Disposition': `attachment; filename="${filename}"`, ...extra },
    query,
  });
}

function uploadForm(body: Buffer, filename: string, type: string, fields: Record<string, string> = {}, headers: Headers = app.admin): Promise<ApiResponse> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(body)], { type }), filename);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return app.api('POST', '/cms/v2/media', { raw: { body: form }, headers });
}

async function gridCounts(): Promise<{ files: number; chunks: number; names: number }> {
  const db = app.deps.store.db;
  return {
    files: await db.collection('uploads.files').estimatedDocumentCount(),
    chunks: await db.collection('uploads.chunks').estimatedDocumentCount(),
    names: await db.collection('upload_names').estimatedDocumentCount(),
  };
}

/** One second of a 440 Hz tone, 8 kHz mono 16-bit PCM, as a WAV file. */
function wav(): Buffer {
  const rate = 8000;
  const samples = Buffer.alloc(rate * 2);
  for (let i = 0; i < rate; i++) samples.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 10000), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
}

function sitePath(url: string): string {
  return new URL(url).pathname;
}

describe('uploading images', () => {
  it('stores a PNG sent as a raw body with every size it is larger than, never upscaled', async () => {
    const png = await image(1200, 800, 'png');
    const res = await uploadRaw(png, 'My Photo.png', 'image/png');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('location')).toBe(`${app.apiRoot}/cms/v2/media/${res.body.id}`);
    expect(res.headers.get('x-wp-upload-attachment-id')).toBe(String(res.body.id));
    const item = res.body;
    expect(item).toMatchObject({ type: 'attachment', status: 'inherit', media_type: 'image', mime_type: 'image/png', post: null, title: { raw: 'My Photo' }, slug: 'my-photo', missing_image_sizes: [] });
    const details = item.media_details;
    expect(details).toMatchObject({ width: 1200, height: 800, filesize: png.length });
    expect(details.file).toMatch(/^\d{4}\/\d{2}\/My-Photo\.png$/);
    expect(item.source_url).toBe(`${app.siteUrl}/uploads/${details.file}`);
    const dims = Object.fromEntries(Object.entries(details.sizes as Record<string, { width: number; height: number }>).map(([name, size]) => [name, [size.width, size.height]]));
    expect(dims).toEqual({ thumbnail: [150, 150], medium: [300, 200], medium_large: [768, 512], large: [1024, 683], full: [1200, 800] });
    expect(details.image_meta).toMatchObject({ orientation: '1', keywords: [], camera: '' });
    for (const [name, size] of Object.entries(details.sizes as Record<string, { file: string; width: number; height: number; mime_type: string; source_url: string; filesize?: number }>)) {
      const served = await fetch(size.source_url);
      expect(served.status, name).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await served.arrayBuffer());
      expect(served.headers.get('content-length')).toBe(String(bytes.length));
      const meta = await sharp(bytes).metadata();
      expect([meta.width, meta.height], name).toEqual([size.width, size.height]);
      expect(size.mime_type).toBe('image/png');
      if (name !== 'full') {
        expect(size.filesize).toBe(bytes.length);
        expect(size.file).toBe(`My-Photo-${size.width}x${size.height}.png`);
      }
    }
  });

  it('makes the two largest sizes only for images larger than them', async () => {
    const res = await uploadRaw(await image(2600, 1300, 'jpeg'), 'wide.jpg', 'image/jpeg');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const sizes = res.body.media_details.sizes;
    expect([sizes['1536x1536'].width, sizes['1536x1536'].height]).toEqual([1536, 768]);
    expect([sizes['2048x2048'].width, sizes['2048x2048'].height]).toEqual([2048, 1024]);
  });

  it('gives a small image no sizes and no full entry', async () => {
    const res = await uploadRaw(await image(100, 80, 'png'), 'tiny.png', 'image/png');
    expect(res.status).toBe(201);
    expect(res.body.media_details.sizes).toEqual({});
    expect([res.body.media_details.width, res.body.media_details.height]).toEqual([100, 80]);
  });

  it('applies the EXIF orientation of a JPEG to its dimensions and sizes', async () => {
    // Stored 400x200 with orientation 6 (turned 90°): shown 200x400.
    const jpeg = await image(400, 200, 'jpeg', { orientation: 6 });
    const res = await uploadRaw(jpeg, 'turned.jpg', 'image/jpeg');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect([res.body.media_details.width, res.body.media_details.height]).toEqual([200, 400]);
    expect(res.body.media_details.image_meta.orientation).toBe('6');
    const medium = res.body.media_details.sizes.medium;
    expect([medium.width, medium.height]).toEqual([150, 300]);
    const bytes = Buffer.from(await (await fetch(medium.source_url)).arrayBuffer());
    const meta = await sharp(bytes).metadata();
    expect([meta.width, meta.height]).toEqual([150, 300]);
  });

  it('takes a multipart form with a WebP file and the other fields', async () => {
    const post = await app.api('POST', '/cms/v2/posts', { json: { title: 'Host', status: 'publish' }, headers: app.admin });
    const res = await uploadForm(await image(500, 500, 'webp'), 'leaf.webp', 'image/webp', { title: 'A leaf', alt_text: 'green <b>leaf</b>', caption: 'Caption', description: 'About it', post: String(post.body.id) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ mime_type: 'image/webp', title: { raw: 'A leaf' }, alt_text: 'green leaf', caption: { raw: 'Caption' }, description: { raw: 'About it' }, post: post.body.id });
    expect(res.body.caption.rendered).toBe('<p>Caption</p>\n');
    expect(Object.keys(res.body.media_details.sizes).sort()).toEqual(['full', 'medium', 'thumbnail']);
  });

  it('makes stored names unique and safe', async () => {
    const png = await image(20, 20, 'png');
    const first = await uploadRaw(png, 'same.png', 'image/png');
    const second = await uploadRaw(png, 'same.png', 'image/png');
    expect(first.body.media_details.file).toMatch(/\/same\.png$/);
    expect(second.body.media_details.file).toMatch(/\/same-1\.png$/);
    const traversal = await app.api('POST', '/cms/v2/media', {
      raw: { body: new Uint8Array(png), contentType: 'image/png' },
      headers: { ...app.admin, 'Content-Disposition': "attachment; filename*=UTF-8''..%2F..%2Fetc%2F.hidden%01.png" },
    });
    expect(traversal.status, JSON.stringify(traversal.body)).toBe(201);
    expect(traversal.body.media_details.file).toMatch(/^\d{4}\/\d{2}\/hidden\.png$/);
    const leading = await uploadRaw(png, '...dots.png', 'image/png');
    expect(leading.body.media_details.file).toMatch(/\/dots\.png$/);
  });
});

describe('other files', () => {
  it('reads what it can of audio', async () => {
    const sound = wav();
    const res = await uploadRaw(sound, 'tone.wav', 'audio/wav');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ media_type: 'file', mime_type: 'audio/wav', media_details: { filesize: sound.length, length: 1, length_formatted: '0:01', sample_rate: 8000, channels: 1, bits_per_sample: 16 } });
  });

  it('gives concurrent uploads of one name distinct files', async () => {
    const png = await image(200, 200, 'png');
    const results = await Promise.all(Array.from({ length: 4 }, () => uploadRaw(png, 'race.png', 'image/png')));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const files = results.map((r) => r.body.media_details.file.replace(/^\d{4}\/\d{2}\//, '')).sort();
    expect(files).toEqual(['race-1.png', 'race-2.png', 'race-3.png', 'race.png']);
    for (const r of results) expect((await fetch(r.body.media_details.sizes.thumbnail.source_url)).status).toBe(200);
  });
});

describe('refused uploads leave nothing behind', () => {
  async function refused(send: () => Promise<ApiResponse>, status: number, code: string) {
    const before = await gridCounts();
    const posts = await app.deps.store.db.collection('posts').countDocuments({ type: 'attachment' });
    const res = await send();
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.code).toBe(code);
    expect(await gridCounts()).toEqual(before);
    expect(await app.deps.store.db.collection('posts').countDocuments({ type: 'attachment' })).toBe(posts);
    return res;
  }

  it('refuses the header errors in WordPress order', async () => {
    await refused(() => app.api('POST', '/cms/v2/media', { raw: { body: '' }, headers: app.admin }), 400, 'rest_upload_no_data');
    await refused(() => app.api('POST', '/cms/v2/media', { raw: { body: new Uint8Array([1, 2]) }, headers: { ...app.admin, 'Content-Type': '' } }), 400, 'rest_upload_no_content_type');
    await refused(() => app.api('POST', '/cms/v2/media', { raw: { body: new Uint8Array([1, 2]), contentType: 'image/png' }, headers: app.admin }), 400, 'rest_upload_no_content_disposition');
    await refused(() => app.api('POST', '/cms/v2/media', { raw: { body: new Uint8Array([1, 2]), contentType: 'image/png' }, headers: { ...app.admin, 'Content-Disposition': 'attachment' } }), 400, 'rest_upload_invalid_disposition');
    await refused(() => app.api('POST', '/cms/v2/media', { raw: { body: new FormData() }, headers: app.admin }), 400, 'rest_upload_no_data');
  });

  it('refuses a truncated image', async () => {
    const jpeg = await image(600, 400, 'jpeg');
    await refused(() => uploadRaw(jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'cut.jpg', 'image/jpeg'), 400, 'rest_upload_sideload_error');
  });

  it('refuses an extension the bytes disagree with', async () => {
    const png = await image(50, 50, 'png');
    await refused(() => uploadRaw(png, 'fake.jpg', 'image/jpeg'), 400, 'rest_upload_sideload_error');
  });

  it('refuses HTML disguised as an image or as text', async () => {
    await refused(() => uploadRaw('<!doctype html><script>alert(1)</script>', 'page.jpg', 'image/jpeg'), 400, 'rest_upload_sideload_error');
    await refused(() => uploadRaw('<html><body><script>alert(1)</script></body></html>', 'notes.txt', 'text/plain'), 400, 'rest_upload_sideload_error');
    await refused(() => uploadRaw('<b>hi</b>', 'page.html', 'text/html'), 400, 'rest_upload_sideload_error');
  });

  it('refuses SVG, even with an allowed name', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    await refused(() => uploadRaw(svg, 'logo.svg', 'image/svg+xml'), 400, 'rest_upload_sideload_error');
    await refused(() => uploadForm(Buffer.from(svg), 'logo.png', 'image/png'), 400, 'rest_upload_unknown_error');
  });

  it('refuses a zip named .jpg and an executable', async () => {
    const zip = Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(200, 1)]);
    await refused(() => uploadRaw(zip, 'holiday.jpg', 'image/jpeg'), 400, 'rest_upload_sideload_error');
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(200)]);
    await refused(() => uploadRaw(elf, 'tool.exe', 'application/octet-stream'), 400, 'rest_upload_sideload_error');
  });

  it('refuses an empty file and a wrong Content-MD5', async () => {
    await refused(() => uploadForm(Buffer.alloc(0), 'empty.png', 'image/png'), 400, 'rest_upload_unknown_error');
    const png = await image(30, 30, 'png');
    await refused(() => uploadRaw(png, 'hash.png', 'image/png', app.admin, { 'Content-MD5': '0'.repeat(32) }), 412, 'rest_upload_hash_mismatch');
    const ok = await uploadRaw(png, 'hash.png', 'image/png', app.admin, { 'Content-MD5': createHash('md5').update(png).digest('hex') });
    expect(ok.status).toBe(201);
  });

  it('refuses bad form fields after the file was streamed', async () => {
    const png = await image(300, 300, 'png');
    await refused(() => uploadForm(png, 'late.png', 'image/png', { status: 'nonsense' }), 400, 'rest_invalid_param');
    const media = await uploadRaw(await image(10, 10, 'png'), 'parent.png', 'image/png');
    await refused(() => uploadForm(png, 'late.png', 'image/png', { post: String(media.body.id) }), 400, 'rest_invalid_param');
  });
});

describe('oversize uploads', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await createTestApp({ env: { CMS_MAX_UPLOAD_BYTES: '100000' } });
  });
  afterAll(async () => {
    await small?.stop();
  });

  it('answers 413 and keeps no file or chunk', async () => {
    const big = await image(1000, 1000, 'png');
    expect(big.length).toBeGreaterThan(100000);
    for (const form of [false, true]) {
      const res = form
        ? await (async () => {
            const data = new FormData();
            data.append('file', new Blob([new Uint8Array(big)], { type: 'image/png' }), 'big.png');
            return small.api('POST', '/cms/v2/media', { raw: { body: data }, headers: small.admin });
          })()
        : await small.api('POST', '/cms/v2/media', { raw: { body: new Uint8Array(big), contentType: 'image/png' }, headers: { ...small.admin, 'Content-Disposition': 'attachment; filename=big.png' } });
      expect(res.status, JSON.stringify(res.body)).toBe(413);
      expect(res.body.code).toBe('rest_upload_file_too_big');
    }
    const db = small.deps.store.db;
    expect(await db.collection('uploads.files').estimatedDocumentCount()).toBe(0);
    expect(await db.collection('uploads.chunks').estimatedDocumentCount()).toBe(0);
  });
});

describe('serving files', () => {
  let url: string;
  let bytes: Buffer;
  beforeAll(async () => {
    bytes = await image(640, 480, 'jpeg');
    const res = await uploadRaw(bytes, 'served.jpg', 'image/jpeg');
    url = res.body.source_url;
  });

  it('sends the file with its validators and long cache headers', async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{24}"$/);
    expect(res.headers.get('last-modified')).toBeTruthy();
    expect(res.headers.get('cache-control')).toContain('max-age=31536000');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
  });

  it('answers conditional GETs with 304', async () => {
    const first = await fetch(url);
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    expect((await fetch(url, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await fetch(url, { headers: { 'If-Modified-Since': lastModified } })).status).toBe(304);
    expect((await fetch(url, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
    expect((await fetch(url, { headers: { 'If-Modified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' } })).status).toBe(200);
  });

  it('serves byte ranges, and 416 past the end', async () => {
    const part = await fetch(url, { headers: { Range: 'bytes=10-99' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-99/${bytes.length}`);
    expect(part.headers.get('content-length')).toBe('90');
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 100))).toBe(true);
    const tail = await fetch(url, { headers: { Range: 'bytes=-5' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 5))).toBe(true);
    const past = await fetch(url, { headers: { Range: `bytes=${bytes.length + 10}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    const stale = await fetch(url, { headers: { Range: 'bytes=0-9', 'If-Range': '"stale"' } });
    expect(stale.status).toBe(200);
  });

  it('answers 404 for a name it does not hold', async () => {
    expect((await fetch(`${app.siteUrl}/uploads/2020/01/none.jpg`)).status).toBe(404);
    expect((await fetch(`${app.siteUrl}${sitePath(url).replace(/\/[^/]+$/, '/..%2F..%2Fpackage.json')}`)).status).toBe(404);
  });
});

describe('reading, listing, updating and deleting', () => {
  it('lists with the media filters', async () => {
    const png = await uploadRaw(await image(40, 40, 'png'), 'filter.png', 'image/png');
    const pdf = await uploadRaw(Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n'), 'doc.pdf', 'application/pdf');
    expect(pdf.status, JSON.stringify(pdf.body)).toBe(201);
    expect(pdf.body).toMatchObject({ media_type: 'file', mime_type: 'application/pdf', media_details: { filesize: pdf.body.media_details.filesize } });
    const images = await app.api('GET', '/cms/v2/media', { query: { media_type: 'image', per_page: 100 } });
    expect(images.status).toBe(200);
    expect(images.body.every((item: { mime_type: string }) => item.mime_type.startsWith('image/'))).toBe(true);
    expect(images.body.map((item: { id: number }) => item.id)).toContain(png.body.id);
    const pdfs = await app.api('GET', '/cms/v2/media', { query: { mime_type: 'application/pdf' } });
    expect(pdfs.body.map((item: { id: number }) => item.id)).toEqual([pdf.body.id]);
    const searched = await app.api('GET', '/cms/v2/media', { query: { search: 'filter' } });
    expect(searched.body.map((item: { id: number }) => item.id)).toEqual([png.body.id]);
    const bad = await app.api('GET', '/cms/v2/media', { query: { media_type: 'font' } });
    expect(bad.status).toBe(400);
  });

  it('filters by parent and hides media of posts the caller may not read', async () => {
    const draft = await app.api('POST', '/cms/v2/posts', { json: { title: 'Draft', status: 'draft' }, headers: app.admin });
    const attached = await uploadRaw(await image(30, 30, 'png'), 'attached.png', 'image/png', app.admin, {}, { post: draft.body.id });
    expect(attached.status, JSON.stringify(attached.body)).toBe(201);
    expect(attached.body.post).toBe(draft.body.id);
    const byParent = await app.api('GET', '/cms/v2/media', { query: { parent: [draft.body.id] }, headers: app.admin });
    expect(byParent.body.map((item: { id: number }) => item.id)).toEqual([attached.body.id]);
    expect((await app.api('GET', `/cms/v2/media/${attached.body.id}`)).status).toBe(401);
    const anonymous = await app.api('GET', '/cms/v2/media', { query: { parent: [draft.body.id] } });
    expect(anonymous.body).toEqual([]);
  });

  it('shows contexts as WordPress does', async () => {
    const res = await uploadRaw(await image(20, 20, 'png'), 'ctx.png', 'image/png');
    const view = await app.api('GET', `/cms/v2/media/${res.body.id}`);
    expect(view.status).toBe(200);
    expect(view.body.missing_image_sizes).toBeUndefined();
    expect(view.body.caption.raw).toBeUndefined();
    expect(view.body.description.rendered).toBeDefined();
    const embed = await app.api('GET', `/cms/v2/media/${res.body.id}`, { query: { context: 'embed' } });
    expect(embed.body.description).toBeUndefined();
    expect(embed.body.source_url).toBe(res.body.source_url);
    expect(embed.body.alt_text).toBe('');
    expect((await app.api('GET', `/cms/v2/media/${res.body.id}`, { query: { context: 'edit' }, headers: subscriber.headers })).status).toBe(403);
    expect(view.body._links.about[0].href).toBe(`${app.apiRoot}/cms/v2/types/attachment`);
    expect(view.body._links['wp:attachment']).toBeUndefined();
  });

  it('updates title, caption, alt_text, description and post', async () => {
    const res = await uploadRaw(await image(20, 20, 'png'), 'edit.png', 'image/png', author.headers);
    const post = await app.api('POST', '/cms/v2/posts', { json: { title: 'Mine', status: 'publish' }, headers: author.headers });
    const updated = await app.api('POST', `/cms/v2/media/${res.body.id}`, {
      json: { title: 'New title', caption: 'New caption', alt_text: 'Alt', description: { raw: 'Desc' }, post: post.body.id },
      headers: author.headers,
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ title: { raw: 'New title' }, caption: { raw: 'New caption' }, alt_text: 'Alt', description: { raw: 'Desc' }, post: post.body.id });
    expect(updated.body.source_url).toBe(res.body.source_url);
    const other = await app.api('POST', '/cms/v2/posts', { json: { title: 'Not mine', status: 'publish' }, headers: editor.headers });
    const denied = await app.api('POST', `/cms/v2/media/${res.body.id}`, { json: { post: other.body.id }, headers: author.headers });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('rest_cannot_edit');
  });

  it('deletes only with force, and frees every file and chunk', async () => {
    const res = await uploadRaw(await image(1100, 900, 'jpeg'), 'gone.jpg', 'image/jpeg');
    const sizes = Object.values(res.body.media_details.sizes as Record<string, { source_url: string }>);
    const before = await gridCounts();
    const notForced = await app.api('DELETE', `/cms/v2/media/${res.body.id}`, { headers: app.admin });
    expect(notForced.status).toBe(501);
    expect(notForced.body.code).toBe('rest_trash_not_supported');
    const deleted = await app.api('DELETE', `/cms/v2/media/${res.body.id}`, { query: { force: true }, headers: app.admin });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id: res.body.id } });
    const after = await gridCounts();
    // The original and thumbnail, medium, medium_large, large.
    expect(before.files - after.files).toBe(5);
    expect(after.chunks).toBeLessThan(before.chunks);
    const left = await app.deps.store.db.collection('uploads.files').find({ 'metadata.attachment': res.body.id }).toArray();
    expect(left).toEqual([]);
    for (const size of sizes) expect((await fetch(size.source_url)).status).toBe(404);
    expect((await app.api('GET', `/cms/v2/media/${res.body.id}`)).status).toBe(404);
  });
});

describe('permissions', () => {
  it('lets authors and above upload, not contributors or subscribers', async () => {
    const png = await image(10, 10, 'png');
    for (const [who, status] of [[author, 201], [editor, 201], [contributor, 403], [subscriber, 403]] as const) {
      const res = await uploadRaw(png, 'perm.png', 'image/png', who.headers);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      if (status === 403) expect(res.body.code).toBe('rest_cannot_create');
    }
    const anonymous = await app.api('POST', '/cms/v2/media', { raw: { body: new Uint8Array(png), contentType: 'image/png' }, headers: { 'Content-Disposition': 'attachment; filename=a.png' } });
    expect(anonymous.status).toBe(401);
  });

  it('lets an author edit and delete only their own media; editors anyone\'s', async () => {
    const png = await image(10, 10, 'png');
    const mine = await uploadRaw(png, 'own.png', 'image/png', author.headers);
    expect((await app.api('POST', `/cms/v2/media/${mine.body.id}`, { json: { title: 'x' }, headers: author2.headers })).status).toBe(403);
    expect((await app.api('DELETE', `/cms/v2/media/${mine.body.id}`, { query: { force: true }, headers: author2.headers })).status).toBe(403);
    expect((await app.api('POST', `/cms/v2/media/${mine.body.id}`, { json: { title: 'y' }, headers: editor.headers })).status).toBe(200);
    expect((await app.api('DELETE', `/cms/v2/media/${mine.body.id}`, { query: { force: true }, headers: author.headers })).status).toBe(200);
  });

  it('refuses attaching an upload to a post the caller may not edit', async () => {
    const post = await app.api('POST', '/cms/v2/posts', { json: { title: 'Editor post', status: 'publish' }, headers: editor.headers });
    const res = await uploadRaw(await image(10, 10, 'png'), 'att.png', 'image/png', author.headers, {}, { post: post.body.id });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('rest_cannot_edit');
  });
});

describe('media in posts and settings', () => {
  it('resolves featured media, its link and its embedding', async () => {
    const media = await uploadRaw(await image(200, 200, 'png'), 'featured.png', 'image/png');
    const post = await app.api('POST', '/cms/v2/posts', { json: { title: 'With image', status: 'publish', featured_media: media.body.id }, headers: app.admin });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    const read = await app.api('GET', `/cms/v2/posts/${post.body.id}`, { query: { _embed: 'wp:featuredmedia' } });
    expect(read.body._links['wp:featuredmedia'][0].href).toBe(`${app.apiRoot}/cms/v2/media/${media.body.id}`);
    expect(read.body._embedded['wp:featuredmedia'][0]).toMatchObject({ id: media.body.id, source_url: media.body.source_url, media_type: 'image' });
    const attachmentsLink = read.body._links['wp:attachment'][0].href;
    const attached = await fetch(attachmentsLink).then((r) => r.json());
    expect(attached).toEqual([]);
    await app.api('DELETE', `/cms/v2/media/${media.body.id}`, { query: { force: true }, headers: app.admin });
    const after = await app.api('GET', `/cms/v2/posts/${post.body.id}`);
    expect(after.body.featured_media).toBe(0);
  });

  it('points site_icon_url at the icon media', async () => {
    const icon = await uploadRaw(await image(512, 512, 'png'), 'icon.png', 'image/png');
    const set = await app.api('POST', '/cms/v2/settings', { json: { site_icon: icon.body.id, site_logo: icon.body.id }, headers: app.admin });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const index = await app.api('GET', '/');
    expect(index.body.site_icon_url).toBe(icon.body.source_url);
    expect((await app.api('POST', '/cms/v2/settings', { json: { site_icon: 999999 }, headers: app.admin })).status).toBe(400);
  });
});

describe('uploads a crash interrupted', () => {
  it('are removed at the next start: their files, chunks and name, unless their item was written', async () => {
    const { GridFSBucket } = await import('mongodb');
    const { startServiceOn } = await import('../support/test-app.js');
    const db = app.deps.store.db;
    const longAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    const interrupted = await app.deps.ids.next('content');
    const bucket = new GridFSBucket(db, { bucketName: 'uploads' });
    await new Promise<void>((resolve, reject) => {
      bucket.openUploadStream(`2026/01/interrupted-${interrupted}.jpg`, { metadata: { attachment: interrupted } }).on('finish', () => resolve()).on('error', reject).end(Buffer.alloc(300 * 1024, 7));
    });
    await db.collection('upload_names').insertOne({ _id: `2026/01/interrupted-${interrupted}` as never, attachment: interrupted });
    await db.collection('pending_uploads').insertOne({ _id: interrupted as never, at: longAgo });
    const written = (await uploadRaw(await image(20, 20, 'png'), 'kept-after-crash.png', 'image/png')).body;
    await db.collection('pending_uploads').insertOne({ _id: written.id as never, at: longAgo });
    const recent = await app.deps.ids.next('content');
    await db.collection('pending_uploads').insertOne({ _id: recent as never, at: new Date() });
    expect(await db.collection('uploads.chunks').countDocuments({})).toBeGreaterThan(0);

    const restarted = await startServiceOn(app.databaseName);
    await restarted.stop();
    expect(await db.collection('uploads.files').countDocuments({ 'metadata.attachment': interrupted })).toBe(0);
    expect(await db.collection('upload_names').countDocuments({ attachment: interrupted })).toBe(0);
    const orphanChunks = await db.collection('uploads.chunks').aggregate([{ $group: { _id: '$files_id' } }]).toArray();
    const files = new Set((await db.collection('uploads.files').find({}, { projection: { _id: 1 } }).toArray()).map((file) => String(file._id)));
    expect(orphanChunks.filter((chunk) => !files.has(String(chunk._id)))).toEqual([]);
    expect(await db.collection('uploads.files').countDocuments({ 'metadata.attachment': written.id })).toBeGreaterThan(0);
    expect((await db.collection('pending_uploads').find({}).toArray()).map((entry) => entry._id)).toEqual([recent]);
    await db.collection('pending_uploads').deleteOne({ _id: recent as never });
  });

  it('leaves no journal entry behind a finished or refused upload', async () => {
    await uploadRaw(await image(20, 20, 'png'), 'journal.png', 'image/png');
    await uploadRaw('<html></html>', 'journal.png', 'image/png');
    expect(await app.deps.store.db.collection('pending_uploads').countDocuments({})).toBe(0);
  });
});

describe('fields the media routes do not declare', () => {
  it('ignores a post field sent to a media item, whatever its shape, and refuses an object where a page takes text', async () => {
    const uploaded = await uploadRaw(await image(20, 20, 'png'), 'Undeclared.png', 'image/png');
    expect(uploaded.status).toBe(201);
    const id = uploaded.body.id as number;
    const res = await app.api('PUT', `/cms/v2/media/${id}`, { headers: app.admin, json: { title: 'Still media', password: { nested: [1] }, format: { a: 1 }, menu_order: { b: 2 }, content: { raw: { c: 3 } } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.title.raw).toBe('Still media');

    const page = await app.api('POST', '/cms/v2/pages', { headers: app.admin, json: { title: 'A page' } });
    const refused = await app.api('POST', `/cms/v2/pages/${page.body.id}`, { headers: app.admin, json: { format: { a: 1 } } });
    expect([200, 400]).toContain(refused.status);
    if (refused.status === 400) expect(refused.body.code).toBe('rest_invalid_param');
  });
});
