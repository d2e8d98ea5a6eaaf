import { ByteReader, TruncatedError } from "../bytes";
import { messageOf } from "../platform";
import { ExtensionType } from "./constants";
import { protocolError, TlsFailure } from "./failure";

export interface KeyShareEntry {
  group: number;
  keyExchange: Uint8Array;
}

/** One offered PSK identity (RFC 8446 §4.2.11): the ticket as the server issued it, and its obfuscated age. */
export interface PskIdentity {
  identity: Uint8Array;
  obfuscatedTicketAge: number;
}

/** The pre_shared_key extension of a ClientHello. */
export interface OfferedPsks {
  identities: PskIdentity[];
  /** binders[i] proves possession of identities[i]'s PSK. */
  binders: Uint8Array[];
  /**
   * Bytes of the binders list, its 2-byte length included: the message's last bytes, since
   * pre_shared_key is the last extension. The binders sign the message without them (§4.2.11.2).
   */
  bindersLength: number;
}

/** The parts of a ClientHello (RFC 8446 §4.1.2) this server reads; absent extensions are null. */
export interface ClientHello {
  legacyVersion: number;
  random: Uint8Array;
  legacySessionId: Uint8Array;
  cipherSuites: number[];
  compressionMethods: number[];
  /** The host_name from server_name (RFC 6066 §3), as sent (case and trailing dot kept). */
  serverName: string | null;
  supportedVersions: number[] | null;
  supportedGroups: number[] | null;
  signatureAlgorithms: number[] | null;
  keyShares: KeyShareEntry[] | null;
  alpn: string[] | null;
  /** psk_key_exchange_modes (§4.2.9): 0 psk_ke, 1 psk_dhe_ke. */
  pskModes: number[] | null;
  preSharedKey: OfferedPsks | null;
  /** Every extension type, in the order sent. */
  extensionTypes: number[];
}

const rest = (r: ByteReader): Uint8Array => r.take(r.remaining);

/** Bytes as a string, one code unit per byte (latin-1); no spread, so no argument-count limit. */
function ascii(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += String.fromCharCode(byte);
  return out;
}

function u16List(r: ByteReader, lengthWidth: 1 | 2, what: string): number[] {
  const list = r.prefixed(lengthWidth, what);
  if (list.remaining % 2 !== 0) throw protocolError("decode_error", `${what} has an odd length`);
  const out: number[] = [];
  while (list.remaining > 0) out.push(list.u16(what));
  return out;
}

/** The one host_name in server_name; printable ASCII only, since it is logged and compared. */
function parseServerName(r: ByteReader): string {
  const list = r.prefixed(2, "server_name_list");
  if (list.remaining === 0) throw protocolError("decode_error", "server_name has an empty list");
  let hostName: string | null = null;
  while (list.remaining > 0) {
    const nameType = list.u8("name_type");
    const name = rest(list.prefixed(2, "server name"));
    if (nameType !== 0) continue; // unknown name types are skipped (RFC 6066 §3)
    if (hostName !== null) throw protocolError("illegal_parameter", "server_name carries two host names");
    if (name.length === 0) throw protocolError("decode_error", "server_name has an empty host name");
    if (name.some((b) => b < 0x21 || b > 0x7e)) throw protocolError("illegal_parameter", "server_name is not printable ASCII");
    hostName = ascii(name);
  }
  if (hostName === null) throw protocolError("illegal_parameter", "server_name has no host_name entry");
  return hostName;
}

function parseKeyShares(r: ByteReader): KeyShareEntry[] {
  const list = r.prefixed(2, "client_shares");
  const out: KeyShareEntry[] = [];
  const groups = new Set<number>(); // a Set, not a scan: thousands of tiny shares fit in 64 KiB
  while (list.remaining > 0) {
    const group = list.u16("key share group");
    const keyExchange = rest(list.prefixed(2, "key_exchange"));
    if (keyExchange.length === 0) throw protocolError("decode_error", "an empty key_exchange");
    if (groups.has(group)) throw protocolError("illegal_parameter", `two key shares for group 0x${group.toString(16)}`);
    groups.add(group);
    out.push({ group, keyExchange });
  }
  return out;
}

function parseAlpn(r: ByteReader): string[] {
  const list = r.prefixed(2, "protocol_name_list");
  const out: string[] = [];
  while (list.remaining > 0) {
    const name = rest(list.prefixed(1, "protocol name"));
    if (name.length === 0) throw protocolError("decode_error", "an empty ALPN protocol name");
    out.push(ascii(name));
  }
  if (out.length === 0) throw protocolError("decode_error", "ALPN with no protocols");
  return out;
}

