import { ByteWriter, concatBytes, fromHex, utf8 } from "../bytes";
import {
  ECDSA_SECP256R1_SHA256,
  ExtensionType,
  HandshakeType,
  HELLO_RETRY_RANDOM,
  LEGACY_VERSION,
  TLS_AES_128_GCM_SHA256,
  TLS13,
} from "./constants";
import { protocolError } from "./failure";

/** One handshake message: its type, body, and the framed bytes that enter the transcript. */
export interface HandshakeMessage {
  type: number;
  body: Uint8Array;
  raw: Uint8Array;
}

/** The largest handshake message accepted; a ClientHello with a PQ key share is ~1.6 KB. */
export const MAX_HANDSHAKE_MESSAGE = 2 ** 16;

/** Handshake framing (RFC 8446 §4): u8 msg_type, u24 length, body. */
export function frameHandshake(type: number, body: Uint8Array): Uint8Array {
  const w = new ByteWriter(body.length + 4);
  w.u8(type);
  const end = w.lengthPrefix(3);
  w.bytes(body);
  end();
  return w.finish();
}

/**
 * Reassembles handshake messages from record contents: a message may span records (and
 * so TCP segments), and a record may carry several messages.
 */
export class HandshakeAssembler {
  private buffered: Uint8Array = new Uint8Array(0);

  push(content: Uint8Array): void {
    this.buffered = this.buffered.length === 0 ? content : concatBytes(this.buffered, content);
  }

  /** Bytes of an incomplete message still held (must be 0 when keys change, §5.1). */
  get pending(): number {
    return this.buffered.length;
  }

  next(): HandshakeMessage | null {
    if (this.buffered.length < 4) return null;
    const b = this.buffered;
    const length = (b[1]! << 16) | (b[2]! << 8) | b[3]!;
    if (length > MAX_HANDSHAKE_MESSAGE) throw protocolError("decode_error", `handshake message of ${length} bytes is too large`);
    if (b.length < 4 + length) return null;
    const raw = b.slice(0, 4 + length);
    this.buffered = b.subarray(4 + length);
    return { type: raw[0]!, body: raw.subarray(4), raw };
  }
}

function writeExtension(w: ByteWriter, type: number, fill: (w: ByteWriter) => void): void {
  w.u16(type);
  const end = w.lengthPrefix(2);
  fill(w);
  end();
}

/** ServerHello (§4.1.3) selecting TLS 1.3, TLS_AES_128_GCM_SHA256 and the server's key share. */
export function serializeServerHello(hello: {
  random: Uint8Array;
  legacySessionId: Uint8Array;
  group: number;
  keyExchange: Uint8Array;
}): Uint8Array {
  const w = new ByteWriter(128);
  w.u16(LEGACY_VERSION).bytes(hello.random);
  const endSession = w.lengthPrefix(1);
  w.bytes(hello.legacySessionId);
  endSession();
  w.u16(TLS_AES_128_GCM_SHA256).u8(0); // cipher_suite, legacy_compression_method
  const endExtensions = w.lengthPrefix(2);
  writeExtension(w, ExtensionType.supportedVersions, (x) => x.u16(TLS13));
  writeExtension(w, ExtensionType.keyShare, (x) => {
    x.u16(hello.group);
    const end = x.lengthPrefix(2);
    x.bytes(hello.keyExchange);
    end();
  });
  endExtensions();
  return frameHandshake(HandshakeType.serverHello, w.finish());
}

/** HelloRetryRequest (§4.1.4): a ServerHello with the special random, naming the group wanted. */
export function serializeHelloRetryRequest(hello: { legacySessionId: Uint8Array; group: number }): Uint8Array {
  const w = new ByteWriter(64);
  w.u16(LEGACY_VERSION).bytes(fromHex(HELLO_RETRY_RANDOM));
  const endSession = w.lengthPrefix(1);
  w.bytes(hello.legacySessionId);
  endSession();
  w.u16(TLS_AES_128_GCM_SHA256).u8(0);
  const endExtensions = w.lengthPrefix(2);
  writeExtension(w, ExtensionType.supportedVersions, (x) => x.u16(TLS13));
  writeExtension(w, ExtensionType.keyShare, (x) => x.u16(hello.group));
  endExtensions();
  return frameHandshake(HandshakeType.serverHello, w.finish());
}

/** EncryptedExtensions (§4.3.1): ALPN when one was chosen, else empty. */
export function serializeEncryptedExtensions(alpn: string | null): Uint8Array {
  const w = new ByteWriter(32);
  const endExtensions = w.lengthPrefix(2);
  if (alpn !== null)
    writeExtension(w, ExtensionType.alpn, (x) => {
      const endList = x.lengthPrefix(2);
      const endName = x.lengthPrefix(1);
      x.bytes(utf8(alpn));
      endName();
      endList();
    });
  endExtensions();
  return frameHandshake(HandshakeType.encryptedExtensions, w.finish());
}

/** Certificate (§4.4.2): empty request context, each DER certificate with no extensions. */
export function serializeCertificate(chain: readonly Uint8Array[]): Uint8Array {
  const w = new ByteWriter(1024);
  w.u8(0); // certificate_request_context: empty for a server
  const endList = w.lengthPrefix(3);
  for (const der of chain) {
    const endCert = w.lengthPrefix(3);
    w.bytes(der);
    endCert();
    w.u16(0); // per-certificate extensions
  }
  endList();
  return frameHandshake(HandshakeType.certificate, w.finish());
}

/** The content a server's CertificateVerify signs (§4.4.3): 64 spaces, context string, 0, transcript hash. */
export function certificateVerifyContent(transcriptHash: Uint8Array): Uint8Array {
  return concatBytes(new Uint8Array(64).fill(0x20), utf8("TLS 1.3, server CertificateVerify"), Uint8Array.of(0), transcriptHash);
}

/** CertificateVerify with ecdsa_secp256r1_sha256 and a DER signature. */
export function serializeCertificateVerify(derSignature: Uint8Array): Uint8Array {
  const w = new ByteWriter(80);
  w.u16(ECDSA_SECP256R1_SHA256);
  const end = w.lengthPrefix(2);
  w.bytes(derSignature);
  end();
  return frameHandshake(HandshakeType.certificateVerify, w.finish());
}

export const serializeFinished = (verifyData: Uint8Array): Uint8Array => frameHandshake(HandshakeType.finished, verifyData);

/** KeyUpdate (§4.6.3): 0 = update_not_requested, 1 = update_requested. */
export const serializeKeyUpdate = (requestPeerUpdate: boolean): Uint8Array =>
  frameHandshake(HandshakeType.keyUpdate, Uint8Array.of(requestPeerUpdate ? 1 : 0));

/** The synthetic message_hash that replaces ClientHello1 in the transcript after an HRR (§4.4.1). */
export const messageHash = (clientHello1Hash: Uint8Array): Uint8Array => frameHandshake(HandshakeType.messageHash, clientHello1Hash);
