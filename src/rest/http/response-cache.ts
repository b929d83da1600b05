import { createHash } from 'node:crypto';
import { type RestResult } from '../rest-server.js';

/** How the processes sharing a database tell each other that something changed (`src/store/site-changes.ts`). */
export interface ChangeSignal {
  /** The token of the last change, or null before any. */
  token(): Promise<string | null>;
  /** Records a change (a new token). */
  announce(): Promise<void>;
}

export interface ResponseCacheOptions {
  maxBytes: number;
  /** How often another process's change is looked for: the bound on how stale a cached answer can be. */
  syncMs: number;
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
 * Anonymous GET answers kept in memory (least recently used first out, bounded in bytes), with
 * an entity tag for 304s. Any write through this process empties it before its answer is sent;
 * a write through another process is seen within `syncMs`, through the shared change token.
 */
export class AnonymousResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Bumped by every emptying: an answer computed before one is not kept. */
  private generation = 0;
  private lastToken: string | null | undefined;
  private nextSync = 0;
  private syncing: Promise<void> | undefined;
  /** A write of this process whose change token is not in the database yet. */
  private unannounced = false;
  /** Answers being computed, by key, settled once stored (or found not cacheable). */
  private readonly computing = new Map<string, Promise<void>>();

  constructor(private readonly options: ResponseCacheOptions) {}

  /** Empties the cache if another process announced a change since the last look (at most once per `syncMs`). */
  async sync(): Promise<void> {
    if (Date.now() < this.nextSync) return;
    this.syncing ??= (async () => {
      try {
        if (this.unannounced) await this.announce();
        const token = await this.options.changes.token();
        if (this.lastToken !== undefined && token !== this.lastToken) this.clear();
        this.lastToken = token;
        this.nextSync = Date.now() + this.options.syncMs;
      } finally {
        this.syncing = undefined;
      }
    })();
    await this.syncing;
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
    const bytes = json.length + key.length;
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

  /**
   * A write went through this process: empty the cache now, and tell the others. Never fails:
   * the write is made whatever happens here, so a token the database would not take is written
   * by a later look (`sync`) instead.
   */
  async changed(): Promise<void> {
    this.clear();
    this.unannounced = true;
    await this.announce();
  }

  private async announce(): Promise<void> {
    try {
      await this.options.changes.announce();
      this.unannounced = false;
    } catch {
      // Left for the next look.
    }
  }

  private clear(): void {
    this.entries.clear();
    this.bytes = 0;
    this.generation++;
  }
}
