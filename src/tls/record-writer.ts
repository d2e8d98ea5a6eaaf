import { type Deferred, deferred as deferredPromise } from "../platform";
import { ContentType, LEGACY_VERSION, MAX_PLAINTEXT } from "./constants";
import { protocolError } from "./failure";
import { RECORD_HEADER_LENGTH, type RecordCipher } from "./record";

/**
 * How many records may be cut and not yet handed to the raw stream: the number of AEAD
 * operations in flight at once, and (with one raw write in progress) the bound on the
 * ciphertext this side holds.
 */
export const WRITE_WINDOW_RECORDS = 16;

/** Sealed records handed to the raw stream per write when more are already being sealed. */
export const WRITE_BATCH_RECORDS = 8;

/** A write's completion: whoever asked awaits it; nobody else must see an unhandled rejection. */
function deferred(): Deferred {
  const done = deferredPromise();
  done.promise.catch(() => undefined);
  return done;
}

/** Content of one type waiting to be cut into records, kept as the caller's chunks. */
interface ContentStep {
  kind: "content";
  type: number;
  parts: Uint8Array[];
  /** Bytes of parts[0] already cut. */
  offset: number;
  /** parts[borrowed..] are still the caller's buffers; the earlier ones are our copies. */
  borrowed: number;
  bytes: number;
  /** Application data from write(): later writes join it, and a short tail may wait for them. */
  coalescing: boolean;
  /** A send() of no bytes still sends one (empty) record. */
  emptyRecord: boolean;
  /** Resolved once its last record was handed to the raw stream (send() only). */
  done: Deferred | null;
}

type Step =
  | ContentStep
  | { kind: "cipher"; next: RecordCipher | (() => Promise<RecordCipher>); done: Deferred }
  | { kind: "close"; done: Deferred };

interface OutRecord {
  type: number;
  /** The fragment on the wire; null while it is being sealed. */
  fragment: Uint8Array | null;
  sealing: Promise<void> | null;
  done: Deferred | null;
}

type OutEntry = OutRecord | { close: Deferred };

/**
 * The sending half of the record layer. Application data written in any sizes is cut into
 * records of up to 2^14 bytes (RFC 8446 §5.1), each sealed as soon as it is cut, with up to
 * WRITE_WINDOW_RECORDS seals in flight; sealed records go to the raw stream in order, as many
 * per raw write as are ready. A record shorter than 2^14 is cut at once when nothing else is
 * in flight (an interactive write is never delayed) and otherwise waits for the pipeline to
 * drain, so that writes arriving meanwhile fill it: coalescing without a timer. Handshake
 * messages, alerts and key changes are steps in the same order, so nothing is sealed with a
 * key it does not belong to and the sequence numbers are those the peer expects.
 */
export class RecordWriter {
  private cipher: RecordCipher | null = null;
  private readonly steps: Step[] = [];
  private readonly out: OutEntry[] = [];
  /** Application-data bytes not yet cut into records. */
  private queuedBytes = 0;
  private readonly roomWaiters: Deferred[] = [];
  private writing = false;
  private switching = false;
  private closing: Promise<void> | null = null;
  private failure: unknown = null;
  /** TLSInnerPlaintext is built here; WebCrypto copies it, so one buffer serves every record. */
  private readonly inner = new Uint8Array(MAX_PLAINTEXT + 1);

  constructor(private readonly writer: WritableStreamDefaultWriter<Uint8Array>) {}

  /** Why sending stopped (a raw write or a seal failed, or an abort); null while healthy. */
  get error(): unknown {
    return this.failure;
  }

  /**
   * Application data, coalesced into full records. Resolves once the chunk's bytes are
   * being sealed or copied (so the caller may reuse its buffer) and less than one record's
   * worth waits; a failed raw write rejects the next call.
   */
  write(content: Uint8Array): Promise<void> {
    const refused = this.refusal();
    if (refused) return refused;
    if (content.length === 0) return Promise.resolve();
    const last = this.steps.at(-1);
    if (last?.kind === "content" && last.coalescing) {
      last.parts.push(content);
      last.bytes += content.length;
    } else {
      this.steps.push(contentStep(ContentType.applicationData, content, true, null));
    }
    this.queuedBytes += content.length;
    this.pump();
    if (this.queuedBytes < MAX_PLAINTEXT) {
      this.adoptBorrowed();
      return Promise.resolve();
    }
    const room = deferred();
    this.roomWaiters.push(room);
    return room.promise;
  }

