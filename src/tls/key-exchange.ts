import { GROUP_SECP256R1, GROUP_X25519 } from "./constants";
import { protocolError } from "./failure";

/** The name a group goes by in logs and panels (`tls.session.group`). */
export type GroupName = "x25519" | "secp256r1";

/** One side's part of an (EC)DHE exchange: the server's share to send and the secret both sides now hold. */
export interface KeyExchangeResult {
  /** The server's key_exchange bytes, in the group's wire format (RFC 8446 §4.2.8.2). */
  publicKey: Uint8Array;
  /** The (EC)DHE input to the key schedule (§7.4). */
  sharedSecret: Uint8Array;
}

/** A named group the server takes: its code point, its name, and the exchange against a client's share. */
export interface KeyExchangeGroup {
  readonly code: number;
  readonly name: GroupName;
  /**
   * Validates the client's key_exchange bytes, makes a fresh ephemeral key with WebCrypto and
   * derives the shared secret. A share that is not a valid public key of the group is an
   * illegal_parameter (§4.2.8), with the reason why.
   */
  exchange(clientShare: Uint8Array): Promise<KeyExchangeResult>;
}

/** Imports the client's share as a WebCrypto public key; one that is not a point of the group is the client's error. */
async function importShare(share: Uint8Array, algorithm: EcKeyImportParams | Algorithm, what: string): Promise<CryptoKey> {
  try {
    return await crypto.subtle.importKey("raw", share as BufferSource, algorithm, true, []);
  } catch {
    throw protocolError("illegal_parameter", what);
  }
}

/** A fresh key pair, the secret with the client's public key, and our public key as raw bytes. */
async function ephemeralExchange(
  generate: EcKeyGenParams | Algorithm,
  derive: string,
  peer: CryptoKey,
  unusable: string,
): Promise<KeyExchangeResult> {
  const pair = (await crypto.subtle.generateKey(generate, false, ["deriveBits"])) as CryptoKeyPair;
  const publicKey = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  let sharedSecret: Uint8Array;
  try {
    sharedSecret = new Uint8Array(await crypto.subtle.deriveBits({ name: derive, public: peer }, pair.privateKey, 256));
  } catch {
    // Node's and Chromium's X25519 refuse a low-order point here; an engine returning zeros is caught by the caller.
    throw protocolError("illegal_parameter", unusable);
  }
  return { publicKey, sharedSecret };
}

/** X25519 (RFC 7748): the key_exchange is the 32-byte little-endian u-coordinate (§4.2.8.2). */
export const X25519: KeyExchangeGroup = {
  code: GROUP_X25519,
  name: "x25519",
  async exchange(clientShare) {
    if (clientShare.length !== 32)
      throw protocolError("illegal_parameter", `an x25519 key share of ${clientShare.length} bytes (it is 32)`);
    const unusable = "the x25519 key share is not a usable public key";
    const peer = await importShare(clientShare, { name: "X25519" }, unusable);
    const result = await ephemeralExchange({ name: "X25519" }, "X25519", peer, unusable);
    // A low-order point gives an all-zero secret; RFC 8446 §7.4.2 says to check for it and abort.
    if (result.sharedSecret.every((b) => b === 0))
      throw protocolError("illegal_parameter", "the x25519 key share gives an all-zero secret");
    return result;
  },
};

const P256 = { name: "ECDH", namedCurve: "P-256" } as const;
const hexByte = (b: number): string => b.toString(16).padStart(2, "0");
/** 0x04, then X and Y of 32 bytes each (SEC 1 §2.3.3, uncompressed). */
const P256_SHARE_LENGTH = 65;

/**
 * secp256r1 (NIST P-256): the key_exchange is an uncompressed point, 0x04 || X || Y; TLS 1.3
 * has no point format negotiation, so the compressed forms are refused (§4.2.8.2). The shared
 * secret is the x-coordinate of the ECDH result (§7.4.2), which is what WebCrypto's ECDH
 * deriveBits(256) returns. WebCrypto refuses a point not on the curve when importing it.
 */
