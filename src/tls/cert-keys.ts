import { ECDSA_SECP256R1_SHA256, ED25519, RSA_PSS_RSAE_SHA256 } from "./constants";
import { p1363ToDer } from "./ecdsa";

/**
 * The key types a session CA and its leaves can have. Which one matters for speed on the
 * guest's side, not the page's: the guest's TLS client, on an emulated 32-bit CPU, verifies
 * the CA's signature on the leaf and the leaf's CertificateVerify on every connection, and an
 * RSA verification (public exponent 65537) cost it a fraction of an ECDSA P-256 or Ed25519
 * one (measured with the OpenSSL curl the guest had then; docs/performance.md).
 */
export type CertKeyType = "ecdsa-p256" | "rsa-2048" | "ed25519";

interface KeyTypeParams {
  /** WebCrypto generateKey parameters for a signing key of this type. */
  generate: EcKeyGenParams | RsaHashedKeyGenParams | Algorithm;
  /** How this key signs a certificate (@peculiar/x509's signingAlgorithm). */
  certSigning: Algorithm | EcdsaParams;
  /** The TLS 1.3 SignatureScheme of a CertificateVerify by this key (RFC 8446 §4.2.3). */
  scheme: number;
  /** Signs a CertificateVerify's content; returns the signature as TLS carries it. */
  signHandshake(key: CryptoKey, content: Uint8Array): Promise<Uint8Array>;
}

export const KEY_TYPES: Record<CertKeyType, KeyTypeParams> = {
  "ecdsa-p256": {
    generate: { name: "ECDSA", namedCurve: "P-256" } satisfies EcKeyGenParams,
    certSigning: { name: "ECDSA", hash: "SHA-256" } satisfies EcdsaParams,
    scheme: ECDSA_SECP256R1_SHA256,
    async signHandshake(key, content) {
      const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, content as BufferSource);
      return p1363ToDer(new Uint8Array(signature));
    },
  },
  // One RSA key pair signs both ways: certificates as RSASSA-PKCS1-v1_5 (the rsa_pkcs1_sha256 every
  // TLS 1.3 client accepts in certificates) and, for a leaf, CertificateVerify as RSA-PSS
  // (rsa_pss_rsae_sha256, the scheme TLS 1.3 requires for an rsaEncryption key). WebCrypto binds a
  // key to one algorithm, so a leaf key is generated as RSA-PSS and a CA key as RSASSA-PKCS1-v1_5.
  "rsa-2048": {
    generate: { name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    certSigning: { name: "RSASSA-PKCS1-v1_5" },
    scheme: RSA_PSS_RSAE_SHA256,
    async signHandshake(key, content) {
      // §4.2.3: RSASSA-PSS with the salt as long as the digest.
      return new Uint8Array(await crypto.subtle.sign({ name: "RSA-PSS", saltLength: 32 }, key, content as BufferSource));
    },
  },
  ed25519: {
    generate: { name: "Ed25519" },
    certSigning: { name: "Ed25519" },
    scheme: ED25519,
    async signHandshake(key, content) {
      return new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key, content as BufferSource));
    },
  },
};

/** A fresh, non-extractable key pair of `type`: a leaf's (it signs CertificateVerify) or a CA's (it signs certificates). */
export async function generateCertKeys(type: CertKeyType, role: "leaf" | "ca"): Promise<CryptoKeyPair> {
  const params = KEY_TYPES[type].generate;
  const generate = type === "rsa-2048" && role === "ca" ? { ...(params as RsaHashedKeyGenParams), name: "RSASSA-PKCS1-v1_5" } : params;
  return (await crypto.subtle.generateKey(generate, false, ["sign", "verify"])) as CryptoKeyPair;
}

/** The key type of an existing key (a persisted CA's), from its WebCrypto algorithm. */
export function certKeyTypeOf(key: CryptoKey): CertKeyType {
  const algorithm = key.algorithm as KeyAlgorithm & { namedCurve?: string; modulusLength?: number };
  if (algorithm.name === "ECDSA" && algorithm.namedCurve === "P-256") return "ecdsa-p256";
  if ((algorithm.name === "RSASSA-PKCS1-v1_5" || algorithm.name === "RSA-PSS") && algorithm.modulusLength === 2048) return "rsa-2048";
  if (algorithm.name === "Ed25519") return "ed25519";
  throw new Error(`a CA key of an unsupported type: ${JSON.stringify(algorithm)}`);
}

/**
 * The key types a new session CA and its leaves get by default: RSA-2048 for both, because the
 * guest verifies both signatures on every connection and an RSA verification is the cheapest
 * one for its emulated 32-bit CPU (docs/performance.md). The page pays for it once: an RSA key
 * takes longer to generate than an EC one, but there is one CA key per 20 hours and one leaf
 * key per session CA, generated ahead of the first connection.
 */
export const DEFAULT_CA_KEY: CertKeyType = "rsa-2048";
export const DEFAULT_LEAF_KEY: CertKeyType = "rsa-2048";

/** Key pairs a session CA takes already under way (SessionCaOptions.keys). */
export interface CaKeysUnderWay {
  /** A new CA's own (createSessionCa only), of `caKey`'s type. */
  ca?: Promise<CryptoKeyPair>;
  /** Its leaves', of `leafKey`'s type. */
  leaf?: Promise<CryptoKeyPair>;
}

/**
 * Starts making the default key pairs of a session CA: the leaves' always, the CA's own when
 * `newCa` says there is none to load. It is WebCrypto alone, off the page's main thread, so a
 * host can start it before it loads the CA's X.509 code (src/page/emulator/start-guest.ts);
 * RSA keys are the slow part of a new CA.
 */
export function startCaKeys(newCa: boolean): CaKeysUnderWay {
  const keys: CaKeysUnderWay = { leaf: generateCertKeys(DEFAULT_LEAF_KEY, "leaf") };
  if (newCa) keys.ca = generateCertKeys(DEFAULT_CA_KEY, "ca");
  // Awaited by the CA that takes them; a host that never does must not see an unhandled rejection.
  for (const pair of Object.values(keys)) pair.catch(() => undefined);
  return keys;
}
