import { toHex } from "./hex";

/** The digest the core uses: WebCrypto's SHA-256, present in browsers, workers and Node. */
export type Sha256 = (bytes: Uint8Array) => Promise<Uint8Array>;

export const webSha256: Sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));

/** Lowercase hex SHA-256 of the bytes. */
export async function sha256Hex(bytes: Uint8Array, digest: Sha256 = webSha256): Promise<string> {
  return toHex(await digest(bytes));
}
