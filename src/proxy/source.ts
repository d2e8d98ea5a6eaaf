/**
 * Incremental reads over a connection's readable side: the parser asks for "a head", "n
 * bytes" or "a line" and this pulls just enough chunks, keeping what is left over for the
 * next request (keep-alive, pipelining) or for a tunnel.
 *
 * Work is linear in the bytes received however they are split: unconsumed bytes live in one
 * buffer that doubles when full and is compacted in place (appending a 1-byte chunk never
 * copies what is already held), and a scan resumes where the last one stopped.
 */

export type HeadRead = { kind: "head"; bytes: Uint8Array } | { kind: "eof" } | { kind: "error"; reason: string };
export type LineRead = { kind: "line"; bytes: Uint8Array } | { kind: "error"; reason: string };

/** Counters for tests: work (bytes scanned, bytes copied) must stay linear in bytes received. */
export interface SourceStats {
  received: number;
  scanned: number;
  copied: number;
}

const CR = 0x0d;
const LF = 0x0a;
/** A buffer larger than this is dropped once empty, so an idle connection holds little. */
const KEEP_CAPACITY = 64 * 1024;

export class ByteSource {
  private buffer: Uint8Array = new Uint8Array(0);
  private start = 0;
  private end = 0;
  private ended = false;
  readonly stats: SourceStats = { received: 0, scanned: 0, copied: 0 };

