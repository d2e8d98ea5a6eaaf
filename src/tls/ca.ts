import "./reflect-polyfill";
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
} from "@peculiar/x509";
import { equalBytes, sha256Hex, toHex } from "../bytes";
import type { Clock } from "../log";
import {
  type CaKeysUnderWay,
  type CertKeyType,
  certKeyTypeOf,
  DEFAULT_CA_KEY,
  DEFAULT_LEAF_KEY,
  generateCertKeys,
  KEY_TYPES,
} from "./cert-keys";
import { isCertifiableHost, normalizeHost } from "./host";

const HOUR = 3_600_000;

/** A per-host certificate the TLS server presents, with its non-extractable signing key. */
export interface LeafCertificate {
  host: string;
  der: Uint8Array;
  /** What the Certificate message carries: the leaf only (the guest trusts the CA itself). */
  chain: readonly Uint8Array[];
  privateKey: CryptoKey;
  /** The TLS SignatureScheme of this leaf's CertificateVerify. */
  scheme: number;
  /** Signs a CertificateVerify's content with the leaf key; the signature as TLS carries it. */
  signHandshake(content: Uint8Array): Promise<Uint8Array>;
  /** Lowercase hex SHA-256 of the leaf DER. */
  fingerprint: string;
  notBefore: Date;
  notAfter: Date;
}

/** The session's certificate authority: its certificate for the guest, and leaves minted on demand. */
export interface SessionCa {
  /** The CA certificate as PEM: what the guest installs (e.g. /usr/local/share/ca-certificates). */
  readonly certPem: string;
  readonly certDer: Uint8Array;
  /** Lowercase hex SHA-256 of the CA certificate DER. */
  readonly fingerprint: string;
  /** The key pair, for a host that persists the CA (IndexedDB stores a non-extractable CryptoKey). */
  readonly keys: CryptoKeyPair;
  readonly notAfter: Date;
  /** The TLS SignatureScheme every leaf of this CA signs CertificateVerify with; a client must offer it. */
  readonly leafScheme: number;
  /** The leaf for `host` (SAN = host, serverAuth), minted on first use and cached (LRU, maxLeaves) until near expiry. */
  leafFor(host: string): Promise<LeafCertificate>;
  /**
   * Mints ahead the leaves for `hosts` (e.g. a policy's host patterns), so the first connection
   * to each does not wait for one; a pattern that is not a certifiable name (`*.example.com`)
   * is skipped, and a failure is left for `leafFor` to report when the host is asked for.
   */
  prepare(hosts: readonly string[]): void;
}

export interface SessionCaOptions {
  now?: Clock;
  /** How long the CA certificate is valid; default 30 days, so a persisted CA outlives a session. */
  caValidityMs?: number;
  /** How long each leaf is valid; default 24 hours. */
  leafValidityMs?: number;
  /** Backdating of notBefore against guest clock skew; default 1 hour. */
  backdateMs?: number;
  /** The CA's common name. */
  commonName?: string;
  /** How many leaves are kept, least recently used dropped first; default DEFAULT_MAX_LEAVES. */
  maxLeaves?: number;
  /** The key type of a new CA (createSessionCa); a loaded CA keeps its own. Default DEFAULT_CA_KEY. */
  caKey?: CertKeyType;
  /** The key type of the leaves; default DEFAULT_LEAF_KEY. */
  leafKey?: CertKeyType;
  /** Key pairs already under way, of the types above (startCaKeys); what is missing is made here. */
  keys?: CaKeysUnderWay;
}

/**
 * Leaves kept at once. A wildcard rule lets the guest CONNECT to any number of names, and
 * each leaf (key pair, DER, promise) costs memory: past this many, the least recently used
 * is dropped and minted again if asked for.
 */
export const DEFAULT_MAX_LEAVES = 256;

function randomSerial(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01; // positive and of full length
  return toHex(bytes);
}

const der = (cert: X509Certificate): Uint8Array => new Uint8Array(cert.rawData);

