import { createHash } from 'node:crypto';
import { type RestResult } from '../rest-server.js';

/**
 * How the processes sharing a database keep what they hold no older than the last acknowledged
 * write (`src/store/coordination/site-changes.ts`).
 */
export interface ChangeSignal {
  /** Resolves once a look at the shared change begun after this call is done (caches emptied if it moved). */
  catchUp(): Promise<void>;
  /** A write was made through this process: empties its caches and tells the others (`content`: only content changed). */
  changed(scope?: 'site' | 'content'): Promise<void>;
  /** Registers what to empty when anything changed. */
  onChange(forget: () => void): void;
}

export interface ResponseCacheOptions {
  maxBytes: number;
  /** How long an entry lives at most (what no write announces, such as a scheduled item's time coming). */
  entryTtlMs: number;
  changes: ChangeSignal;
}

interface Entry {
  result: RestResult;
  etag: string;
  bytes: number;
  expires: number;
}

/**
 * GET answers kept in memory (least recently used first out, bounded in bytes), with an entity
 * tag for 304s: anonymous ones for everyone, and those of endpoints kept per caller
 * (`cache: 'per-caller'`) for their caller. Emptied by any write, through this process or another (`ChangeSignal`),
 * before that write is answered to anyone.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Bumped by every emptying: an answer computed before one is not kept. */
  private generation = 0;
  /** Answers being computed, by key, settled once stored (or found not cacheable). */
  private readonly computing = new Map<string, Promise<void>>();

  constructor(private readonly options: ResponseCacheOptions) {
    options.changes.onChange(() => this.clear());
  }

  lookup(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expires <= Date.now()) {
      this.bytes -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * The entry for `key` once the request of this process already computing it is done, if it
   * was kept: a burst of misses for one address costs one computation, not one each.
   */
  async afterComputing(key: string): Promise<Entry | undefined> {
    const pending = this.computing.get(key);
    if (!pending) return undefined;
    await pending;
    return this.lookup(key);
  }

  /** Marks `key` as being computed until the returned function is called. */
  startComputing(key: string): () => void {
    let done!: () => void;
    const pending = new Promise<void>((resolve) => (done = resolve));
    this.computing.set(key, pending);
    return () => {
      if (this.computing.get(key) === pending) this.computing.delete(key);
      done();
    };
  }

  /** The moment an answer starts being computed, for `store`. */
  get current(): number {
    return this.generation;
  }

  /** Keeps an answer computed since `startedAt` (unless the cache was emptied meanwhile), with its entity tag. */
  store(key: string, startedAt: number, result: RestResult, json: string): string {
    const etag = String(result.headers.ETag ?? `W/"${createHash('sha1').update(json).digest('base64url')}"`);
    // Counted at two bytes a character, V8's most, as the render cache counts: counted at one, an
    // answer holding a 16 MB post (an anonymous feed page with `include=item`) fit the 32 MiB
    // budget and stayed in a 96 MiB worker until the next write, whose own peak it added to.
    const bytes = 2 * (json.length + key.length);
    if (startedAt !== this.generation || bytes > this.options.maxBytes) return etag;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    this.entries.set(key, { result, etag, bytes, expires: Date.now() + this.options.entryTtlMs });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.options.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
    return etag;
  }

  private clear(): void {
    this.entries.clear();
    this.bytes = 0;
    this.generation++;
  }
}
