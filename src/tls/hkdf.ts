import { ByteWriter, concatBytes, utf8 } from "../bytes";

/**
 * HKDF (RFC 5869) with HMAC-SHA256 on WebCrypto, and TLS 1.3's HKDF-Expand-Label and
 * Derive-Secret (RFC 8446 §7.1). WebCrypto's own HKDF cannot take a raw PRK for Expand
 * alone, so both halves are built from HMAC.
 */

export const HASH_LENGTH = 32;

async function hmacKey(key: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", key as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

export async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(key), data as BufferSource));
}

export async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
}

/** HKDF-Extract(salt, IKM) = HMAC(salt, IKM); an empty salt means HashLen zeros. */
export function hkdfExtract(salt: Uint8Array, ikm: Uint8Array): Promise<Uint8Array> {
  return hmacSha256(salt.length === 0 ? new Uint8Array(HASH_LENGTH) : salt, ikm);
}

/** HKDF-Expand(PRK, info, L): T(i) = HMAC(PRK, T(i-1) | info | i). */
export async function hkdfExpand(prk: Uint8Array, info: Uint8Array, length: number): Promise<Uint8Array> {
  if (length > 255 * HASH_LENGTH) throw new RangeError(`HKDF-Expand length ${length} too large`);
  const key = await hmacKey(prk);
  const out = new Uint8Array(length);
  let previous = new Uint8Array(0);
  for (let i = 1, filled = 0; filled < length; i++) {
    const block = concatBytes(previous, info, Uint8Array.of(i));
    previous = new Uint8Array(await crypto.subtle.sign("HMAC", key, block as BufferSource));
    out.set(previous.subarray(0, Math.min(HASH_LENGTH, length - filled)), filled);
    filled += HASH_LENGTH;
  }
  return out;
}

/** The HkdfLabel structure: u16 length, "tls13 " + label <7..255>, context <0..255>. */
export function hkdfLabel(label: string, context: Uint8Array, length: number): Uint8Array {
  const w = new ByteWriter(64);
  w.u16(length);
  const endLabel = w.lengthPrefix(1);
  w.bytes(utf8(`tls13 ${label}`));
  endLabel();
  const endContext = w.lengthPrefix(1);
  w.bytes(context);
  endContext();
  return w.finish();
}

export function hkdfExpandLabel(secret: Uint8Array, label: string, context: Uint8Array, length: number): Promise<Uint8Array> {
  return hkdfExpand(secret, hkdfLabel(label, context, length), length);
}

/** Derive-Secret(Secret, Label, Messages), given the transcript hash of Messages. */
export function deriveSecret(secret: Uint8Array, label: string, transcriptHash: Uint8Array): Promise<Uint8Array> {
  return hkdfExpandLabel(secret, label, transcriptHash, HASH_LENGTH);
}
