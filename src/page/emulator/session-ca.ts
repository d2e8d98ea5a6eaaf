import { createStore, get, set, type UseStore } from "idb-keyval";
import { type CaKeysUnderWay, type createSessionCa, type loadSessionCa, type SessionCa, startCaKeys } from "../../tls";

/**
 * The page's CA for terminating the guest's TLS. Its private key is a non-extractable
 * CryptoKey kept in this origin's IndexedDB (structured clone keeps it non-extractable), so
 * it never leaves the page, and a guest restored from a saved state still trusts the CA
 * the page holds now. The guest reads the certificate from the 9p share on every run.
 */
let opened: UseStore | null = null;
/** Opened on first use: a browser that refuses IndexedDB (storage blocked) fails that use, not the import. */
const store = (): UseStore => {
  opened ??= createStore("linux-in-a-tab-ca", "ca");
  return opened;
};
// v2: RSA-2048 keys (v1 held ECDSA P-256 ones; a v1 entry is left unread and replaced).
const KEY = "session-ca-v2";
const MAX_AGE_MS = 20 * 60 * 60 * 1000;

interface StoredCa {
  keys: CryptoKeyPair;
  certPem: string;
  created: number;
}

/** The CA begun (beginSessionCa): the stored one still young enough, and the key pairs under way. */
export interface SessionCaStart {
  stored: StoredCa | null;
  keys: CaKeysUnderWay;
}

/** The CA module's two ways to a CA (src/tls/ca.ts), which the page loads apart (start-guest.ts). */
export interface CaCode {
  createSessionCa: typeof createSessionCa;
  loadSessionCa: typeof loadSessionCa;
}

/**
 * Begins the CA with what needs none of its X.509 code: reads the stored CA, and starts the key
 * pairs (the leaves', and a new CA's when none is stored: RSA keys, the slow part) on
 * WebCrypto's own thread.
 */
export async function beginSessionCa(maxAgeMs = MAX_AGE_MS): Promise<SessionCaStart> {
  let stored: StoredCa | null = null;
  try {
    const found = await get<StoredCa>(KEY, store());
    if (found && Date.now() - found.created < maxAgeMs) stored = found;
  } catch {
    // An unreadable entry is replaced by a new CA.
  }
  return { stored, keys: startCaKeys(stored === null) };
}

/** The CA begun, finished with its X.509 code: the stored one loaded, else a new one, stored. */
export async function obtainSessionCa(begun: SessionCaStart, code: CaCode): Promise<SessionCa> {
  if (begun.stored) {
    try {
      return await code.loadSessionCa(begun.stored, { keys: { leaf: begun.keys.leaf } });
    } catch {
      // A stored CA that does not load is replaced below.
    }
  }
  const ca = await code.createSessionCa({ keys: begun.keys });
  try {
    await set(KEY, { keys: ca.keys, certPem: ca.certPem, created: Date.now() } satisfies StoredCa, store());
  } catch {
    // Private browsing or a full quota: the CA then lives for this page only.
  }
  return ca;
}
