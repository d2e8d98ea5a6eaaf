import { ByteReader, ByteWriter } from "../bytes";
import { ContentType, LEGACY_VERSION, MAX_CIPHERTEXT, MAX_PLAINTEXT } from "./constants";
import { protocolError } from "./failure";
import type { TrafficKeys } from "./keySchedule";

/** One TLSPlaintext/TLSCiphertext record as it travels (RFC 8446 §5.1). */
export interface WireRecord {
  type: number;
  version: number;
  fragment: Uint8Array;
}

const HEADER_LENGTH = 5;
const TAG_LENGTH = 16;

/** Serializes one record: type, legacy_record_version, u16 length, fragment. */
export function serializeRecord(record: WireRecord): Uint8Array {
  const w = new ByteWriter(HEADER_LENGTH + record.fragment.length);
  w.u8(record.type).u16(record.version);
  const end = w.lengthPrefix(2);
  w.bytes(record.fragment);
  end();
  return w.finish();
}

/**
 * Parses one whole record from the start of `bytes`; returns null when more bytes are needed.
 * A length over the ciphertext limit is record_overflow at once, so a hostile length never
 * makes the reader wait for 64 KiB that would never be valid.
 */
export function parseRecord(bytes: Uint8Array): { record: WireRecord; size: number } | null {
  if (bytes.length < HEADER_LENGTH) return null;
  const r = new ByteReader(bytes);
  const type = r.u8();
  const version = r.u16();
  const length = r.u16();
  if (type < ContentType.changeCipherSpec || type > ContentType.applicationData)
    throw protocolError("unexpected_message", `record of unknown content type ${type}: not TLS`);
  if (version >> 8 !== 0x03) throw protocolError("protocol_version", `record version 0x${version.toString(16)} is not TLS`);
  if (length > MAX_CIPHERTEXT) throw protocolError("record_overflow", `record of ${length} bytes exceeds 2^14+256`);
  if (r.remaining < length) return null;
  return { record: { type, version, fragment: r.take(length) }, size: HEADER_LENGTH + length };
}

/** nonce = iv XOR the 64-bit record sequence number, left-padded to the IV length (§5.3). */
export function recordNonce(iv: Uint8Array, sequence: number): Uint8Array {
  const nonce = iv.slice();
  let s = sequence;
  for (let i = nonce.length - 1; i >= nonce.length - 8 && s > 0; i--) {
    nonce[i]! ^= s % 256;
    s = Math.floor(s / 256);
  }
  return nonce;
}

/**
 * One direction's AEAD state: AES-128-GCM key, IV and sequence number. A new cipher (with
 * sequence 0) replaces it at every key change, as §5.3 requires.
 */
export class RecordCipher {
  private sequence = 0;
  private constructor(
    private readonly key: CryptoKey,
    private readonly iv: Uint8Array,
  ) {}

  static async create(keys: TrafficKeys): Promise<RecordCipher> {
    const key = await crypto.subtle.importKey("raw", keys.key as BufferSource, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
    return new RecordCipher(key, keys.iv);
  }

  /** Protects `content` of the real `type` into an application_data record (TLSInnerPlaintext, no padding). */
  async seal(type: number, content: Uint8Array): Promise<WireRecord> {
    const inner = new Uint8Array(content.length + 1);
    inner.set(content);
    inner[content.length] = type;
    const length = inner.length + TAG_LENGTH;
    const header = Uint8Array.of(ContentType.applicationData, LEGACY_VERSION >> 8, LEGACY_VERSION & 0xff, length >> 8, length & 0xff);
    const nonce = recordNonce(this.iv, this.sequence++);
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv: nonce as BufferSource, additionalData: header as BufferSource, tagLength: 128 },
      this.key,
      inner as BufferSource,
    );
    return { type: ContentType.applicationData, version: LEGACY_VERSION, fragment: new Uint8Array(sealed) };
  }

  /** Removes protection; a failed tag is bad_record_mac, an all-zero inner plaintext unexpected_message. */
  async open(record: WireRecord): Promise<{ type: number; content: Uint8Array }> {
    const length = record.fragment.length;
    if (length < TAG_LENGTH + 1) throw protocolError("decode_error", `protected record of ${length} bytes is shorter than its tag`);
    const header = Uint8Array.of(record.type, record.version >> 8, record.version & 0xff, length >> 8, length & 0xff);
    const nonce = recordNonce(this.iv, this.sequence++);
    let inner: Uint8Array;
    try {
      inner = new Uint8Array(
        await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: nonce as BufferSource, additionalData: header as BufferSource, tagLength: 128 },
          this.key,
          record.fragment as BufferSource,
        ),
      );
    } catch {
      throw protocolError("bad_record_mac", "a protected record failed authentication");
    }
    let end = inner.length - 1;
    while (end >= 0 && inner[end] === 0) end--;
    if (end < 0) throw protocolError("unexpected_message", "a protected record had no content type");
    if (end > MAX_PLAINTEXT) throw protocolError("record_overflow", `decrypted record of ${end} bytes exceeds 2^14`);
    return { type: inner[end]!, content: inner.subarray(0, end) };
  }
}
