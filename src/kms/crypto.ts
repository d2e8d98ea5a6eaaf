import { concatBytes, utf8 } from "../bytes";

/**
 * The vault's cryptography, on WebCrypto only (browsers, workers and Node alike):
 * AES-256-GCM for contents (the read key), ECDSA P-256 with SHA-256 for manifests (the
 * write key signs, its public half verifies). Keys are generated non-extractable: the page
 * can use them but no code, the guest least of all, can read their bytes.
 */

export interface VaultKeys {
  /** AES-GCM: decrypts (and encrypts) objects. What a read grant unlocks. */
  content: CryptoKey;
  /** ECDSA P-256 public key: verifies manifests. Public, so every grant has it. */
  verify: CryptoKey;
}

export interface WriteKeys extends VaultKeys {
  /** ECDSA P-256 private key: signs manifests. Only a write grant unlocks it. */
  sign: CryptoKey;
}

const IV_BYTES = 12;
const ECDSA = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGN = { name: "ECDSA", hash: "SHA-256" } as const;

export async function generateVaultKeys(): Promise<WriteKeys> {
  const content = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
  const pair = await crypto.subtle.generateKey(ECDSA, false, ["sign", "verify"]);
  return { content, sign: pair.privateKey, verify: pair.publicKey };
}

/** Binds a ciphertext to its vault and path, so moving it elsewhere fails authentication. */
function associatedData(vaultId: string, path: string): Uint8Array<ArrayBuffer> {
  return utf8(`tab-vault/1\0${vaultId}\0${path}`) as Uint8Array<ArrayBuffer>;
}

/** `iv (12 bytes) || AES-GCM ciphertext and tag`, with a fresh random IV. */
export async function encryptObject(key: CryptoKey, vaultId: string, path: string, plain: Uint8Array): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: associatedData(vaultId, path) },
    key,
    plain as Uint8Array<ArrayBuffer>,
  );
  return concatBytes(iv, new Uint8Array(sealed));
}

/** The plaintext, or null when the bytes do not authenticate under this key, vault and path. */
export async function decryptObject(key: CryptoKey, vaultId: string, path: string, stored: Uint8Array): Promise<Uint8Array | null> {
  if (stored.length < IV_BYTES + 16) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: stored.slice(0, IV_BYTES), additionalData: associatedData(vaultId, path) },
      key,
      stored.slice(IV_BYTES),
    );
    return new Uint8Array(plain);
  } catch {
    return null;
  }
}

export async function signBytes(key: CryptoKey, bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign(SIGN, key, bytes as Uint8Array<ArrayBuffer>));
}

export async function verifyBytes(key: CryptoKey, signature: Uint8Array, bytes: Uint8Array): Promise<boolean> {
  try {
    return await crypto.subtle.verify(SIGN, key, signature as Uint8Array<ArrayBuffer>, bytes as Uint8Array<ArrayBuffer>);
  } catch {
    return false;
  }
}
