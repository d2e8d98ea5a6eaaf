/**
 * The proxy's bounds on what one client can make it hold: every number here is a
 * row of docs/limits.md. A request past a bound is refused with a code, never buffered on.
 */

/** Request heads larger than this, leading empty lines included, are refused (16 KiB). */
export const HEAD_LIMIT = 16 * 1024;
/** The largest body a guest request may carry, and the largest upstream body /v0/fetch buffers. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Chunks per chunked body: each costs a line parse however small it is. */
export const DEFAULT_MAX_CHUNKS = 65_536;
/** One chunk-size line (size and extensions). */
export const CHUNK_LINE_LIMIT = 1024;
/** Chunk extensions are read and dropped; their bytes over a whole body are bounded like trailers. */
export const CHUNK_EXTENSIONS_LIMIT = 16 * 1024;
/** Trailer lines over a whole body. */
export const TRAILER_LIMIT = 16 * 1024;
/** Bytes all in-flight request bodies (and /v0/fetch's buffered upstream bodies) may hold together. */
export const DEFAULT_BODY_BUDGET_BYTES = 64 * 1024 * 1024;

export interface BodyLimits {
  maxBodyBytes: number;
  maxChunks: number;
}

/**
 * Memory shared by every connection of one proxy: a request body is reserved here before it is
 * held, so many clients each under the per-request bound still cannot add up to an exhausted heap.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity <= 0) throw new RangeError(`a byte budget must be a positive integer, not ${capacity}`);
  }

  get held(): number {
    return this.used;
  }

  /** Takes `n` bytes if they fit; false (and nothing taken) if not. */
  take(n: number): boolean {
    if (n <= 0) return true;
    if (this.used + n > this.capacity) return false;
    this.used += n;
    return true;
  }

  get free(): number {
    return this.capacity - this.used;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

/** One exchange's share of the budget: grows as its buffers do, all given back when the exchange ends. */
export class BudgetLease {
  private taken = 0;
  private released = false;

  constructor(private readonly budget: ByteBudget) {}

  get held(): number {
    return this.taken;
  }

  /** Takes `n` more bytes for this exchange; false when they do not fit, or once the lease was released. */
  grow(n: number): boolean {
    // A read abandoned at a timeout may still run after its exchange ended: it must not take what nobody gives back.
    if (this.released || !this.budget.take(n)) return false;
    this.taken += Math.max(0, n);
    return true;
  }

  release(): void {
    this.released = true;
    this.budget.give(this.taken);
    this.taken = 0;
  }
}

/** What growing buffers report, so tests can assert work and memory are linear in the input. */
export interface GrowthStats {
  /** Bytes copied in total (appends and re-allocations). */
  copied: number;
  /** Bytes allocated in total. */
  allocated: number;
}

/**
 * A body copied into one buffer that doubles as it fills (never a list of views: a view per
 * chunk pins each chunk's memory and costs an object per chunk, which is how 1-byte chunks
 * exhausted the heap). Capacity is reserved from the lease before it is allocated.
 */
export class BodyBuffer {
  private bytes = new Uint8Array(0);
  private length = 0;
  readonly stats: GrowthStats = { copied: 0, allocated: 0 };

  /**
   * `exact`: the size is known and already reserved (a Content-Length), so the first byte
   * allocates all of it: one allocation instead of a doubling series, whose garbage made the
   * garbage collector pause the whole proxy under a flood of large bodies.
   */
  constructor(
    private readonly maxBytes: number,
    private readonly lease: BudgetLease | null,
    private readonly exact = false,
  ) {}

  get size(): number {
    return this.length;
  }

  /** Appends a copy of `part`: "ok", or which bound it would cross (nothing appended then). */
  append(part: Uint8Array): "ok" | "too-large" | "budget" {
    return this.appendRange(part, 0, part.length);
  }

  /** Appends a copy of `source[from, to)` (no view made): "ok", or which bound it would cross. */
  appendRange(source: Uint8Array, from: number, to: number): "ok" | "too-large" | "budget" {
    const count = to - from;
    const needed = this.length + count;
    if (needed > this.maxBytes) return "too-large";
    if (needed > this.bytes.length) {
      const capacity = this.exact ? this.maxBytes : Math.min(this.maxBytes, Math.max(needed, this.bytes.length * 2, 1024));
      if (this.lease && !this.lease.grow(capacity - this.bytes.length)) return "budget";
      const next = new Uint8Array(capacity);
      next.set(this.bytes.subarray(0, this.length));
      this.stats.copied += this.length;
      this.stats.allocated += capacity;
      this.bytes = next;
    }
    if (count <= 16) {
      // A native set() costs more than the copy for a few bytes (a flood of 1-byte chunks).
      for (let i = 0; i < count; i++) this.bytes[this.length + i] = source[from + i]!;
    } else this.bytes.set(source.subarray(from, to), this.length);
    this.length += count;
    this.stats.copied += count;
    return "ok";
  }

  /** The body (a view of the buffer: the buffer is not used again). */
  result(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/**
 * Client connections the proxy serves at once (a CONNECT tunnel is its client connection).
 * One more is answered 503 `too-many-connections` at once, before its head is read, and
 * closed: a client that opens sockets and sends nothing cannot make the proxy hold them all
 * until the head timeout.
 */
export const DEFAULT_MAX_CONNECTIONS = 256;
