import { ByteReader, toHex } from "../../bytes";
import { ContentType, ExtensionType, HandshakeType, HELLO_RETRY_RANDOM } from "../constants";
import { parseRecord } from "../record";

/** A ServerHello or HelloRetryRequest as a client reads it: which it is, its key_share and pre_shared_key. */
export interface ServerHelloSeen {
  helloRetry: boolean;
  /** ServerHello: the group of the server's share; HelloRetryRequest: the selected_group asked for; null without key_share (psk_ke). */
  group: number | null;
  /** The server's key_exchange bytes; null in a HelloRetryRequest or without key_share. */
  keyExchange: Uint8Array | null;
  /** The index of the PSK identity the server accepted (pre_shared_key), or null: no resumption. */
  selectedIdentity: number | null;
}

/** Reads a ServerHello (or HelloRetryRequest) handshake body. */
export function readServerHello(body: Uint8Array): ServerHelloSeen {
  const r = new ByteReader(body);
  r.u16(); // legacy_version
  const helloRetry = toHex(r.take(32)) === HELLO_RETRY_RANDOM;
  r.prefixed(1); // legacy_session_id_echo
  r.u16(); // cipher_suite
  r.u8(); // legacy_compression_method
  const extensions = r.prefixed(2);
  const seen: ServerHelloSeen = { helloRetry, group: null, keyExchange: null, selectedIdentity: null };
  while (extensions.remaining > 0) {
    const type = extensions.u16();
    const data = extensions.prefixed(2);
    if (type === ExtensionType.preSharedKey) seen.selectedIdentity = data.u16();
    if (type !== ExtensionType.keyShare) continue;
    seen.group = data.u16();
    if (helloRetry) continue;
    const key = data.prefixed(2);
    seen.keyExchange = key.take(key.remaining);
  }
  return seen;
}

/** Every ServerHello and HelloRetryRequest among the plaintext records the server sent, in order. */
export function serverHellosIn(output: Uint8Array): ServerHelloSeen[] {
  const out: ServerHelloSeen[] = [];
  for (let at = 0; at < output.length; ) {
    const parsed = parseRecord(output.subarray(at));
    if (!parsed) break;
    at += parsed.size;
    const { type, fragment } = parsed.record;
    // Each is sent alone in its record, so a record that starts with one holds all of it.
    if (type === ContentType.handshake && fragment[0] === HandshakeType.serverHello) out.push(readServerHello(fragment.subarray(4)));
  }
  return out;
}