/** Creates a new CA with a fresh, non-extractable key (of `options.caKey`, default DEFAULT_CA_KEY). */
export async function createSessionCa(options: SessionCaOptions = {}): Promise<SessionCa> {
  const now = options.now ?? Date.now;
  const caKey = options.caKey ?? DEFAULT_CA_KEY;
  const keys = await (options.keys?.ca ?? generateCertKeys(caKey, "ca"));
  const at = now();
  const commonName = options.commonName ?? `Linux in a tab session CA ${randomSerial().slice(0, 8)}`;
  const cert = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerial(),
      name: `CN=${commonName}`,
      notBefore: new Date(at - (options.backdateMs ?? HOUR)),
      notAfter: new Date(at + (options.caValidityMs ?? 30 * 24 * HOUR)),
      keys,
      signingAlgorithm: KEY_TYPES[caKey].certSigning,
      extensions: [
        new BasicConstraintsExtension(true, 0, true),
        new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
        await SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return sessionCaFrom(cert, keys, options);
}

/** Uses an existing CA (a persisted key pair and its certificate); refuses a pair that does not match. */
export async function loadSessionCa(
  existing: { keys: CryptoKeyPair; certPem: string },
  options: SessionCaOptions = {},
): Promise<SessionCa> {
  const cert = new X509Certificate(existing.certPem);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", existing.keys.publicKey));
  if (!equalBytes(spki, new Uint8Array(cert.publicKey.rawData))) throw new Error("the CA key pair does not match the CA certificate");
  return sessionCaFrom(cert, existing.keys, options);
}

async function sessionCaFrom(cert: X509Certificate, keys: CryptoKeyPair, options: SessionCaOptions): Promise<SessionCa> {
  const now = options.now ?? Date.now;
  const leafValidityMs = options.leafValidityMs ?? 24 * HOUR;
  const backdateMs = options.backdateMs ?? HOUR;
  const authorityKeyId = await AuthorityKeyIdentifierExtension.create(keys.publicKey, false, crypto);
  const maxLeaves = options.maxLeaves ?? DEFAULT_MAX_LEAVES;
  if (!Number.isInteger(maxLeaves) || maxLeaves < 1) throw new RangeError(`maxLeaves must be a positive integer, got ${maxLeaves}`);
  const certSigning = KEY_TYPES[certKeyTypeOf(keys.privateKey)].certSigning;
  const leafType = KEY_TYPES[options.leafKey ?? DEFAULT_LEAF_KEY];
  // One leaf key pair for all of this CA object's leaves (each host still gets its own
  // certificate): minting a leaf is then one signature, not a key generation, which matters
  // for RSA. The key is non-extractable and lives as long as the page's CA object; it is
  // generated now, ahead of the first connection.
  const leafKeys = options.keys?.leaf ?? generateCertKeys(options.leafKey ?? DEFAULT_LEAF_KEY, "leaf");
  leafKeys.catch(() => undefined); // awaited by mint(), which reports a failure
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const leaves = new Map<string, Promise<LeafCertificate>>();
  const remember = (host: string, leaf: Promise<LeafCertificate>): void => {
    leaves.delete(host);
    leaves.set(host, leaf);
    while (leaves.size > maxLeaves) {
      const oldest = leaves.keys().next();
      if (oldest.done) break;
      leaves.delete(oldest.value);
    }
  };

  async function mint(host: string): Promise<LeafCertificate> {
    const at = now();
    const { publicKey, privateKey } = await leafKeys;
    const notAfter = new Date(Math.min(at + leafValidityMs, cert.notAfter.getTime()));
    const leaf = await X509CertificateGenerator.create(
      {
        serialNumber: randomSerial(),
        subject: `CN=${host}`,
        issuer: cert.subject,
        notBefore: new Date(at - backdateMs),
        notAfter,
        publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: certSigning,
        extensions: [
          new BasicConstraintsExtension(false, undefined, true),
          new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
          new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth], false),
          new SubjectAlternativeNameExtension([{ type: "dns", value: host }], false),
          authorityKeyId,
          await SubjectKeyIdentifierExtension.create(publicKey, false, crypto),
        ],
      },
      crypto,
    );
    const leafDer = der(leaf);
    return {
      host,
      der: leafDer,
      chain: [leafDer],
      privateKey,
      scheme: leafType.scheme,
      signHandshake: (content) => leafType.signHandshake(privateKey, content),
      fingerprint: await sha256Hex(leafDer),
      notBefore: leaf.notBefore,
      notAfter: leaf.notAfter,
    };
  }

  const certDer = der(cert);
  const ca: SessionCa = {
    certPem: cert.toString("pem"),
    certDer,
    fingerprint: await sha256Hex(certDer),
    keys,
    notAfter: cert.notAfter,
    leafScheme: leafType.scheme,
    async leafFor(requested) {
      const host = normalizeHost(requested);
      if (!isCertifiableHost(host)) throw new RangeError(`${JSON.stringify(requested)} is not a DNS name a certificate can carry`);
      const cached = leaves.get(host);
      if (cached) {
        remember(host, cached);
        const leaf = await cached;
        if (now() < leaf.notAfter.getTime() - HOUR) return leaf;
      }
      const minted = mint(host);
      remember(host, minted);
      // Forget a failed mint, but only if it is still the one cached (not a newer one).
      minted.catch(() => {
        if (leaves.get(host) === minted) leaves.delete(host);
      });
      return minted;
    },
    prepare(hosts) {
      for (const host of hosts)
        if (isCertifiableHost(normalizeHost(host)) && !leaves.has(normalizeHost(host))) ca.leafFor(host).catch(() => undefined);
    },
  };
  return ca;
}

/** The CA certificate PEM the guest must trust (what `npx tab proxy --ca-out FILE` writes). */
export const caPem = (ca: SessionCa): string => ca.certPem;
