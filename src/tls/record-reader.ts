import { ContentType, MAX_PLAINTEXT } from "./constants";
import { protocolError } from "./failure";
import { checkRecordHeader, RECORD_HEADER_LENGTH, type RecordCipher, unpadInner, type WireRecord } from "./record";

/** A record's content after protection is removed: the real type and the bytes. */
export interface PlainRecord {
  type: number;
  content: Uint8Array;
  /** False for a record that arrived unprotected (the ClientHello, a CCS, an early plaintext alert). */
  protected: boolean;
}

/**
 * How many whole records may wait, parsed and being opened, ahead of the consumer. It bounds
 * the read-ahead (so backpressure still reaches the peer's TCP window) and is the number of
 * AEAD operations in flight at once.
 */
export const READ_AHEAD_RECORDS = 16;

type Opened = { ok: true; inner: Uint8Array } | { ok: false; error: unknown };

interface QueuedRecord {
  record: WireRecord;
  /** The cipher its opening was started with; null while not started (or unprotected). */
  cipher: RecordCipher | null;
  opening: Promise<Opened> | null;
}

const EMPTY = new Uint8Array(0);

/**
 * A first-in first-out queue whose shift is O(1): one chunk can hold thousands of tiny
 * records, and Array.prototype.shift on a large array moves every element each time.
 */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  at(index: number): T | undefined {
    return this.items[this.head + index];
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/**
 * Received bytes as the chunks they came in; a record is copied only when it spans chunks.
 * Consumed chunks are skipped by an index and compacted now and then, never shifted one by
 * one, so a record arriving a byte per chunk costs work linear in its size.
 */
export class ChunkQueue {
  private chunks: Uint8Array[] = [];
  /** Index of the first chunk not yet consumed. */
  private head = 0;
  /** Bytes of `chunks[head]` already consumed. */
  private offset = 0;
  length = 0;
  /** Bytes copied so far (records spanning chunks): at most the bytes taken. */
  copied = 0;

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  byteAt(index: number): number {
    let i = index + this.offset;
    for (let c = this.head; c < this.chunks.length; c++) {
      const chunk = this.chunks[c]!;
      if (i < chunk.length) return chunk[i]!;
      i -= chunk.length;
    }
    throw new RangeError("byteAt past the end");
  }

  /** The next `n` bytes: a view when they sit in one chunk, else one copy. Zero bytes are an empty view. */
  take(n: number): Uint8Array {
    if (n > this.length) throw new RangeError(`take(${n}) with ${this.length} bytes held`);
    if (n === 0) return new Uint8Array(0);
    const first = this.chunks[this.head]!;
    let out: Uint8Array;
    if (first.length - this.offset >= n) {
      out = first.subarray(this.offset, this.offset + n);
      this.offset += n;
    } else {
      out = new Uint8Array(n);
      this.copied += n;
      let filled = 0;
      while (filled < n) {
        const chunk = this.chunks[this.head]!;
        const part = Math.min(n - filled, chunk.length - this.offset);
        out.set(chunk.subarray(this.offset, this.offset + part), filled);
        filled += part;
        this.offset += part;
        if (this.offset === chunk.length) this.advance();
      }
    }
    if (this.head < this.chunks.length && this.offset === this.chunks[this.head]!.length) this.advance();
    this.length -= n;
    return out;
  }

  private advance(): void {
    this.chunks[this.head] = EMPTY; // let the consumed chunk go
    this.head++;
    this.offset = 0;
    if (this.head === this.chunks.length) {
      this.chunks = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * The receiving half of the record layer. It reads the raw stream ahead of the consumer by
 * at most READ_AHEAD_RECORDS whole records, parses every record a chunk holds, and starts
 * opening each protected one at once, so several decryptions run while the consumer takes
 * them in order. TLS 1.3 hides a record's real type until it is opened, so the records after
 * a KeyUpdate (or the client Finished) are first opened with the old key: when the cipher
 * changes, every opening not yet consumed is discarded and started again, in order, under the
 * new one (which starts at sequence 0), so no record is ever judged by a key it was not
 * sealed with.
 */
export class RecordReader {
  private readonly input = new ChunkQueue();
  private readonly queue = new Fifo<QueuedRecord>();
  private current: RecordCipher | null = null;
  /** An error to raise once the records before it are consumed (a bad header, a read error). */
  private failure: unknown = null;
  private ended = false;
  private reading = false;
  private wake: (() => void) | null = null;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  get cipher(): RecordCipher | null {
    return this.current;
  }

  /** Switches the read key at the current record boundary; read-ahead openings are redone. */
  set cipher(next: RecordCipher | null) {
    this.current = next;
    // Openings are only ever started within the first READ_AHEAD_RECORDS, and records only
    // move forward, so no record further back has one to undo.
    for (let i = 0; i < Math.min(this.queue.length, READ_AHEAD_RECORDS); i++) {
      const queued = this.queue.at(i)!;
      queued.cipher = null;
      queued.opening = null; // settles unobserved: an Opened never rejects
    }
    this.startOpenings();
  }

  /** The next record, unprotected if a read cipher is set; null at the end of the raw stream. */
  async read(): Promise<PlainRecord | null> {
    for (;;) {
      const head = this.queue.at(0);
      if (head) {
        if (this.current === null || head.record.type !== ContentType.applicationData) {
          this.queue.shift();
          this.fill();
          return this.unprotected(head.record);
        }
        this.startOpenings(); // the head is always within the read-ahead, so this starts its opening
        const { cipher, opening } = head;
        if (opening === null) throw new TypeError("the next protected record was not being opened");
        const opened = await opening;
        if (this.queue.at(0) !== head) continue; // dropped by cancel() meanwhile
        if (head.cipher !== cipher || cipher !== this.current) continue; // the key changed meanwhile: reopened
        this.queue.shift();
        this.fill();
        if (!opened.ok) throw opened.error;
        const { type, content } = unpadInner(opened.inner);
        return { type, content, protected: true };
      }
      if (this.failure !== null) throw this.failure;
      if (this.ended) return null;
      const woken = new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.fill();
      await woken;
    }
  }

  /** Stops reading the raw stream; never throws. */
  async cancel(reason: unknown): Promise<void> {
    this.ended = true;
    this.queue.clear();
    await this.reader.cancel(reason).catch(() => undefined);
  }

  private unprotected(record: WireRecord): PlainRecord {
    // CCS and alerts may arrive unprotected around the key change (Appendix D.4; a client
    // that rejects our ServerHello has no keys yet); everything else must be protected.
    if (this.current !== null && record.type === ContentType.handshake)
      throw protocolError("unexpected_message", "an unprotected handshake record after the key change");
    if (
      record.type !== ContentType.applicationData &&
      record.type !== ContentType.changeCipherSpec &&
      record.fragment.length > MAX_PLAINTEXT
    )
      throw protocolError("record_overflow", `plaintext record of ${record.fragment.length} bytes exceeds 2^14`);
    // Zero-length records: application_data may be empty (RFC 8446 §5.1); a handshake or
    // change_cipher_spec record may not; an alert of no bytes is a malformed alert.
    if (record.fragment.length === 0 && record.type === ContentType.alert)
      throw protocolError("decode_error", "a zero-length alert record");
    if (record.fragment.length === 0 && record.type !== ContentType.applicationData)
      throw protocolError("unexpected_message", "a zero-length record of a type that forbids it");
    return { type: record.type, content: record.fragment, protected: false };
  }

  /** Starts opening, in record order, the queued protected records not yet started, READ_AHEAD_RECORDS at most. */
  private startOpenings(): void {
    const cipher = this.current;
    if (cipher === null) return;
    // A chunk of many tiny records is parsed at once; only the first few are opened ahead.
    const ahead = Math.min(this.queue.length, READ_AHEAD_RECORDS);
    for (let i = 0; i < ahead; i++) {
      const queued = this.queue.at(i)!;
      if (queued.opening || queued.record.type !== ContentType.applicationData) continue;
      queued.cipher = cipher;
      queued.opening = cipher.openInner(queued.record).then(
        (inner): Opened => ({ ok: true, inner }),
        (error: unknown): Opened => ({ ok: false, error }),
      );
    }
  }

  /** Reads raw chunks in the background until READ_AHEAD_RECORDS records wait or the stream ends. */
  private fill(): void {
    if (this.reading || this.ended || this.failure !== null || this.queue.length >= READ_AHEAD_RECORDS) return;
    this.reading = true;
    void this.readChunks();
  }

  private async readChunks(): Promise<void> {
    try {
      while (!this.ended && this.failure === null && this.queue.length < READ_AHEAD_RECORDS) {
        const { value, done } = await this.reader.read();
        if (done) {
          if (!this.ended && this.input.length > 0)
            this.failure = protocolError("decode_error", `the stream ended inside a record (${this.input.length} bytes)`);
          this.ended = true;
          break;
        }
        if (this.ended) break; // cancelled while the read was pending
        if (value.length === 0) continue;
        this.input.push(value);
        this.parse();
        this.startOpenings();
        this.notify();
      }
    } catch (error) {
      if (!this.ended) this.failure = error;
    } finally {
      this.reading = false;
      this.notify();
    }
  }

  /** Moves every whole record out of the received bytes; a bad header is kept as the failure. */
  private parse(): void {
    const input = this.input;
    try {
      while (input.length >= RECORD_HEADER_LENGTH) {
        const type = input.byteAt(0);
        const version = (input.byteAt(1) << 8) | input.byteAt(2);
        const length = (input.byteAt(3) << 8) | input.byteAt(4);
        checkRecordHeader(type, version, length);
        if (input.length < RECORD_HEADER_LENGTH + length) return;
        input.take(RECORD_HEADER_LENGTH);
        this.queue.push({ record: { type, version, fragment: input.take(length) }, cipher: null, opening: null });
      }
    } catch (error) {
      this.failure = error;
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
