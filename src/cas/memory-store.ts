import { type CasStore, type CasTable, casUri } from "./store";

/** An in-memory store: tests, and a page that runs without IndexedDB (private windows). */
export function createMemoryStore(): CasStore {
  const blobs = new Map<string, Uint8Array>();
  const tables: Record<CasTable, Map<string, unknown>> = { entries: new Map(), urls: new Map() };
  return {
    label: "memory",
    async getBlob(sha256) {
      const bytes = blobs.get(sha256);
      return bytes ? bytes.slice() : null;
    },
    async putBlob(sha256, bytes) {
      blobs.set(sha256, bytes.slice());
    },
    async deleteBlob(sha256) {
      blobs.delete(sha256);
    },
    async listBlobs() {
      return [...blobs.keys()];
    },
    async getRecord(table, key) {
      return structuredClone(tables[table].get(key));
    },
    async putRecord(table, key, value) {
      tables[table].set(key, structuredClone(value));
    },
    async deleteRecord(table, key) {
      tables[table].delete(key);
    },
    async listRecords(table) {
      return [...tables[table].values()].map((v) => structuredClone(v));
    },
    async clear() {
      blobs.clear();
      tables.entries.clear();
      tables.urls.clear();
    },
    locate: casUri,
  };
}