  /** Sends `content` of `type` (split into records of at most 2^14); resolves once written. */
  send(type: number, content: Uint8Array): Promise<void> {
    const refused = this.refusal();
    if (refused) return refused;
    const done = deferred();
    this.steps.push(contentStep(type, content, false, done));
    this.pump();
    return done.promise;
  }

  /** Switches the cipher after everything queued before; `next` may still be being derived. */
  switchCipher(next: RecordCipher | (() => Promise<RecordCipher>)): Promise<void> {
    const refused = this.refusal();
    if (refused) return refused;
    const done = deferred();
    this.steps.push({ kind: "cipher", next, done });
    this.pump();
    return done.promise;
  }

  /** Closes the raw writable once everything queued is written; idempotent. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    if (this.failure !== null) return Promise.reject(this.failure);
    const done = deferred();
    this.steps.push({ kind: "close", done });
    this.closing = done.promise;
    this.pump();
    return done.promise;
  }

  /** Stops sending: everything queued fails with `reason`; the raw writable is aborted. */
  async abort(reason: unknown): Promise<void> {
    this.fail(reason);
    this.closing ??= Promise.resolve();
    await this.writer.abort(reason).catch(() => undefined);
  }

  private refusal(): Promise<never> | null {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(protocolError("internal_error", "write after the tunnel was closed"));
    return null;
  }

  /** Moves queued work forward as far as the window and the key changes allow. */
  private pump(): void {
    while (this.failure === null && !this.switching) {
      const step = this.steps[0];
      if (!step) break;
      if (step.kind === "content") {
        if (!this.cut(step)) break;
      } else if (step.kind === "cipher") {
        if (typeof step.next === "function") {
          this.switching = true;
          step.next().then(
            (cipher) => {
              this.switching = false;
              this.cipher = cipher;
              step.done.resolve();
              this.pump();
            },
            (error: unknown) => {
              this.switching = false;
              this.fail(error);
            },
          );
          this.steps.shift();
          break;
        }
        this.cipher = step.next;
        step.done.resolve();
      } else {
        this.out.push({ close: step.done });
      }
      this.steps.shift();
    }
    this.releaseWriters();
    this.startWriting();
  }

  /** Cuts the step into records while the window has room; true once it is all cut. */
  private cut(step: ContentStep): boolean {
    while (step.bytes > 0 || step.emptyRecord) {
      if (this.out.length >= WRITE_WINDOW_RECORDS) return false;
      const busy = this.out.length > 0 || this.writing;
      if (step.coalescing && step.bytes < MAX_PLAINTEXT && this.steps.length === 1 && busy) return false;
      const length = Math.min(step.bytes, MAX_PLAINTEXT);
      step.emptyRecord = false;
      if (step.coalescing) this.queuedBytes -= length;
      const record = this.cipher
        ? this.seal(step, length, this.cipher)
        : { type: step.type, fragment: take(step, length, null), sealing: null, done: null };
      if (step.bytes === 0) record.done = step.done;
      this.out.push(record);
    }
    return true;
  }

  private seal(step: ContentStep, length: number, cipher: RecordCipher): OutRecord {
    const inner = this.inner.subarray(0, length + 1);
    take(step, length, inner);
    inner[length] = step.type;
    const record: OutRecord = { type: ContentType.applicationData, fragment: null, sealing: null, done: null };
    record.sealing = cipher.sealInner(inner).then(
      (sealed) => {
        record.fragment = new Uint8Array(sealed);
      },
      (error: unknown) => this.fail(error),
    );
    return record;
  }

  /** Once less than a record's worth of application data waits, writers may go on. */
  private releaseWriters(): void {
    if (this.roomWaiters.length === 0 || this.queuedBytes >= MAX_PLAINTEXT) return;
    this.adoptBorrowed();
    for (const room of this.roomWaiters.splice(0)) room.resolve();
  }

