import { ByteWriter, concatBytes, fromHex, utf8 } from "../bytes";
import { ExtensionType, HandshakeType, HELLO_RETRY_RANDOM, LEGACY_VERSION, TLS_AES_128_GCM_SHA256, TLS13 } from "./constants";
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
 * Judges a handshake message by its header, before its body is waited for: throws to refuse
 * (a type not expected now, a length no such message can have), so a hostile header never
 * makes the reader collect up to MAX_HANDSHAKE_MESSAGE bytes first.
 */
export type HandshakeHeaderCheck = (type: number, length: number) => void;

/**
 * Reassembles handshake messages from record contents: a message may span records (and
 * so TCP segments), and a record may carry several messages. The fragments of a message are
 * kept as they came and concatenated once, when it is complete: a message sent a byte per
 * record costs work linear in its size, not quadratic.
 */
export class HandshakeAssembler {
  private fragments: Uint8Array[] = [];
  /** Bytes held, over all fragments. */
  private held = 0;
  /** The header of the message being collected, once its 4 bytes are in and were checked. */
  private header: { type: number; length: number } | null = null;
  /** Bytes copied into messages so far: about the bytes pushed, never more than twice. */
  copied = 0;

  constructor(private readonly check?: HandshakeHeaderCheck) {}

  push(content: Uint8Array): void {
    if (content.length === 0) return;
    this.fragments.push(content);
    this.held += content.length;
  }

  /** Bytes of an incomplete message still held (must be 0 when keys change, §5.1). */
  get pending(): number {
    return this.held;
  }

  /** The next `n` held bytes as one array (a copy, so later reuse of a record buffer cannot change it). */
  private take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    this.copied += n;
    let filled = 0;
    let used = 0; // whole fragments consumed: dropped once, at the end, not shifted one by one
    while (filled < n) {
      const fragment = this.fragments[used]!;
      const part = Math.min(n - filled, fragment.length);
      out.set(part === fragment.length ? fragment : fragment.subarray(0, part), filled);
      filled += part;
      if (part === fragment.length) used++;
      else this.fragments[used] = fragment.subarray(part);
    }
    this.fragments = used === this.fragments.length ? [] : this.fragments.slice(used);
    this.held -= n;
    return out;
  }

  /** The 4-byte header at the front: at most four fragments are looked at. */
  private peekHeader(): { type: number; length: number } {
    const bytes: number[] = [];
    for (let f = 0; bytes.length < 4; f++) {
      const fragment = this.fragments[f]!;
      for (let i = 0; i < fragment.length && bytes.length < 4; i++) bytes.push(fragment[i]!);
    }
    return { type: bytes[0]!, length: (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]! };
  }

  next(): HandshakeMessage | null {
    if (this.header === null) {
      if (this.held < 4) return null;
      const header = this.peekHeader();
      if (header.length > MAX_HANDSHAKE_MESSAGE)
        throw protocolError("decode_error", `handshake message of ${header.length} bytes is too large`);
      this.check?.(header.type, header.length);
      this.header = header;
    }
    if (this.held < 4 + this.header.length) return null;
    const raw = this.take(4 + this.header.length);
    this.header = null;
    return { type: raw[0]!, body: raw.subarray(4), raw };
  }
}

function writeExtension(w: ByteWriter, type: number, fill: (w: ByteWriter) => void): void {
  w.u16(type);
  const end = w.lengthPrefix(2);
  fill(w);
  end();
}

/**
 * ServerHello (§4.1.3) selecting TLS 1.3, TLS_AES_128_GCM_SHA256 and the server's key share,
 * and, when resuming, the index of the client's PSK identity it accepted (§4.2.11). A psk_ke
 * resumption has no key share: the server MUST NOT send one (§4.2.9).
 */
export function serializeServerHello(hello: {
  random: Uint8Array;
  legacySessionId: Uint8Array;
  /** Both absent in a psk_ke resumption. */
  group?: number;
  keyExchange?: Uint8Array;
  selectedIdentity?: number;
}): Uint8Array {
  const w = new ByteWriter(128);
  w.u16(LEGACY_VERSION).bytes(hello.random);
  const endSession = w.lengthPrefix(1);
  w.bytes(hello.legacySessionId);
  endSession();
  w.u16(TLS_AES_128_GCM_SHA256).u8(0); // cipher_suite, legacy_compression_method
  const endExtensions = w.lengthPrefix(2);
  writeExtension(w, ExtensionType.supportedVersions, (x) => x.u16(TLS13));
  const { group, keyExchange } = hello;
  if (group !== undefined && keyExchange !== undefined)
    writeExtension(w, ExtensionType.keyShare, (x) => {
      x.u16(group);
      const end = x.lengthPrefix(2);
      x.bytes(keyExchange);
      end();
    });
  const selected = hello.selectedIdentity;
  if (selected !== undefined) writeExtension(w, ExtensionType.preSharedKey, (x) => x.u16(selected));
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

/** CertificateVerify: the SignatureScheme and the signature as that scheme encodes it (DER for ECDSA). */
export function serializeCertificateVerify(scheme: number, signature: Uint8Array): Uint8Array {
  const w = new ByteWriter(signature.length + 8);
  w.u16(scheme);
  const end = w.lengthPrefix(2);
  w.bytes(signature);
  end();
  return frameHandshake(HandshakeType.certificateVerify, w.finish());
}

export const serializeFinished = (verifyData: Uint8Array): Uint8Array => frameHandshake(HandshakeType.finished, verifyData);

/** NewSessionTicket (§4.6.1) with no extensions: in particular no early_data, so no 0-RTT is ever invited. */
export function serializeNewSessionTicket(ticket: {
  lifetimeSeconds: number;
  ageAdd: number;
  nonce: Uint8Array;
  identity: Uint8Array;
}): Uint8Array {
  const w = new ByteWriter(ticket.identity.length + ticket.nonce.length + 16);
  w.u32(ticket.lifetimeSeconds).u32(ticket.ageAdd);
  const endNonce = w.lengthPrefix(1);
  w.bytes(ticket.nonce);
  endNonce();
  const endTicket = w.lengthPrefix(2);
  w.bytes(ticket.identity);
  endTicket();
  w.u16(0); // extensions
  return frameHandshake(HandshakeType.newSessionTicket, w.finish());
}

/** KeyUpdate (§4.6.3): 0 = update_not_requested, 1 = update_requested. */
export const serializeKeyUpdate = (requestPeerUpdate: boolean): Uint8Array =>
  frameHandshake(HandshakeType.keyUpdate, Uint8Array.of(requestPeerUpdate ? 1 : 0));

/** The synthetic message_hash that replaces ClientHello1 in the transcript after an HRR (§4.4.1). */
export const messageHash = (clientHello1Hash: Uint8Array): Uint8Array => frameHandshake(HandshakeType.messageHash, clientHello1Hash);
