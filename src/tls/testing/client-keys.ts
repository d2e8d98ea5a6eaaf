/** A client's ephemeral key pair, made with WebCrypto as a real client would, and its key share on the wire. */
export interface ClientKey {
  privateKey: CryptoKey;
  /** The key_exchange bytes: 32 for X25519, the 65-byte uncompressed point for P-256. */
  share: Uint8Array;
  /** The secret this client derives with the server's share. */
  secretWith(serverShare: Uint8Array): Promise<Uint8Array>;
}

async function clientKey(generate: Algorithm | EcKeyGenParams, derive: string): Promise<ClientKey> {
  const pair = (await crypto.subtle.generateKey(generate, true, ["deriveBits"])) as CryptoKeyPair;
  return {
    privateKey: pair.privateKey,
    share: new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey)),
    async secretWith(serverShare) {
      const peer = await crypto.subtle.importKey("raw", serverShare as BufferSource, generate, true, []);
      return new Uint8Array(await crypto.subtle.deriveBits({ name: derive, public: peer }, pair.privateKey, 256));
    },
  };
}

export const p256ClientKey = (): Promise<ClientKey> => clientKey({ name: "ECDH", namedCurve: "P-256" } as EcKeyGenParams, "ECDH");
export const x25519ClientKey = (): Promise<ClientKey> => clientKey({ name: "X25519" }, "X25519");

/** The SEC 1 compressed form of an uncompressed P-256 point: 0x02 or 0x03 (Y's parity), then X. */
export function compressP256(uncompressed: Uint8Array): Uint8Array {
  const out = new Uint8Array(33);
  out[0] = 0x02 | (uncompressed[64]! & 1);
  out.set(uncompressed.subarray(1, 33), 1);
  return out;
}
