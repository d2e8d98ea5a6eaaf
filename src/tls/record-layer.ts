import { AlertDescription, type AlertName, ContentType } from "./constants";
import type { RecordCipher } from "./record";
import { type PlainRecord, RecordReader } from "./record-reader";
import { RecordWriter } from "./record-writer";

export type { PlainRecord } from "./record-reader";

/**
 * The record layer over the raw tunnel bytes (RFC 8446 §5): the receiving half reassembles
 * records across TCP segments and opens them with the current read key; the sending half
 * cuts content into records of at most 2^14 bytes and seals them with the current write key.
 * Both keep several AEAD operations in flight and deliver strictly in record order. Sends,
 * key changes and the close are one ordered queue, so a KeyUpdate answered from the reading
 * side cannot interleave with application data being sealed.
 */
export class RecordLayer {
  private readonly incoming: RecordReader;
  private readonly outgoing: RecordWriter;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, writer: WritableStreamDefaultWriter<Uint8Array>) {
    this.incoming = new RecordReader(reader);
    this.outgoing = new RecordWriter(writer);
  }

  /** The key records are opened with from the next unconsumed record on (a key change falls on a record boundary). */
  get readCipher(): RecordCipher | null {
    return this.incoming.cipher;
  }

  set readCipher(cipher: RecordCipher | null) {
    this.incoming.cipher = cipher;
  }

  /** The next record, unprotected if a read cipher is set; null at the end of the raw stream. */
  read(): Promise<PlainRecord | null> {
    return this.incoming.read();
  }

  /** Sends `content` of `type`, split into records of at most 2^14 bytes; resolves once written. */
  send(type: number, content: Uint8Array): Promise<void> {
    return this.outgoing.send(type, content);
  }

  /** Application data, coalesced with the writes around it into full records (see RecordWriter.write). */
  write(content: Uint8Array): Promise<void> {
    return this.outgoing.write(content);
  }

  /** Why sending failed, once it has (a buffered write's failure surfaces here); null otherwise. */
  get writeError(): unknown {
    return this.outgoing.error;
  }

  /** Sends, then switches the write cipher, with nothing else sealed in between. */
  sendThenRekey(type: number, content: Uint8Array, next: () => Promise<RecordCipher>): Promise<void> {
    void this.outgoing.send(type, content).catch(() => undefined); // its failure also fails the switch
    return this.outgoing.switchCipher(next);
  }

  /** Switches the write cipher after everything already queued has been sealed. */
  setWriteCipher(cipher: RecordCipher): Promise<void> {
    return this.outgoing.switchCipher(cipher);
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
    await this.outgoing.close().catch(() => undefined);
  }

  /** Stops reading the raw stream (the consumer cancelled); never throws. */
  async abortReading(reason: unknown): Promise<void> {
    await this.incoming.cancel(reason);
  }

  /** Tears the raw stream down in both directions; never throws. */
  async abort(reason: unknown): Promise<void> {
    await Promise.allSettled([this.incoming.cancel(reason), this.outgoing.abort(reason)]);
  }
}