/** SHA-256 binders are 32 bytes; the syntax allows 32..255 (§4.2.11). */
function parsePreSharedKey(r: ByteReader): OfferedPsks {
  const identityList = r.prefixed(2, "identities");
  const identities: PskIdentity[] = [];
  while (identityList.remaining > 0) {
    const identity = rest(identityList.prefixed(2, "identity"));
    if (identity.length === 0) throw protocolError("decode_error", "an empty PSK identity");
    identities.push({ identity, obfuscatedTicketAge: identityList.u32("obfuscated_ticket_age") });
  }
  if (identities.length === 0) throw protocolError("decode_error", "pre_shared_key offers no identities");
  const bindersLength = r.remaining;
  const binderList = r.prefixed(2, "binders");
  const binders: Uint8Array[] = [];
  while (binderList.remaining > 0) {
    const binder = rest(binderList.prefixed(1, "binder"));
    if (binder.length < 32) throw protocolError("decode_error", `a PSK binder of ${binder.length} bytes (at least 32)`);
    binders.push(binder);
  }
  // Each identity has its binder, in order (§4.2.11).
  if (binders.length !== identities.length)
    throw protocolError("illegal_parameter", `pre_shared_key has ${identities.length} identities but ${binders.length} binders`);
  return { identities, binders, bindersLength };
}

function parsePskModes(r: ByteReader): number[] {
  const modes = [...rest(r.prefixed(1, "ke_modes"))];
  if (modes.length === 0) throw protocolError("decode_error", "psk_key_exchange_modes is empty");
  return modes;
}

function parseBody(body: Uint8Array): ClientHello {
  const r = new ByteReader(body);
  const hello: ClientHello = {
    legacyVersion: r.u16("legacy_version"),
    random: r.take(32, "random"),
    legacySessionId: rest(r.prefixed(1, "legacy_session_id")),
    cipherSuites: u16List(r, 2, "cipher_suites"),
    compressionMethods: [...rest(r.prefixed(1, "legacy_compression_methods"))],
    serverName: null,
    supportedVersions: null,
    supportedGroups: null,
    signatureAlgorithms: null,
    keyShares: null,
    alpn: null,
    pskModes: null,
    preSharedKey: null,
    extensionTypes: [],
  };
  if (hello.legacySessionId.length > 32) throw protocolError("illegal_parameter", "legacy_session_id longer than 32 bytes");
  // A ClientHello without extensions is TLS 1.2 or older; supported_versions is then missing.
  const extensions = r.remaining > 0 ? r.prefixed(2, "extensions") : new ByteReader(new Uint8Array(0));
  if (r.remaining > 0) throw protocolError("decode_error", "bytes after the ClientHello extensions");
  // A Set, not a scan of the list: 16,000 empty extensions fit in one 64 KiB ClientHello.
  const seen = new Set<number>();
  while (extensions.remaining > 0) {
    const type = extensions.u16("extension type");
    const data = extensions.prefixed(2, "extension data");
    if (seen.has(type)) throw protocolError("illegal_parameter", `extension ${type} appears twice`);
    if (seen.has(ExtensionType.preSharedKey)) throw protocolError("illegal_parameter", "pre_shared_key is not the last extension");
    seen.add(type);
    hello.extensionTypes.push(type);
    switch (type) {
      case ExtensionType.serverName:
        hello.serverName = parseServerName(data);
        break;
      case ExtensionType.supportedVersions:
        hello.supportedVersions = u16List(data, 1, "supported_versions");
        break;
      case ExtensionType.supportedGroups:
        hello.supportedGroups = u16List(data, 2, "named_group_list");
        break;
      case ExtensionType.signatureAlgorithms:
        hello.signatureAlgorithms = u16List(data, 2, "supported_signature_algorithms");
        break;
      case ExtensionType.keyShare:
        hello.keyShares = parseKeyShares(data);
        break;
      case ExtensionType.alpn:
        hello.alpn = parseAlpn(data);
        break;
      case ExtensionType.pskKeyExchangeModes:
        hello.pskModes = parsePskModes(data);
        break;
      case ExtensionType.preSharedKey:
        hello.preSharedKey = parsePreSharedKey(data);
        break;
      default:
        rest(data); // extensions this server does not use are ignored (§4.2)
    }
    if (data.remaining > 0) throw protocolError("decode_error", `extension ${type} has trailing bytes`);
  }
  return hello;
}

/**
 * Parses a ClientHello handshake body. Every malformation, including truncation, becomes a
 * TlsFailure with decode_error or illegal_parameter, never another exception.
 */
export function parseClientHello(body: Uint8Array): ClientHello {
  try {
    return parseBody(body);
  } catch (error) {
    if (error instanceof TlsFailure) throw error;
    if (error instanceof TruncatedError) throw protocolError("decode_error", `ClientHello ${error.message}`);
    throw protocolError("decode_error", `ClientHello unparsable: ${messageOf(error)}`);
  }
}
