import { concatBytes } from "../bytes";
import { AlertDescription, type AlertName, ContentType, LEGACY_VERSION, MAX_PLAINTEXT } from "./constants";
import { protocolError } from "./failure";
import { parseRecord, type RecordCipher, serializeRecord, type WireRecord } from "./record";

/** A record's content after protection is removed: the real type and the bytes. */
export interface PlainRecord {
  type: number;
  content: Uint8Array;
  /** False for a record that arrived unprotected (the ClientHello, a CCS, an early plaintext alert). */
  protected: boolean;
}

/**
 * The record layer over the raw tunnel bytes: reassembles records across TCP segments,
 * removes and applies protection with the current cipher of each direction, and fragments
 * outgoing content into records of at most 2^14 bytes. Writes are serialized, so a KeyUpdate
 * answered from the reading side cannot interleave with application data being sealed.
 */
export class RecordLayer {
  readCipher: RecordCipher | null = null;
  private writeCipher: RecordCipher | null = null;
  private buffered: Uint8Array = new Uint8Array(0);
  private sending: Promise<unknown> = Promise.resolve();
  private writerClosed = false;

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly writer: WritableStreamDefaultWriter<Uint8Array>,
  ) {}

  /** Bytes received but not yet consumed as records (a key change must fall on a record boundary). */
  get pendingBytes(): number {
    return this.buffered.length;
  }

  /** The next record, unprotected if a read cipher is set; null at the end of the raw stream. */
  async read(): Promise<PlainRecord | null> {
    for (;;) {
      const parsed = parseRecord(this.buffered);
      if (parsed) {
        this.buffered = this.buffered.subarray(parsed.size);
        return this.unprotect(parsed.record);
      }
      const { value, done } = await this.reader.read();
      if (done) {
        if (this.buffered.length > 0)
          throw protocolError("decode_error", `the stream ended inside a record (${this.buffered.length} bytes)`);
        return null;
      }
      if (value.length > 0) this.buffered = this.buffered.length === 0 ? value : concatBytes(this.buffered, value);
    }
  }

  private async unprotect(record: WireRecord): Promise<PlainRecord> {
    // CCS and alerts may arrive unprotected around the key change (Appendix D.4; a client
    // that rejects our ServerHello has no keys yet); everything else must be protected.
    if (this.readCipher === null || record.type !== ContentType.applicationData) {
      if (this.readCipher !== null && record.type === ContentType.handshake)
        throw protocolError("unexpected_message", "an unprotected handshake record after the key change");
      if (
        record.type !== ContentType.applicationData &&
        record.type !== ContentType.changeCipherSpec &&
        record.fragment.length > MAX_PLAINTEXT
      )
        throw protocolError("record_overflow", `plaintext record of ${record.fragment.length} bytes exceeds 2^14`);
      if (record.fragment.length === 0 && record.type !== ContentType.applicationData)
        throw protocolError("unexpected_message", "a zero-length record of a type that forbids it");
      return { type: record.type, content: record.fragment, protected: false };
    }
    const opened = await this.readCipher.open(record);
    return { ...opened, protected: true };
  }

  /** Runs `step` after every earlier send has finished; a failed send does not block later ones. */
  private enqueue<T>(step: () => Promise<T>): Promise<T> {
    const run = this.sending.then(step, step);
    this.sending = run.catch(() => undefined);
    return run;
  }

  /** Sends `content` of `type`, split into records of at most 2^14 bytes, in one raw write. */
  send(type: number, content: Uint8Array): Promise<void> {
    return this.enqueue(() => this.sendNow(type, content));
  }

  /** Sends, then switches the write cipher, with nothing else sealed in between. */
  sendThenRekey(type: number, content: Uint8Array, next: () => Promise<RecordCipher>): Promise<void> {
    return this.enqueue(async () => {
      await this.sendNow(type, content);
      this.writeCipher = await next();
    });
  }

  /** Switches the write cipher after everything already queued has been sealed. */
  setWriteCipher(cipher: RecordCipher): Promise<void> {
    return this.enqueue(async () => {
      this.writeCipher = cipher;
    });
  }

  private async sendNow(type: number, content: Uint8Array): Promise<void> {
    if (this.writerClosed) throw protocolError("internal_error", "write after the tunnel was closed");
    const chunks = content.length === 0 ? [content] : [];
    for (let at = 0; at < content.length; at += MAX_PLAINTEXT) chunks.push(content.subarray(at, at + MAX_PLAINTEXT));
    // seal() takes its sequence number synchronously, so the records can be sealed concurrently.
    const cipher = this.writeCipher;
    const sealed = await Promise.all(
      chunks.map((chunk) => (cipher ? cipher.seal(type, chunk) : { type, version: LEGACY_VERSION, fragment: chunk })),
    );
    const records = sealed.map(serializeRecord);
    await this.writer.write(records.length === 1 ? records[0]! : concatBytes(...records));
  }

  /** Sends an alert (fatal unless close_notify or user_canceled); never throws. */
  async sendAlert(alert: AlertName): Promise<void> {
    const level = alert === "close_notify" || alert === "user_canceled" ? 1 : 2;
    try {
      await this.send(ContentType.alert, Uint8Array.of(level, AlertDescription[alert]));
    } catch {
      // The peer may already be gone; the verdict is logged regardless.
    }
  }

  /** Closes the raw writable after queued sends; idempotent, never throws. */
  async closeWriter(): Promise<void> {
    await this.enqueue(async () => {
      if (this.writerClosed) return;
      this.writerClosed = true;
      await this.writer.close();
    }).catch(() => undefined);
  }

  /** Stops reading the raw stream (the consumer cancelled); never throws. */
  async abortReading(reason: unknown): Promise<void> {
    await this.reader.cancel(reason).catch(() => undefined);
  }

  /** Tears the raw stream down in both directions; never throws. */
  async abort(reason: unknown): Promise<void> {
    this.writerClosed = true;
    await Promise.allSettled([this.reader.cancel(reason), this.writer.abort(reason)]);
  }
}
