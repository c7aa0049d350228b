// A short-lived cache of fetched documents for one session, so reading on with an offset (or
// fetching the same page twice) costs no second download. Bounded by age, count and bytes.

export interface CacheLimits {
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
}

interface Entry<V> {
  value: V;
  bytes: number;
  storedAt: number;
}

export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;

  constructor(
    private readonly limits: CacheLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.storedAt > this.limits.ttlMs) {
      this.delete(key);
      return undefined;
    }
    // Most recently used last, so eviction takes the oldest use first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, bytes: number): void {
    if (this.limits.ttlMs <= 0 || bytes > this.limits.maxBytes) return;
    this.delete(key);
    this.entries.set(key, { value, bytes, storedAt: this.now() });
    this.bytes += bytes;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }
}