  /** `onChunk` hears of every chunk read from the connection (the idle clock). */
  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly onChunk: () => void = () => undefined,
  ) {}

  /** Bytes read from the connection but not consumed yet (a pipelined request's start). */
  get buffered(): number {
    return this.end - this.start;
  }

  /** One chunk from the connection, or null at its end. */
  private async next(): Promise<Uint8Array | null> {
    if (this.ended) return null;
    const { value, done } = await this.reader.read();
    if (done) {
      this.ended = true;
      return null;
    }
    this.onChunk();
    this.stats.received += value.length;
    return value;
  }

  /** Pulls one more chunk into the buffer; false at the end of the stream. */
  private async fill(): Promise<boolean> {
    const chunk = await this.next();
    if (chunk === null) return false;
    this.keep(chunk);
    return true;
  }

  /** Copies `chunk` after the unconsumed bytes: compacts or doubles only when out of room. */
  private keep(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const held = this.end - this.start;
    if (this.buffer.length - this.end < chunk.length) {
      const needed = held + chunk.length;
      if (needed <= this.buffer.length / 2) {
        this.buffer.copyWithin(0, this.start, this.end);
      } else {
        const next = new Uint8Array(Math.max(needed * 2, 4096));
        next.set(this.buffer.subarray(this.start, this.end));
        this.buffer = next;
      }
      this.stats.copied += held;
      this.start = 0;
      this.end = held;
    }
    this.buffer.set(chunk, this.end);
    this.end += chunk.length;
    this.stats.copied += chunk.length;
  }

  /** Consumes `n` buffered bytes; the view is valid until the next read. */
  private take(n: number): Uint8Array {
    const out = this.buffer.subarray(this.start, this.start + n);
    this.start += n;
    if (this.start === this.end) this.emptied();
    return out;
  }

  /** Consumes `n` buffered bytes as a copy of their own (the buffer will be reused). */
  private takeCopy(n: number): Uint8Array {
    return this.take(n).slice();
  }

  private emptied(): void {
    this.start = 0;
    this.end = 0;
    if (this.buffer.length > KEEP_CAPACITY) this.buffer = new Uint8Array(0);
  }

  /**
   * A request head up to and including the empty line, at most `limit` bytes counting any
   * empty lines before the request line (RFC 9112 §2.2 lets a server skip them; it does not
   * make them free). Line endings are checked as bytes arrive: a CR must be followed by LF, an
   * LF must follow a CR (no bare CR, no bare LF).
   */
  async readHead(limit: number): Promise<HeadRead> {
    let scanned = 0; // offset from `start` of the next byte to judge
    let lineStart = 0;
    let skipped = 0; // leading empty lines already dropped, counted against `limit`
    for (;;) {
      while (this.start + scanned < this.end) {
        const at = this.start + scanned;
        const byte = this.buffer[at]!;
        if (byte === CR) {
          if (at + 1 >= this.end) break; // need the next byte to judge this CR
          if (this.buffer[at + 1] !== LF) return { kind: "error", reason: "bare CR in the request head" };
        } else if (byte === LF) {
          if (scanned === 0 || this.buffer[at - 1] !== CR)
            return { kind: "error", reason: "bare LF in the request head (lines end with CRLF)" };
          if (scanned - lineStart === 1) {
            if (lineStart === 0) {
              // A leading empty line: drop it, keep counting it.
              this.take(2);
              skipped += 2;
              scanned = 0;
              if (skipped > limit)
                return { kind: "error", reason: `the request head exceeds ${limit} bytes (empty lines before it count)` };
              continue;
            }
            return { kind: "head", bytes: this.takeCopy(scanned + 1) };
          }
          lineStart = scanned + 1;
        }
        scanned++;
        this.stats.scanned++;
        if (skipped + scanned > limit) return { kind: "error", reason: `the request head exceeds ${limit} bytes` };
      }
      if (!(await this.fill())) {
        return this.buffered === 0 && skipped === 0
          ? { kind: "eof" }
          : { kind: "error", reason: "the connection ended inside the request head" };
      }
    }
  }

  /**
   * Hands the next `n` bytes to `sink` in pieces, without keeping them: the sink must copy
   * what it wants before it returns. Stops early when `sink` returns false. "ended" when the
   * connection ends first.
   */
  async readInto(n: number, sink: (part: Uint8Array) => boolean): Promise<"done" | "stopped" | "ended"> {
    let needed = n;
    while (needed > 0) {
      if (this.buffered > 0) {
        const part = this.take(Math.min(needed, this.buffered));
        needed -= part.length;
        if (!sink(part)) return "stopped";
        continue;
      }
      const chunk = await this.next();
      if (chunk === null) return "ended";
      // Straight from the chunk to the sink; only what belongs to the next message is kept.
      const part = chunk.length > needed ? chunk.subarray(0, needed) : chunk;
      if (chunk.length > needed) this.keep(chunk.subarray(needed));
      needed -= part.length;
      if (part.length > 0 && !sink(part)) return "stopped";
    }
    return "done";
  }

  /** Exactly `n` bytes, or null when the stream ends first (for small reads: `n` is allocated up front). */
  async readExact(n: number): Promise<Uint8Array | null> {
    const out = new Uint8Array(n);
    let at = 0;
    const outcome = await this.readInto(n, (part) => {
      out.set(part, at);
      at += part.length;
      return true;
    });
    return outcome === "done" ? out : null;
  }

  /** One CRLF-terminated line without its CRLF, at most `limit` bytes; the view is valid until the next read. */
  async readLine(limit: number): Promise<LineRead> {
    let scanned = 0;
    for (;;) {
      const found = this.scanLine(limit, scanned);
      if (typeof found !== "number") return found;
      scanned = found;
      if (!(await this.fill())) return { kind: "error", reason: "the connection ended inside a chunked body" };
    }
  }

  /**
   * A line if one is already buffered, without waiting (the chunked reader's fast path: a
   * flood of tiny chunks costs no promise per chunk); null when more bytes are needed.
   */
  lineNow(limit: number): LineRead | null {
    const found = this.scanLine(limit, 0);
    return typeof found === "number" ? null : found;
  }

  /** Scans for a line's CRLF from offset `from`: the line, an error, or how far it got (resume there). */
  private scanLine(limit: number, from: number): LineRead | number {
    let scanned = from;
    while (this.start + scanned < this.end) {
      const at = this.start + scanned;
      const byte = this.buffer[at]!;
      if (byte === CR) {
        if (at + 1 >= this.end) return scanned;
        if (this.buffer[at + 1] !== LF) return { kind: "error", reason: "bare CR in a chunked body line" };
        const line = this.buffer.subarray(this.start, at);
        this.start = at + 2;
        if (this.start === this.end) {
          // The line stays readable: copy it out before the buffer can be dropped or reused.
          const copy = line.slice();
          this.emptied();
          return { kind: "line", bytes: copy };
        }
        return { kind: "line", bytes: line };
      }
      if (byte === LF) return { kind: "error", reason: "bare LF in a chunked body line" };
      scanned++;
      this.stats.scanned++;
      if (scanned > limit) return { kind: "error", reason: `a chunked body line exceeds ${limit} bytes` };
    }
    return scanned;
  }

  /** The buffered bytes, unconsumed (a view valid until the next read or `consume`), for parsers that scan in place. */
  peek(): Uint8Array {
    return this.buffer.subarray(this.start, this.end);
  }

  /** Consumes `n` bytes a `peek` showed, counting them as scanned once. */
  consume(n: number): void {
    this.stats.scanned += n;
    this.take(n);
  }

  /** Hands up to `n` already-buffered bytes to `sink` without waiting: how many it took, or -1 when the sink refused them. */
  takeNow(n: number, sink: (part: Uint8Array) => boolean): number {
    const count = Math.min(n, this.buffered);
    if (count === 0) return 0;
    return sink(this.take(count)) ? count : -1;
  }

  /**
   * Hands the rest of the connection over (to a tunnel): what is already buffered, then
   * everything the underlying reader yields. After this, this source must not be used.
   */
  rest(): ReadableStream<Uint8Array> {
    let pending: Uint8Array | null = this.buffered > 0 ? this.buffer.slice(this.start, this.end) : null;
    this.buffer = new Uint8Array(0);
    this.start = 0;
    this.end = 0;
    const { reader, ended, onChunk } = this;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (pending) {
          controller.enqueue(pending);
          pending = null;
          return;
        }
        if (ended) return controller.close();
        const { value, done } = await reader.read();
        if (done) return controller.close();
        onChunk();
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
  }
}
