import { createStore, get, set } from "idb-keyval";
import { createSessionCa, loadSessionCa, type SessionCa } from "../../tls";

/**
 * The page's CA for terminating the guest's TLS. Its private key is a non-extractable
 * CryptoKey kept in this origin's IndexedDB (structured clone keeps it non-extractable), so
 * it never leaves the page, and a guest restored from a saved state still trusts the CA
 * the page holds now. The guest reads the certificate from the 9p share on every run.
 */
const store = createStore("linux-in-a-tab-ca", "ca");
// v2: RSA-2048 keys (v1 held ECDSA P-256 ones; a v1 entry is left unread and replaced).
const KEY = "session-ca-v2";

interface StoredCa {
  keys: CryptoKeyPair;
  certPem: string;
  created: number;
}

export async function obtainSessionCa(maxAgeMs = 20 * 60 * 60 * 1000): Promise<SessionCa> {
  try {
    const stored = await get<StoredCa>(KEY, store);
    if (stored && Date.now() - stored.created < maxAgeMs) return await loadSessionCa({ keys: stored.keys, certPem: stored.certPem });
  } catch {
    // An unreadable entry is replaced below.
  }
  const ca = await createSessionCa();
  try {
    await set(KEY, { keys: ca.keys, certPem: ca.certPem, created: Date.now() } satisfies StoredCa, store);
  } catch {
    // Private browsing or a full quota: the CA then lives for this page only.
  }
  return ca;
}
