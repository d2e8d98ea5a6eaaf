import { createStore, del, get, set, type UseStore } from "idb-keyval";
import { z } from "zod";
import type { WriteKeys } from "./crypto";
import { VaultHead } from "./schema";

/**
 * Where the KMS keeps each vault's keys (and the newest head it knows). A dumb keyed store: the page passes IndexedDB (keys
 * are structured-cloned CryptoKey objects, which stay non-extractable there), tests pass
 * memory. Records read back are untrusted and parsed by the KMS (`KeyRecord`).
 */
export interface KeyStore {
  readonly label: string;
  get(vaultId: string): Promise<unknown>;
  put(vaultId: string, record: KeyRecord): Promise<void>;
  delete(vaultId: string): Promise<void>;
}

const isKey = (type: KeyType, algorithm: string) =>
  z.custom<CryptoKey>(
    (value) => value instanceof CryptoKey && value.type === type && value.algorithm.name === algorithm,
    `a ${type} ${algorithm} CryptoKey`,
  );

export const KeyRecord = z.object({
  vaultId: z.string(),
  createdAt: z.number(),
  keys: z.object({
    content: isKey("secret", "AES-GCM"),
    sign: isKey("private", "ECDSA"),
    verify: isKey("public", "ECDSA"),
  }),
  /**
   * The newest head the KMS signed or verified for this vault: a manifest older than it is a
   * rollback. Kept here, with the keys, not in the cache whose manifests it judges. Absent in
   * records written before rollback detection (the next pull or push records it).
   */
  head: VaultHead.optional(),
});
export type KeyRecord = { vaultId: string; createdAt: number; keys: WriteKeys; head?: VaultHead };

export function createMemoryKeyStore(): KeyStore {
  const records = new Map<string, KeyRecord>();
  return {
    label: "memory",
    get: async (vaultId) => records.get(vaultId),
    put: async (vaultId, record) => {
      records.set(vaultId, record);
    },
    delete: async (vaultId) => {
      records.delete(vaultId);
    },
  };
}

/**
 * The page's key store: its own IndexedDB database (idb-keyval cannot add a second object
 * store to the cache's database), so clearing the cache never drops a key.
 */
export function createIdbKeyStore(dbName = "linux-in-a-tab-kms", storeName = "keys"): KeyStore {
  const store: UseStore = createStore(dbName, storeName);
  return {
    label: `indexeddb ${dbName}/${storeName}`,
    get: (vaultId) => get(`vault:${vaultId}`, store),
    put: (vaultId, record) => set(`vault:${vaultId}`, record, store),
    delete: (vaultId) => del(`vault:${vaultId}`, store),
  };
}
