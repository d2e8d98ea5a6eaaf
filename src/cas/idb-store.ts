import { clear, createStore, del, entries, get, keys, set, type UseStore } from "idb-keyval";
import { type CasStore, type CasTable, casUri } from "./store";

/**
 * The page's store on IndexedDB through idb-keyval: one object store, keys prefixed by what
 * they hold (`blob:`, `entries:`, `urls:`). Each `set` is its own IndexedDB transaction, so a
 * blob is either fully stored or absent; a QuotaExceededError propagates to the cache.
 */
export function createIdbStore(dbName = "linux-in-a-tab", storeName = "cas"): CasStore {
  const store: UseStore = createStore(dbName, storeName);
  const blobKey = (sha256: string) => `blob:${sha256}`;
  const recordKey = (table: CasTable, key: string) => `${table}:${key}`;
  return {
    label: `indexeddb ${dbName}/${storeName}`,
    async getBlob(sha256) {
      const value: unknown = await get(blobKey(sha256), store);
      return value instanceof Uint8Array ? value : null;
    },
    async putBlob(sha256, bytes) {
      await set(blobKey(sha256), bytes.slice(), store);
    },
    async deleteBlob(sha256) {
      await del(blobKey(sha256), store);
    },
    async listBlobs() {
      const all = await keys<string>(store);
      return all.filter((k) => typeof k === "string" && k.startsWith("blob:")).map((k) => k.slice(5));
    },
    async getRecord(table, key) {
      return get(recordKey(table, key), store);
    },
    async putRecord(table, key, value) {
      await set(recordKey(table, key), value, store);
    },
    async deleteRecord(table, key) {
      await del(recordKey(table, key), store);
    },
    async listRecords(table) {
      const prefix = `${table}:`;
      const all = await entries<string, unknown>(store);
      return all.filter(([k]) => typeof k === "string" && k.startsWith(prefix)).map(([, v]) => v);
    },
    async clear() {
      await clear(store);
    },
    locate: casUri,
  };
}
