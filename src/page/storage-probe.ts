/**
 * What this browser lets the page keep, probed once at start, never assumed: localStorage,
 * IndexedDB and the Cache API may each be missing, throw on access (a third-party iframe whose
 * browser blocks its storage, "block all site data", some private modes) or refuse on use.
 * The page runs every feature without them; it says once what it will not keep.
 */

/** Reaches each store; a getter may throw (Chromium's SecurityError for a blocked document). */
export interface StorageAccess {
  localStorage(): Storage | undefined;
  indexedDB(): Pick<IDBFactory, "open" | "deleteDatabase"> | undefined;
  caches(): Pick<CacheStorage, "open" | "delete"> | undefined;
}

export interface StorageProbe {
  /** localStorage that took a write and a removal here, or null. */
  localStorage: Storage | null;
  /** Whether a database opened here (the cache, the saved guest state). */
  indexedDB: boolean;
  /** Whether a cache opened here (the page keeps nothing there yet; probed so a feature never assumes it). */
  cacheApi: boolean;
}

const PROBE_KEY = "linux-in-a-tab-probe";
/** A browser that neither opens nor refuses a database within this counts as one that opens (its own errors then say more). */
const PROBE_LIMIT_MS = 2_000;

/** The page's own globals, each read inside the probe (reading one may throw). */
export const PAGE_STORAGE: StorageAccess = {
  localStorage: () => globalThis.localStorage,
  indexedDB: () => globalThis.indexedDB,
  caches: () => globalThis.caches,
};

export async function probeStorage(access: StorageAccess): Promise<StorageProbe> {
  const [indexedDB, cacheApi] = await Promise.all([opensDatabase(access), opensCache(access)]);
  return { localStorage: writableStorage(access), indexedDB, cacheApi };
}

/** A probe's answer without waiting: localStorage only (what the page's start needs at once). */
export function probeLocalStorage(access: StorageAccess): Storage | null {
  return writableStorage(access);
}

function writableStorage(access: StorageAccess): Storage | null {
  try {
    const storage = access.localStorage();
    if (storage === undefined || storage === null) return null;
    storage.setItem(PROBE_KEY, "1");
    storage.removeItem(PROBE_KEY);
    return storage;
  } catch {
    return null;
  }
}

function opensDatabase(access: StorageAccess): Promise<boolean> {
  return new Promise((resolve) => {
    let request: IDBOpenDBRequest;
    let idb: Pick<IDBFactory, "open" | "deleteDatabase"> | undefined;
    try {
      idb = access.indexedDB();
      if (idb === undefined || idb === null) return resolve(false);
      request = idb.open(PROBE_KEY);
    } catch {
      return resolve(false);
    }
    const timer = setTimeout(() => resolve(true), PROBE_LIMIT_MS);
    request.onsuccess = () => {
      clearTimeout(timer);
      request.result.close();
      try {
        idb?.deleteDatabase(PROBE_KEY);
      } catch {
        // Opened, so kept: the probe's empty database may stay.
      }
      resolve(true);
    };
    request.onerror = () => {
      clearTimeout(timer);
      resolve(false);
    };
  });
}

async function opensCache(access: StorageAccess): Promise<boolean> {
  try {
    const caches = access.caches();
    if (caches === undefined || caches === null) return false;
    await caches.open(PROBE_KEY);
    await caches.delete(PROBE_KEY);
    return true;
  } catch {
    return false;
  }
}

/** What the page will not keep past this visit, each in the reader's words; empty when all is kept. */
export function notKept(probe: Pick<StorageProbe, "localStorage" | "indexedDB">): string[] {
  const lost: string[] = [];
  if (probe.localStorage === null) lost.push("lesson and tour progress", "your org allowlist additions", "the relay and skill settings");
  if (!probe.indexedDB) lost.push("the saved guest state (each visit starts from the shipped one)", "the download cache");
  return lost;
}

/** The one sentence the page shows and logs when it keeps nothing of some kind, or null. */
export function storageNotice(probe: Pick<StorageProbe, "localStorage" | "indexedDB">): string | null {
  const lost = notKept(probe);
  if (lost.length === 0) return null;
  return `This browser does not let the page keep data here (blocked or partitioned storage): it works, but ${lost.join(", ")} will not be kept after you leave.`;
}