  /** Copies the uncut bytes still in writers' buffers: their write() is about to resolve. */
  private adoptBorrowed(): void {
    for (const step of this.steps) {
      if (step.kind !== "content" || !step.coalescing || step.borrowed >= step.parts.length) continue;
      const start = step.borrowed;
      let size = 0;
      for (let i = start; i < step.parts.length; i++) size += step.parts[i]!.length - (i === 0 ? step.offset : 0);
      const owned = new Uint8Array(size);
      let at = 0;
      for (let i = start; i < step.parts.length; i++) {
        const part = i === 0 ? step.parts[0]!.subarray(step.offset) : step.parts[i]!;
        owned.set(part, at);
        at += part.length;
      }
      step.parts.splice(start, step.parts.length - start, owned);
      if (start === 0) step.offset = 0;
      step.borrowed = step.parts.length;
    }
  }

  private startWriting(): void {
    if (this.writing || this.out.length === 0 || this.failure !== null) return;
    this.writing = true;
    void this.writeOut();
  }

  /** Hands sealed records to the raw stream in order, every ready one in one write. */
  private async writeOut(): Promise<void> {
    try {
      for (let head = this.out[0]; head && this.failure === null; head = this.out[0]) {
        if ("close" in head) {
          this.out.shift();
          await this.writer.close();
          head.close.resolve();
          continue;
        }
        if (head.fragment === null) {
          await head.sealing;
          continue;
        }
        let count = 0;
        let size = 0;
        for (const entry of this.out) {
          if ("close" in entry || entry.fragment === null) break;
          count++;
          size += RECORD_HEADER_LENGTH + entry.fragment.length;
        }
        // Seals finish one by one; rather than one raw write per record, wait for the records
        // already being sealed right behind (never for data not yet written) up to a batch.
        const next = this.out[count];
        if (count < WRITE_BATCH_RECORDS && next && !("close" in next) && next.sealing) {
          await next.sealing;
          continue;
        }
        const batch = this.out.splice(0, count) as OutRecord[];
        const bytes = new Uint8Array(size);
        let at = 0;
        for (const record of batch) {
          const fragment = record.fragment!;
          bytes[at] = record.type;
          bytes[at + 1] = LEGACY_VERSION >> 8;
          bytes[at + 2] = LEGACY_VERSION & 0xff;
          bytes[at + 3] = fragment.length >> 8;
          bytes[at + 4] = fragment.length & 0xff;
          bytes.set(fragment, at + RECORD_HEADER_LENGTH);
          at += RECORD_HEADER_LENGTH + fragment.length;
        }
        this.pump(); // the window has room again: seal more while this batch is written
        await this.writer.write(bytes);
        for (const record of batch) record.done?.resolve();
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.writing = false;
    }
    // Nothing is in flight any more: a short record held back for coalescing goes now.
    this.pump();
  }

  private fail(error: unknown): void {
    if (this.failure !== null) return;
    this.failure = error;
    for (const step of this.steps.splice(0)) step.done?.reject(error);
    for (const entry of this.out.splice(0)) ("close" in entry ? entry.close : entry.done)?.reject(error);
    for (const room of this.roomWaiters.splice(0)) room.reject(error);
  }
}

function contentStep(type: number, content: Uint8Array, coalescing: boolean, done: Deferred | null): ContentStep {
  return {
    kind: "content",
    type,
    parts: [content],
    offset: 0,
    borrowed: 0,
    bytes: content.length,
    coalescing,
    emptyRecord: content.length === 0,
    done,
  };
}

/** The step's next `length` bytes: copied into `into`, or (when null) a view if they sit in one part. */
function take(step: ContentStep, length: number, into: Uint8Array | null): Uint8Array {
  step.bytes -= length;
  if (length === 0) return into ?? new Uint8Array(0);
  const first = step.parts[0]!;
  if (into === null && first.length - step.offset >= length) {
    const view = first.subarray(step.offset, step.offset + length);
    advance(step, length);
    return view;
  }
  const out = into ?? new Uint8Array(length);
  for (let filled = 0; filled < length; ) {
    const part = step.parts[0]!;
    const n = Math.min(length - filled, part.length - step.offset);
    out.set(part.subarray(step.offset, step.offset + n), filled);
    filled += n;
    advance(step, n);
  }
  return out;
}

function advance(step: ContentStep, n: number): void {
  step.offset += n;
  if (step.offset === step.parts[0]!.length) {
    step.parts.shift();
    step.offset = 0;
    step.borrowed = Math.max(0, step.borrowed - 1);
  }
}
