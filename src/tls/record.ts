import { ByteWriter } from "../bytes";
import { ContentType, LEGACY_VERSION, MAX_CIPHERTEXT, MAX_PLAINTEXT } from "./constants";
import { protocolError } from "./failure";
import type { TrafficKeys } from "./key-schedule";

/** One TLSPlaintext/TLSCiphertext record as it travels (RFC 8446 §5.1). */
export interface WireRecord {
  type: number;
  version: number;
  fragment: Uint8Array;
}

export const RECORD_HEADER_LENGTH = 5;
export const TAG_LENGTH = 16;

/** Serializes one record: type, legacy_record_version, u16 length, fragment. */
export function serializeRecord(record: WireRecord): Uint8Array {
  const w = new ByteWriter(RECORD_HEADER_LENGTH + record.fragment.length);
  w.u8(record.type).u16(record.version);
  const end = w.lengthPrefix(2);
  w.bytes(record.fragment);
  end();
  return w.finish();
}

/**
 * Checks a record header as soon as its 5 bytes are in. A length over the ciphertext limit is
 * record_overflow at once, so a hostile length never makes the reader wait for 64 KiB that
 * would never be valid.
 */
export function checkRecordHeader(type: number, version: number, length: number): void {
  if (type < ContentType.changeCipherSpec || type > ContentType.applicationData)
    throw protocolError("unexpected_message", `record of unknown content type ${type}: not TLS`);
  if (version >> 8 !== 0x03) throw protocolError("protocol_version", `record version 0x${version.toString(16)} is not TLS`);
  if (length > MAX_CIPHERTEXT) throw protocolError("record_overflow", `record of ${length} bytes exceeds 2^14+256`);
}

/** Parses one whole record from the start of `bytes`; returns null when more bytes are needed. */
export function parseRecord(bytes: Uint8Array): { record: WireRecord; size: number } | null {
  if (bytes.length < RECORD_HEADER_LENGTH) return null;
  const type = bytes[0]!;
  const version = (bytes[1]! << 8) | bytes[2]!;
  const length = (bytes[3]! << 8) | bytes[4]!;
  checkRecordHeader(type, version, length);
  const size = RECORD_HEADER_LENGTH + length;
  if (bytes.length < size) return null;
  return { record: { type, version, fragment: bytes.subarray(RECORD_HEADER_LENGTH, size) }, size };
}

/**
 * nonce = iv XOR the 64-bit record sequence number, left-padded to the IV length (§5.3),
 * written into `nonce` (reused for every record) and returned.
 */
export function writeRecordNonce(nonce: Uint8Array, iv: Uint8Array, sequence: number): Uint8Array {
  nonce.set(iv);
  const words = [Math.floor(sequence / 2 ** 32), sequence >>> 0]; // exact up to 2^53
  const tail = nonce.length - 8;
  for (let i = 0; i < 8; i++) nonce[tail + i]! ^= (words[i >> 2]! >>> (24 - 8 * (i & 3))) & 0xff;
  return nonce;
}

export const recordNonce = (iv: Uint8Array, sequence: number): Uint8Array => writeRecordNonce(new Uint8Array(iv.length), iv, sequence);

/** The last TLSInnerPlaintext byte that is not zero padding is the real content type (§5.2). */
export function unpadInner(inner: Uint8Array): { type: number; content: Uint8Array } {
  let end = inner.length - 1;
  while (end >= 0 && inner[end] === 0) end--;
  if (end < 0) throw protocolError("unexpected_message", "a protected record had no content type");
  if (end > MAX_PLAINTEXT) throw protocolError("record_overflow", `decrypted record of ${end} bytes exceeds 2^14`);
  return { type: inner[end]!, content: inner.subarray(0, end) };
}

/**
 * One direction's AEAD state: AES-128-GCM key, IV and sequence number. A new cipher (with
 * sequence 0) replaces it at every key change, as §5.3 requires.
 *
 * The nonce and the additional data live in two small buffers rewritten for every record:
 * WebCrypto copies every input before encrypt()/decrypt() return (W3C Web Cryptography API,
 * "get a copy of the bytes held by" in normalize-an-algorithm and in the methods' first
 * steps), so the caller may reuse them, and its own plaintext buffer, at once. The sequence
 * number is taken synchronously, so records may be sealed or opened concurrently: the call
 * order is the record order.
 */
export class RecordCipher {
  private sequence = 0;
  private readonly nonce: Uint8Array;
  private readonly additionalData = new Uint8Array(RECORD_HEADER_LENGTH);

  private constructor(
    private readonly key: CryptoKey,
    private readonly iv: Uint8Array,
  ) {
    this.nonce = new Uint8Array(iv.length);
  }

  static async create(keys: TrafficKeys): Promise<RecordCipher> {
    const key = await crypto.subtle.importKey("raw", keys.key as BufferSource, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
    return new RecordCipher(key, keys.iv);
  }

  /** The next record's nonce, in the shared nonce buffer; advances the sequence. */
  private nextNonce(): Uint8Array {
    return writeRecordNonce(this.nonce, this.iv, this.sequence++);
  }

  private header(type: number, version: number, length: number): Uint8Array {
    const h = this.additionalData;
    h[0] = type;
    h[1] = version >> 8;
    h[2] = version & 0xff;
    h[3] = length >> 8;
    h[4] = length & 0xff;
    return h;
  }

  /**
   * Starts protecting one TLSInnerPlaintext (content, then the real type byte): resolves to
   * the application_data record's fragment, ciphertext then tag. `inner` is copied before
   * this returns.
   */
  sealInner(inner: Uint8Array): Promise<ArrayBuffer> {
    const additionalData = this.header(ContentType.applicationData, LEGACY_VERSION, inner.length + TAG_LENGTH);
    return crypto.subtle.encrypt(
      { name: "AES-GCM", iv: this.nextNonce() as BufferSource, additionalData: additionalData as BufferSource, tagLength: 128 },
      this.key,
      inner as BufferSource,
    );
  }

  /** Protects `content` of the real `type` into an application_data record (TLSInnerPlaintext, no padding). */
  async seal(type: number, content: Uint8Array): Promise<WireRecord> {
    const inner = new Uint8Array(content.length + 1);
    inner.set(content);
    inner[content.length] = type;
    const fragment = new Uint8Array(await this.sealInner(inner));
    return { type: ContentType.applicationData, version: LEGACY_VERSION, fragment };
  }

  /**
   * Starts removing protection from one record: resolves to its TLSInnerPlaintext, rejects
   * with bad_record_mac when the tag fails. The fragment is copied before this returns.
   */
  openInner(record: WireRecord): Promise<Uint8Array> {
    const length = record.fragment.length;
    if (length < TAG_LENGTH + 1)
      return Promise.reject(protocolError("decode_error", `protected record of ${length} bytes is shorter than its tag`));
    const additionalData = this.header(record.type, record.version, length);
    return crypto.subtle
      .decrypt(
        { name: "AES-GCM", iv: this.nextNonce() as BufferSource, additionalData: additionalData as BufferSource, tagLength: 128 },
        this.key,
        record.fragment as BufferSource,
      )
      .then(
        (inner) => new Uint8Array(inner),
        () => {
          throw protocolError("bad_record_mac", "a protected record failed authentication");
        },
      );
  }

  /** Removes protection; a failed tag is bad_record_mac, an all-zero inner plaintext unexpected_message. */
  async open(record: WireRecord): Promise<{ type: number; content: Uint8Array }> {
    return unpadInner(await this.openInner(record));
  }
}
