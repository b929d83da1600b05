/** A post's rendered fields, as one render of one version of it gave them. */
export interface RenderedFields {
  content: string | undefined;
  excerpt: string | undefined;
}

interface Entry {
  rendered: RenderedFields;
  bytes: number;
  expires: number;
}

/**
 * How long a kept render lives at most: a process that answers nothing for a while (and so does
 * not look at the site's change token) still drops what it keeps, erased words included.
 */
export const RENDER_CACHE_TTL_MS = 60_000;

/**
 * Rendered content of long items, by item and version (`renderKey`), least recently used out
 * first within a byte budget: strings are counted at two bytes a character, V8's most. Emptied by
 * every write (the site's change token, `onChange`): erasing a revision or an item leaves nothing
 * of its words here, in this process at once and in the others before their next answer. A render
 * begun before an emptying is not kept.
 */
export class RenderedContentCache {
  private readonly entries = new Map<string, Entry>();
  private kept = 0;
  private generation = 0;
  private sweep: NodeJS.Timeout | undefined;

  constructor(private readonly maxBytes: number) {}

  /** What the kept renders count for, in bytes. */
  get bytes(): number {
    return this.kept;
  }

  get(key: string): RenderedFields | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expires <= Date.now()) {
      this.kept -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.rendered;
  }

  /** The moment a render starts, for `set`. */
  get current(): number {
    return this.generation;
  }

  set(key: string, startedAt: number, rendered: RenderedFields): void {
    const bytes = 2 * (key.length + (rendered.content?.length ?? 0) + (rendered.excerpt?.length ?? 0));
    if (startedAt !== this.generation || bytes > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.kept -= previous.bytes;
    }
    this.entries.set(key, { rendered, bytes, expires: Date.now() + RENDER_CACHE_TTL_MS });
    this.kept += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.kept <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.kept -= entry.bytes;
    }
    this.sweep ??= setInterval(() => this.dropExpired(), RENDER_CACHE_TTL_MS / 4).unref();
  }

  clear(): void {
    this.entries.clear();
    this.kept = 0;
    this.generation++;
    this.stopSweeping();
  }

  private dropExpired(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (entry.expires > now) continue;
      this.entries.delete(key);
      this.kept -= entry.bytes;
    }
    if (this.entries.size === 0) this.stopSweeping();
  }

  private stopSweeping(): void {
    clearInterval(this.sweep);
    this.sweep = undefined;
  }
}
