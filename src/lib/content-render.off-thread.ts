import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { RenderedContentCache, type RenderedFields } from './content-render.cache.js';
import { renderJob, type RenderAnswer, type RenderJob } from './content-render.thread.js';

/**
 * Content this long (in characters) is rendered on the render thread: wpautop's whole-text regular
 * expressions take about 5 ms for 64 KB and grow with the length (100 ms for 1 MB, most of a
 * second for 15 MB), and cannot be cut into slices that give the same output (a paragraph of
 * 15 MB is one match). Shorter content costs less than the trip to the thread.
 */
export const OFF_THREAD_CHARS = 64 * 1024;

/**
 * The render thread's old generation, in MiB: rendering the longest content a body may carry
 * (16 MB) takes a few copies of it; past this the thread alone ends (its renders fail, and the
 * next starts another), never the process whose requests it serves.
 */
export const RENDER_THREAD_HEAP_MB = 256;

export interface RenderRequest {
  /** The item and its version (`renderKey`), when the render of long content may be kept; none for content no version names. */
  key: string | undefined;
  content: string;
  excerpt: string | undefined;
  renderContent: boolean;
}

export interface ContentRendererOptions {
  /** The thread's module; none: rendered on the calling thread. */
  threadFile: URL | undefined;
  /** `CMS_RENDER_CACHE_BYTES`; 0 keeps nothing. */
  cacheBytes: number;
  /** Content at least this long goes to the thread and its render is kept (OFF_THREAD_CHARS). */
  offThreadChars?: number;
  /** The thread's old generation in MiB (RENDER_THREAD_HEAP_MB). */
  threadHeapMb?: number;
}

/** The key of an item's render: its id and version, which every write of it moves. */
export function renderKey(id: number, version: number): string {
  return `${id}:${version}`;
}

/**
 * The built render thread: beside this module once compiled; from the sources (the tests), the
 * build's. None when there is no build: rendered on the calling thread.
 */
export function renderThreadFile(): URL | undefined {
  const candidates = [new URL('./content-render.thread.js', import.meta.url), new URL('../../dist/src/lib/content-render.thread.js', import.meta.url)];
  return candidates.find((file) => existsSync(fileURLToPath(file)));
}

/**
 * Renders long content off the event loop, one job at a time on one thread started at the first
 * (and again after it failed), and keeps what it rendered by item version. Short content renders
 * where it is asked for.
 */
export class ContentRenderer {
  readonly cache: RenderedContentCache;
  private readonly offThreadChars: number;
  private thread: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (rendered: RenderedFields) => void; reject: (error: Error) => void }>();

  constructor(private readonly options: ContentRendererOptions) {
    this.cache = new RenderedContentCache(options.cacheBytes);
    this.offThreadChars = options.offThreadChars ?? OFF_THREAD_CHARS;
  }

  /** Whether `render` is worth awaiting for this content: short content is rendered in place. */
  isLong(content: string): boolean {
    return content.length >= this.offThreadChars;
  }

  async render(request: RenderRequest): Promise<RenderedFields> {
    const kept = request.key !== undefined && this.isLong(request.content);
    const key = !kept ? undefined : `${request.key}:${request.renderContent ? 'c' : ''}${request.excerpt === undefined ? '' : 'e'}`;
    const found = key === undefined ? undefined : this.cache.get(key);
    if (found) return found;
    const startedAt = this.cache.current;
    const job: RenderJob = { id: this.nextId++, content: request.content, excerpt: request.excerpt, renderContent: request.renderContent };
    const rendered = this.options.threadFile && this.isLong(request.content) ? await this.onThread(job) : answered(renderJob(job));
    if (key !== undefined) this.cache.set(key, startedAt, rendered);
    return rendered;
  }

  /** Stops the thread (at shutdown); a later render starts another. */
  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    await thread?.terminate();
  }

  private onThread(job: RenderJob): Promise<RenderedFields> {
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { resolve, reject });
      this.started().postMessage(job);
    });
  }

  private started(): Worker {
    if (this.thread) return this.thread;
    const heapMb = this.options.threadHeapMb ?? RENDER_THREAD_HEAP_MB;
    giveNewThreadsTheirOwnHeapCap(heapMb);
    const thread = new Worker(this.options.threadFile!, { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    // An idle render thread does not keep the process alive.
    thread.unref();
    thread.on('message', (answer: RenderAnswer) => {
      const waiting = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (!waiting) return;
      try {
        waiting.resolve(answered(answer));
      } catch (error) {
        waiting.reject(error as Error);
      }
    });
    const failed = (error: Error) => {
      if (this.thread === thread) this.thread = undefined;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    thread.on('error', failed);
    thread.on('exit', (code) => failed(new Error(`the render thread exited (code ${code})`)));
    this.thread = thread;
    return thread;
  }
}

/**
 * A process started with `--max-old-space-size` (a worker under CMS_WORKER_HEAP_MB) gives that cap
 * to every isolate it makes, a thread's `resourceLimits` notwithstanding: V8's flag wins, and the
 * render thread had 113 MB for renders of 16 MB content that take about that. The flag is set to
 * the thread's cap for isolates made from now on; the process's own heap keeps the cap it started
 * with (V8 sizes a heap once, when its isolate is made).
 */
function giveNewThreadsTheirOwnHeapCap(heapMb: number): void {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (flags.some((flag) => /^--max[-_]old[-_]space[-_]size\b/.test(flag))) setFlagsFromString(`--max-old-space-size=${heapMb}`);
}

function answered(answer: RenderAnswer): RenderedFields {
  if ('error' in answer) throw new Error(answer.error);
  return { content: answer.content, excerpt: answer.excerptIsContent ? answer.content : answer.excerpt };
}
