import { concatBytes } from "../bytes";

/**
 * Incremental reads over a connection's readable side: the parser asks for "a head", "n
 * bytes" or "a line" and this pulls just enough chunks, keeping what is left over for the
 * next request (keep-alive, pipelining) or for a tunnel.
 */

export type HeadRead = { kind: "head"; bytes: Uint8Array } | { kind: "eof" } | { kind: "error"; reason: string };
export type LineRead = { kind: "line"; bytes: Uint8Array } | { kind: "error"; reason: string };

const CR = 0x0d;
const LF = 0x0a;

export class ByteSource {
  private buffer: Uint8Array = new Uint8Array(0);
  private ended = false;

  /** `onChunk` hears of every chunk read from the connection (the idle clock). */
  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly onChunk: () => void = () => undefined,
  ) {}

  /** Bytes read from the connection but not consumed yet (a pipelined request's start). */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Pulls one more chunk into the buffer; false at the end of the stream. */
  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const { value, done } = await this.reader.read();
    if (done) {
      this.ended = true;
      return false;
    }
    this.onChunk();
    if (value.length > 0) this.buffer = this.buffer.length === 0 ? value : concatBytes(this.buffer, value);
    return true;
  }

  private take(n: number): Uint8Array {
    const out = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    return out;
  }

  /**
   * A request head up to and including the empty line, at most `limit` bytes. Line endings
   * are checked as bytes arrive: a CR must be followed by LF, an LF must follow a CR (no bare
   * CR, no bare LF). Empty lines before the request line are skipped (RFC 9112 §2.2).
   */
  async readHead(limit: number): Promise<HeadRead> {
    let scanned = 0;
    let lineStart = 0;
    for (;;) {
      while (scanned < this.buffer.length) {
        const byte = this.buffer[scanned]!;
        if (byte === CR) {
          if (scanned + 1 >= this.buffer.length) break; // need the next byte to judge this CR
          if (this.buffer[scanned + 1] !== LF) return { kind: "error", reason: "bare CR in the request head" };
        } else if (byte === LF) {
          if (scanned === 0 || this.buffer[scanned - 1] !== CR)
            return { kind: "error", reason: "bare LF in the request head (lines end with CRLF)" };
          if (scanned - lineStart === 1) {
            if (lineStart === 0) {
              // A leading empty line: drop it and start again.
              this.take(2);
              scanned = 0;
              continue;
            }
            return { kind: "head", bytes: this.take(scanned + 1) };
          }
          lineStart = scanned + 1;
        }
        scanned++;
        if (scanned > limit) return { kind: "error", reason: `the request head exceeds ${limit} bytes` };
      }
      if (!(await this.fill())) {
        return this.buffer.length === 0 ? { kind: "eof" } : { kind: "error", reason: "the connection ended inside the request head" };
      }
    }
  }

  /** Exactly `n` bytes, or null when the stream ends first. */
  async readExact(n: number): Promise<Uint8Array | null> {
    if (n === 0) return new Uint8Array(0);
    const parts: Uint8Array[] = [];
    let needed = n;
    for (;;) {
      if (this.buffer.length > 0) {
        const part = this.take(Math.min(needed, this.buffer.length));
        parts.push(part);
        needed -= part.length;
        if (needed === 0) return parts.length === 1 ? parts[0]! : concatBytes(...parts);
      }
      if (!(await this.fill())) return null;
    }
  }

  /** One CRLF-terminated line without its CRLF, at most `limit` bytes. */
  async readLine(limit: number): Promise<LineRead> {
    let scanned = 0;
    for (;;) {
      while (scanned < this.buffer.length) {
        const byte = this.buffer[scanned]!;
        if (byte === CR) {
          if (scanned + 1 >= this.buffer.length) break;
          if (this.buffer[scanned + 1] !== LF) return { kind: "error", reason: "bare CR in a chunked body line" };
          const line = this.take(scanned);
          this.take(2);
          return { kind: "line", bytes: line };
        }
        if (byte === LF) return { kind: "error", reason: "bare LF in a chunked body line" };
        scanned++;
        if (scanned > limit) return { kind: "error", reason: `a chunked body line exceeds ${limit} bytes` };
      }
      if (!(await this.fill())) return { kind: "error", reason: "the connection ended inside a chunked body" };
    }
  }

  /**
   * Hands the rest of the connection over (to a tunnel): what is already buffered, then
   * everything the underlying reader yields. After this, this source must not be used.
   */
  rest(): ReadableStream<Uint8Array> {
    let pending: Uint8Array | null = this.buffer.length > 0 ? this.buffer : null;
    this.buffer = new Uint8Array(0);
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