export const SECP256R1: KeyExchangeGroup = {
  code: GROUP_SECP256R1,
  name: "secp256r1",
  async exchange(clientShare) {
    const format = clientShare[0];
    if (format === 0x02 || format === 0x03)
      throw protocolError("illegal_parameter", "a compressed secp256r1 key share (TLS 1.3 takes only the uncompressed point, 0x04)");
    if (clientShare.length !== P256_SHARE_LENGTH)
      throw protocolError("illegal_parameter", `a secp256r1 key share of ${clientShare.length} bytes (an uncompressed point is 65)`);
    if (format !== 0x04)
      throw protocolError("illegal_parameter", `a secp256r1 key share starting 0x${hexByte(format!)} (an uncompressed point starts 0x04)`);
    const notAPoint = "the secp256r1 key share is not a point on the curve";
    const peer = await importShare(clientShare, P256, notAPoint);
    return ephemeralExchange(P256, "ECDH", peer, notAPoint);
  },
};

/**
 * The groups this server takes, most preferred first. X25519 first, as OpenSSL, NSS, BoringSSL
 * and rustls order them (and the guest's curl, guest/README.md); P-256 for clients that offer
 * nothing else (FIPS-style configurations, some Java, .NET and embedded stacks).
 */
export const SERVER_GROUPS: readonly KeyExchangeGroup[] = [X25519, SECP256R1];

/** Names of other groups a client may offer, so a refusal says what was offered (IANA TLS Supported Groups). */
const OTHER_GROUP_NAMES: Record<number, string> = {
  24: "secp384r1",
  25: "secp521r1",
  30: "x448",
  31: "brainpoolP256r1tls13",
  32: "brainpoolP384r1tls13",
  33: "brainpoolP512r1tls13",
  256: "ffdhe2048",
  257: "ffdhe3072",
  258: "ffdhe4096",
  259: "ffdhe6144",
  260: "ffdhe8192",
  4587: "SecP256r1MLKEM768",
  4588: "X25519MLKEM768",
  4589: "SecP384r1MLKEM1024",
  25497: "X25519Kyber768Draft00",
};

/** A group's name, or its code point in hex when this server has no name for it. */
export function groupLabel(code: number): string {
  return SERVER_GROUPS.find((g) => g.code === code)?.name ?? OTHER_GROUP_NAMES[code] ?? `0x${code.toString(16).padStart(4, "0")}`;
}

/** At most this many groups are named in a reason; a ClientHello may list thousands. */
const GROUPS_NAMED = 8;

/** "secp384r1, ffdhe2048": the groups, named, the list cut short past GROUPS_NAMED. */
export function groupList(codes: readonly number[]): string {
  if (codes.length === 0) return "none";
  const named = codes.slice(0, GROUPS_NAMED).map(groupLabel).join(", ");
  return codes.length > GROUPS_NAMED ? `${named} and ${codes.length - GROUPS_NAMED} more` : named;
}

/** The server's groups, as the reason of a refusal names them: "x25519 or secp256r1". */
export const SERVER_GROUP_NAMES = SERVER_GROUPS.map((g) => g.name).join(" or ");

/** The server's most preferred group (of `groups`) whose code `codes` holds, or null. */
export function preferredGroup(codes: readonly number[], groups: readonly KeyExchangeGroup[] = SERVER_GROUPS): KeyExchangeGroup | null {
  const offered = new Set(codes); // a Set: the list may be long
  return groups.find((g) => offered.has(g.code)) ?? null;
}

/**
 * The server's groups this engine's WebCrypto can compute. X25519 is missing from some
 * engines (older Safari releases among them); P-256 ECDH is in every one. Without X25519 a client
 * that sent an x25519 share is asked for a P-256 one (a HelloRetryRequest: one round trip more).
 */
export async function probeServerGroups(subtle: Pick<SubtleCrypto, "generateKey">): Promise<readonly KeyExchangeGroup[]> {
  try {
    await subtle.generateKey({ name: "X25519" }, false, ["deriveBits"]);
    return SERVER_GROUPS;
  } catch {
    return SERVER_GROUPS.filter((g) => g !== X25519);
  }
}

let usable: Promise<readonly KeyExchangeGroup[]> | null = null;

/** `probeServerGroups` for this host's WebCrypto, asked once. */
export function usableServerGroups(): Promise<readonly KeyExchangeGroup[]> {
  usable ??= probeServerGroups(globalThis.crypto.subtle);
  return usable;
}
