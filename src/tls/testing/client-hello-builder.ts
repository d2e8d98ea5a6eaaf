import { ByteWriter, utf8 } from "../../bytes";
import { ContentType, ExtensionType, HandshakeType } from "../constants";
import { frameHandshake } from "../handshake-messages";
import { serializeRecord } from "../record";

/** A ClientHello to build for tests; every field has a sensible TLS 1.3 default. */
export interface ClientHelloSpec {
  /** One host name, several (a malformed list), or none. */
  serverName?: string | string[] | null;
  versions?: number[] | null;
  cipherSuites?: number[];
  groups?: number[] | null;
  keyShares?: { group: number; key: Uint8Array }[] | null;
  signatureAlgorithms?: number[] | null;
  alpn?: string[] | null;
  sessionId?: Uint8Array;
  compression?: number[];
  /** More extensions, written after the others as given (e.g. padding to make a large ClientHello). */
  extra?: { type: number; data: Uint8Array }[];
}

function extension(w: ByteWriter, type: number, fill: () => void): void {
  w.u16(type);
  const end = w.lengthPrefix(2);
  fill();
  end();
}

/** The framed ClientHello handshake message. */
export function buildClientHello(spec: ClientHelloSpec = {}): Uint8Array {
  const w = new ByteWriter(512);
  w.u16(0x0303).bytes(new Uint8Array(32).fill(7));
  const endSession = w.lengthPrefix(1);
  w.bytes(spec.sessionId ?? new Uint8Array(32).fill(9));
  endSession();
  const endSuites = w.lengthPrefix(2);
  for (const s of spec.cipherSuites ?? [0x1301, 0x1302]) w.u16(s);
  endSuites();
  const endCompression = w.lengthPrefix(1);
  for (const c of spec.compression ?? [0]) w.u8(c);
  endCompression();
  const endExtensions = w.lengthPrefix(2);
  const serverName = spec.serverName === undefined ? "example.com" : spec.serverName;
  if (serverName !== null)
    extension(w, ExtensionType.serverName, () => {
      const endList = w.lengthPrefix(2);
      for (const name of typeof serverName === "string" ? [serverName] : serverName) {
        w.u8(0); // name_type: host_name
        const endName = w.lengthPrefix(2);
        w.bytes(utf8(name));
        endName();
      }
      endList();
    });
  const versions = spec.versions === undefined ? [0x0304] : spec.versions;
  if (versions !== null)
    extension(w, ExtensionType.supportedVersions, () => {
      const end = w.lengthPrefix(1);
      for (const v of versions) w.u16(v);
      end();
    });
  const groups = spec.groups === undefined ? [0x001d, 0x0017] : spec.groups;
  if (groups !== null)
    extension(w, ExtensionType.supportedGroups, () => {
      const end = w.lengthPrefix(2);
      for (const g of groups) w.u16(g);
      end();
    });
  const sigalgs = spec.signatureAlgorithms === undefined ? [0x0403, 0x0804] : spec.signatureAlgorithms;
  if (sigalgs !== null)
    extension(w, ExtensionType.signatureAlgorithms, () => {
      const end = w.lengthPrefix(2);
      for (const a of sigalgs) w.u16(a);
      end();
    });
  const shares = spec.keyShares === undefined ? [{ group: 0x001d, key: new Uint8Array(32).fill(5) }] : spec.keyShares;
  if (shares !== null)
    extension(w, ExtensionType.keyShare, () => {
      const end = w.lengthPrefix(2);
      for (const s of shares) {
        w.u16(s.group);
        const endKey = w.lengthPrefix(2);
        w.bytes(s.key);
        endKey();
      }
      end();
    });
  const alpn = spec.alpn ?? null;
  if (alpn !== null)
    extension(w, ExtensionType.alpn, () => {
      const end = w.lengthPrefix(2);
      for (const p of alpn) {
        const endName = w.lengthPrefix(1);
        w.bytes(utf8(p));
        endName();
      }
      end();
    });
  for (const { type, data } of spec.extra ?? []) extension(w, type, () => w.bytes(data));
  endExtensions();
  return frameHandshake(HandshakeType.clientHello, w.finish());
}

/** The ClientHello in one plaintext handshake record, as a client's first flight. */
export const clientHelloRecord = (spec: ClientHelloSpec = {}): Uint8Array =>
  serializeRecord({ type: ContentType.handshake, version: 0x0301, fragment: buildClientHello(spec) });

/** The data of a pre_shared_key extension (RFC 8446 §4.2.11): identities with their ages, then binders. */
export function preSharedKeyData(identities: { identity: Uint8Array; age?: number }[], binders: Uint8Array[]): Uint8Array {
  const w = new ByteWriter(128);
  const endIdentities = w.lengthPrefix(2);
  for (const { identity, age } of identities) {
    const end = w.lengthPrefix(2);
    w.bytes(identity);
    end();
    w.u32(age ?? 0);
  }
  endIdentities();
  const endBinders = w.lengthPrefix(2);
  for (const binder of binders) {
    const end = w.lengthPrefix(1);
    w.bytes(binder);
    end();
  }
  endBinders();
  return w.finish();
}

/** psk_key_exchange_modes data: 0 psk_ke, 1 psk_dhe_ke. */
export const pskModesData = (modes: number[]): Uint8Array => Uint8Array.of(modes.length, ...modes);
