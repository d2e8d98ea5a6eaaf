import { describe, expect, it } from "vitest";
import { notKept, probeStorage, type StorageAccess, storageNotice } from "./storage-probe";

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => void items.delete(k),
    setItem: (k, v) => void items.set(k, v),
  };
}

/** An IndexedDB that answers each open with success or error, as a browser does (later). */
function fakeIndexedDb(opens: boolean): Pick<IDBFactory, "open" | "deleteDatabase"> {
  return {
    open: () => {
      const request = { result: { close: () => undefined } } as unknown as IDBOpenDBRequest;
      setTimeout(() => {
        const handler = opens ? request.onsuccess : request.onerror;
        handler?.call(request, new Event(opens ? "success" : "error"));
      }, 0);
      return request;
    },
    deleteDatabase: () => ({}) as IDBOpenDBRequest,
  };
}

const securityError = () => {
  throw new DOMException("Access is denied for this document.", "SecurityError");
};

const everythingAllowed: StorageAccess = {
  localStorage: memoryStorage,
  indexedDB: () => fakeIndexedDb(true),
  caches: () => ({ open: async () => ({}) as Cache, delete: async () => true }),
};

describe("the storage probe", () => {
  it("finds every store usable where the browser allows them, and the page then says nothing", async () => {
    const probe = await probeStorage(everythingAllowed);
    expect(probe.localStorage).not.toBeNull();
    expect(probe).toMatchObject({ indexedDB: true, cacheApi: true });
    expect(storageNotice(probe)).toBeNull();
  });

  it("reads stores whose very access throws a SecurityError as absent, never as a crash", async () => {
    const probe = await probeStorage({ localStorage: securityError, indexedDB: securityError, caches: securityError });
    expect(probe).toEqual({ localStorage: null, indexedDB: false, cacheApi: false });
  });

  it("reads a localStorage that refuses writes, a database that fails to open and a cache that rejects as absent", async () => {
    const refusing = memoryStorage();
    refusing.setItem = () => {
      throw new DOMException("quota", "QuotaExceededError");
    };
    const probe = await probeStorage({
      localStorage: () => refusing,
      indexedDB: () => fakeIndexedDb(false),
      caches: () => ({ open: () => Promise.reject(new DOMException("denied", "SecurityError")), delete: async () => false }),
    });
    expect(probe).toEqual({ localStorage: null, indexedDB: false, cacheApi: false });
  });

  it("reads missing globals (an engine without them) as absent", async () => {
    const probe = await probeStorage({ localStorage: () => undefined, indexedDB: () => undefined, caches: () => undefined });
    expect(probe).toEqual({ localStorage: null, indexedDB: false, cacheApi: false });
  });

  it("names progress, the allowlist and the saved state as not kept when storage is denied, in one sentence", () => {
    const notice = storageNotice({ localStorage: null, indexedDB: false });
    expect(notice).toContain("progress");
    expect(notice).toContain("allowlist");
    expect(notice).toContain("saved guest state");
    expect(notKept({ localStorage: memoryStorage(), indexedDB: false })).toEqual([
      "the saved guest state (each visit starts from the shipped one)",
      "the download cache",
    ]);
  });
});
