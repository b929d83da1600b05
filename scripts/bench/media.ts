// The media library's figures: upload throughput of a 2 MB JPEG with every image size made,
// serving throughput of its thumbnail, and the service's peak RSS while a 200 MB file streams in.
//   npm run bench:media [-- --uploads 20 --concurrency 4 --seconds 8 --big-mb 200]
import fs from 'node:fs/promises';
import os from 'node:os';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { formatResult, load } from './load.js';
import { basic, BENCH_ADMIN_PASSWORD, benchDatabase, startBenchService } from './service.js';

const { values } = parseArgs({
  options: {
    uploads: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '8' },
    'big-mb': { type: 'string', default: '200' },
  },
});
const uploads = Number(values.uploads);
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);
const bigBytes = Number(values['big-mb']) * 1024 * 1024;
const admin = basic('admin', BENCH_ADMIN_PASSWORD);

/** A JPEG of about 2 MB: noise keeps it large at a photo's size. */
async function photo(): Promise<Buffer> {
  const width = 2400;
  const height = 1600;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = ((i * 2654435761) >>> 24) ^ (i % 251);
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 70 }).toBuffer();
}

async function upload(url: string, body: BodyInit, name: string, type: string, extra: RequestInit = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/cms-json/cms/v2/media`, {
    method: 'POST',
    headers: { ...admin, 'Content-Type': type, 'Content-Disposition': `attachment; filename="${name}"` },
    body,
    ...extra,
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

async function rssOf(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** A PDF of `size` bytes made as it is sent: the sender holds one chunk at a time. */
function bigPdf(size: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === 0) {
        const head = new TextEncoder().encode('%PDF-1.4\n');
        controller.enqueue(head);
        sent += head.length;
        return;
      }
      if (sent >= size) return controller.close();
      const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
      sent += part.length;
      controller.enqueue(part);
    },
  });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const { database, uri, stop: stopDatabase } = await benchDatabase();
try {
  // One process (no workers), so that its RSS is the whole service's.
  const service = await startBenchService(uri, { CMS_WORKERS: '1', CMS_MAX_UPLOAD_BYTES: String(bigBytes + 1024 * 1024) });
  try {
    console.log(`database: ${database.description}; node ${process.version}, ${os.cpus().length} cores`);
    const jpeg = await photo();
    const first = await upload(service.url, new Uint8Array(jpeg), 'photo.jpg', 'image/jpeg');
    const sizes = (first.media_details as { sizes: Record<string, { source_url: string }> }).sizes;
    console.log(`JPEG ${mb(jpeg.length)}, 2400x1600: sizes made ${Object.keys(sizes).filter((name) => name !== 'full').join(', ')}`);

    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < uploads) await upload(service.url, new Uint8Array(jpeg), 'photo.jpg', 'image/jpeg');
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    console.log(`upload, all sizes made (${uploads} uploads, ${concurrency} at once)`.padEnd(52), `${(uploads / elapsed).toFixed(2).padStart(7)} uploads/s  ${((uploads * jpeg.length) / 1024 / 1024 / elapsed).toFixed(1)} MB/s  ${((elapsed * 1000) / uploads * concurrency).toFixed(0)} ms per upload`);

    const thumbnail = sizes.thumbnail.source_url;
    await load(thumbnail, {}, 1, 16);
    console.log(formatResult('GET thumbnail (16 connections)', await load(thumbnail, {}, seconds, 16)));

    const before = await rssOf(service.pid);
    let peak = before;
    const sampler = setInterval(() => {
      rssOf(service.pid).then((rss) => (peak = Math.max(peak, rss)), () => undefined);
    }, 20);
    const bigStarted = performance.now();
    await upload(service.url, bigPdf(bigBytes), 'big.pdf', 'application/pdf', { duplex: 'half' } as RequestInit);
    const bigSeconds = (performance.now() - bigStarted) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, await rssOf(service.pid));
    console.log(`upload ${mb(bigBytes)} PDF: ${bigSeconds.toFixed(1)} s (${(bigBytes / 1024 / 1024 / bigSeconds).toFixed(1)} MB/s); service RSS ${mb(before)} before, peak ${mb(peak)} (+${mb(peak - before)})`);
  } finally {
    await service.stop();
  }
} finally {
  await stopDatabase();
}
