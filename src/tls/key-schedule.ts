import { deriveSecret, HASH_LENGTH, hkdfExpandLabel, hkdfExtract, hmacSha256, sha256 } from "./hkdf";

/**
 * The TLS 1.3 key schedule for TLS_AES_128_GCM_SHA256 (RFC 8446 §7.1, §7.3), with or without a
 * resumption PSK. Every intermediate is returned so the RFC 8448 vectors can check each step.
 */

const ZEROS = new Uint8Array(HASH_LENGTH);
const EMPTY = new Uint8Array(0);
export const AES_128_KEY_LENGTH = 16;
export const GCM_IV_LENGTH = 12;

export interface HandshakeSecrets {
  earlySecret: Uint8Array;
  /** Derive-Secret(early, "derived", "") — the salt of the handshake secret. */
  derivedFromEarly: Uint8Array;
  handshakeSecret: Uint8Array;
  clientHandshakeTrafficSecret: Uint8Array;
  serverHandshakeTrafficSecret: Uint8Array;
}

export interface ApplicationSecrets {
  /** Derive-Secret(handshake, "derived", "") — the salt of the master secret. */
  derivedFromHandshake: Uint8Array;
  masterSecret: Uint8Array;
  clientApplicationTrafficSecret: Uint8Array;
  serverApplicationTrafficSecret: Uint8Array;
}

export interface TrafficKeys {
  key: Uint8Array;
  iv: Uint8Array;
}

/** early_secret = HKDF-Extract(0, PSK); without a PSK the IKM is HashLen zeros (§7.1). */
export function deriveEarlySecret(psk?: Uint8Array): Promise<Uint8Array> {
  return hkdfExtract(ZEROS, psk ?? ZEROS);
}

/**
 * From the (EC)DHE shared secret and Transcript-Hash(ClientHello..ServerHello); with a PSK
 * (psk_dhe_ke) the early secret is extracted from it instead of from zeros. A psk_ke
 * resumption has no (EC)DHE: `sharedSecret` is null and the handshake secret is extracted
 * from Hash.length zeros (§7.1: "If a given secret is not available, then the 0-value ... is used").
 */
export async function deriveHandshakeSecrets(
  sharedSecret: Uint8Array | null,
  helloHash: Uint8Array,
  psk?: Uint8Array,
): Promise<HandshakeSecrets> {
  const emptyHash = await sha256(EMPTY);
  const earlySecret = await deriveEarlySecret(psk);
  const derivedFromEarly = await deriveSecret(earlySecret, "derived", emptyHash);
  const handshakeSecret = await hkdfExtract(derivedFromEarly, sharedSecret ?? ZEROS);
  return {
    earlySecret,
    derivedFromEarly,
    handshakeSecret,
    clientHandshakeTrafficSecret: await deriveSecret(handshakeSecret, "c hs traffic", helloHash),
    serverHandshakeTrafficSecret: await deriveSecret(handshakeSecret, "s hs traffic", helloHash),
  };
}

/** From the handshake secret and Transcript-Hash(ClientHello..server Finished). */
export async function deriveApplicationSecrets(handshakeSecret: Uint8Array, serverFinishedHash: Uint8Array): Promise<ApplicationSecrets> {
  const derivedFromHandshake = await deriveSecret(handshakeSecret, "derived", await sha256(EMPTY));
  const masterSecret = await hkdfExtract(derivedFromHandshake, ZEROS);
  return {
    derivedFromHandshake,
    masterSecret,
    clientApplicationTrafficSecret: await deriveSecret(masterSecret, "c ap traffic", serverFinishedHash),
    serverApplicationTrafficSecret: await deriveSecret(masterSecret, "s ap traffic", serverFinishedHash),
  };
}

/** The AEAD key and IV of one direction (§7.3). */
export async function deriveTrafficKeys(trafficSecret: Uint8Array): Promise<TrafficKeys> {
  return {
    key: await hkdfExpandLabel(trafficSecret, "key", EMPTY, AES_128_KEY_LENGTH),
    iv: await hkdfExpandLabel(trafficSecret, "iv", EMPTY, GCM_IV_LENGTH),
  };
}

/** Finished.verify_data = HMAC(finished_key, Transcript-Hash(...)) (§4.4.4). */
export async function finishedVerifyData(trafficSecret: Uint8Array, transcriptHash: Uint8Array): Promise<Uint8Array> {
  const finishedKey = await hkdfExpandLabel(trafficSecret, "finished", EMPTY, HASH_LENGTH);
  return hmacSha256(finishedKey, transcriptHash);
}

/** application_traffic_secret_N+1 after a KeyUpdate (§7.2). */
export function nextTrafficSecret(trafficSecret: Uint8Array): Promise<Uint8Array> {
  return hkdfExpandLabel(trafficSecret, "traffic upd", EMPTY, HASH_LENGTH);
}

/**
 * The binder a client must send for a resumption PSK (§4.2.11.2): a Finished computed with
 * binder_key = Derive-Secret(early_secret, "res binder", "") over the truncated ClientHello's hash.
 */
export async function resumptionBinder(earlySecret: Uint8Array, truncatedHelloHash: Uint8Array): Promise<Uint8Array> {
  const binderKey = await deriveSecret(earlySecret, "res binder", await sha256(EMPTY));
  return finishedVerifyData(binderKey, truncatedHelloHash);
}

/** resumption_master_secret = Derive-Secret(master_secret, "res master", ClientHello..client Finished) (§7.1). */
export function resumptionMasterSecret(masterSecret: Uint8Array, clientFinishedHash: Uint8Array): Promise<Uint8Array> {
  return deriveSecret(masterSecret, "res master", clientFinishedHash);
}

/** A ticket's PSK = HKDF-Expand-Label(resumption_master_secret, "resumption", ticket_nonce, Hash.length) (§4.6.1). */
export function ticketPsk(resumptionMaster: Uint8Array, ticketNonce: Uint8Array): Promise<Uint8Array> {
  return hkdfExpandLabel(resumptionMaster, "resumption", ticketNonce, HASH_LENGTH);
}
