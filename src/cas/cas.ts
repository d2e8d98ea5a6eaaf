import { type Sha256, sha256Hex, webSha256 } from "../bytes";
import { type EventLog, refuse, type Verdict } from "../log";
import { type Clock, messageOf, systemClock } from "../platform";
import { CasQuotaError, type CasStore, EntryRecord, isQuotaError, SHA256_HEX, UrlRecord } from "./store";

/** What a read found. Corrupt bytes are never returned: only the refusal that says so. */
export type CasRead = { status: "hit"; bytes: Uint8Array } | { status: "miss" } | { status: "corrupt"; verdict: Verdict };

/** One row of the Cache panel. */
export interface CacheEntry {
  sha256: string;
  size: number;
  urls: string[];
  storedAt: number | null;
  lastUsed: number | null;
}

export interface VerifyReport {
  checked: number;
  corrupt: string[];
}

export interface Cas {
  /** Stores the bytes under their sha256 (blob first, then the index) and returns the key. */
  put(bytes: Uint8Array, options?: { url?: string }): Promise<string>;
  /** Reads and re-hashes; a mismatch evicts the entry, logs it and returns `corrupt`. */
  get(sha256: string): Promise<CasRead>;
  /** The URL index: the sha256 a URL last served, and when. */
  lookupUrl(url: string): Promise<UrlRecord | null>;
  rememberUrl(url: string, sha256: string): Promise<void>;
  list(): Promise<CacheEntry[]>;
  /** Re-hashes every blob, evicting the corrupt ones. */
  verifyAll(): Promise<VerifyReport>;
  remove(sha256: string): Promise<void>;
  clear(): Promise<void>;
  /** Where a blob lives for the host (a file path on the CLI, `cas:sha256:…` in the page). */
  locate(sha256: string): string;
  readonly store: CasStore;
}

export interface CasOptions {
  store: CasStore;
  /** Injected so the page can hash large blobs in a worker (Comlink). */
  digest?: Sha256;
  log?: EventLog;
  clock?: Clock;
}

/** The content-addressed cache: key = sha256 of the bytes, re-verified on every read. */
export function createCas(options: CasOptions): Cas {
  const { store, log } = options;
  const digest = options.digest ?? webSha256;
  const clock = options.clock ?? systemClock;
  const emit = (
    op: "hit" | "miss" | "put" | "corrupt" | "evict" | "clear" | "quota" | "verify",
    sha256: string | null,
    bytes: number,
    extra: { url?: string; message?: string } = {},
  ) => log?.append({ kind: "cache.event", op, sha256, bytes, ...extra });

  async function guarded<T>(what: string, sha256: string | null, size: number, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isQuotaError(error)) throw error;
      const message = `${what} did not fit in ${store.label}: ${messageOf(error)}`;
      emit("quota", sha256, size, { message });
      throw new CasQuotaError(message);
    }
  }

  async function evict(sha256: string): Promise<void> {
    await store.deleteBlob(sha256);
    await store.deleteRecord("entries", sha256);
  }

  async function touch(sha256: string, size: number): Promise<void> {
    const parsed = EntryRecord.safeParse(await store.getRecord("entries", sha256));
    const now = clock();
    const record =
      parsed.success && parsed.data.size === size ? { ...parsed.data, lastUsed: now } : { sha256, size, storedAt: now, lastUsed: now };
    await guarded("the cache index", sha256, 0, () => store.putRecord("entries", sha256, record));
  }

  const cas: Cas = {
    store,
    async put(bytes, opts = {}) {
      const sha256 = await sha256Hex(bytes, digest);
      const existing = await store.getBlob(sha256);
      // Only skip the write when what is there is verifiably the same content.
      if (existing === null || (await sha256Hex(existing, digest)) !== sha256) {
        await guarded(`${bytes.length} bytes`, sha256, bytes.length, () => store.putBlob(sha256, bytes));
      }
      const now = clock();
      const previous = EntryRecord.safeParse(await store.getRecord("entries", sha256));
      const record = { sha256, size: bytes.length, storedAt: previous.success ? previous.data.storedAt : now, lastUsed: now };
      await guarded("the cache index", sha256, 0, () => store.putRecord("entries", sha256, record));
      if (opts.url !== undefined) await cas.rememberUrl(opts.url, sha256);
      emit("put", sha256, bytes.length, opts.url === undefined ? {} : { url: opts.url });
      return sha256;
    },
    async get(sha256) {
      if (!SHA256_HEX.test(sha256)) {
        emit("miss", null, 0, { message: "not a lowercase sha256" });
        return { status: "miss" };
      }
      const bytes = await store.getBlob(sha256);
      if (bytes === null) {
        emit("miss", sha256, 0);
        return { status: "miss" };
      }
      const actual = await sha256Hex(bytes, digest);
      if (actual !== sha256) {
        await evict(sha256);
        const reason = `cached bytes for ${sha256} hash to ${actual}; the entry was evicted and not served`;
        emit("corrupt", sha256, bytes.length, { message: reason });
        emit("evict", sha256, bytes.length, { message: "corrupt" });
        return { status: "corrupt", verdict: refuse("cache-corrupt", reason, "cas") };
      }
      await touch(sha256, bytes.length);
      emit("hit", sha256, bytes.length);
      return { status: "hit", bytes };
    },
    async lookupUrl(url) {
      const parsed = UrlRecord.safeParse(await store.getRecord("urls", url));
      return parsed.success && parsed.data.url === url ? parsed.data : null;
    },
    async rememberUrl(url, sha256) {
      await guarded("the URL index", sha256, 0, () => store.putRecord("urls", url, { url, sha256, fetchedAt: clock() }));
    },
    async list() {
      const shas = await store.listBlobs();
      const urlsBySha = new Map<string, string[]>();
      for (const raw of await store.listRecords("urls")) {
        const parsed = UrlRecord.safeParse(raw);
        if (!parsed.success) continue;
        const list = urlsBySha.get(parsed.data.sha256) ?? [];
        list.push(parsed.data.url);
        urlsBySha.set(parsed.data.sha256, list);
      }
      const entries: CacheEntry[] = [];
      for (const sha256 of shas.sort()) {
        const meta = EntryRecord.safeParse(await store.getRecord("entries", sha256));
        let size = meta.success ? meta.data.size : -1;
        if (size < 0) size = (await store.getBlob(sha256))?.length ?? 0;
        entries.push({
          sha256,
          size,
          urls: (urlsBySha.get(sha256) ?? []).sort(),
          storedAt: meta.success ? meta.data.storedAt : null,
          lastUsed: meta.success ? meta.data.lastUsed : null,
        });
      }
      return entries;
    },
    async verifyAll() {
      const corrupt: string[] = [];
      const shas = await store.listBlobs();
      for (const sha256 of shas) {
        const bytes = await store.getBlob(sha256);
        if (bytes === null) continue;
        const actual = SHA256_HEX.test(sha256) ? await sha256Hex(bytes, digest) : "";
        if (actual === sha256) continue;
        corrupt.push(sha256);
        await evict(sha256);
        emit("corrupt", SHA256_HEX.test(sha256) ? sha256 : null, bytes.length, {
          message: `verify: bytes hash to ${actual || "(bad key)"}`,
        });
        emit("evict", SHA256_HEX.test(sha256) ? sha256 : null, bytes.length, { message: "corrupt" });
      }
      emit("verify", null, 0, { message: `${shas.length} checked, ${corrupt.length} corrupt` });
      return { checked: shas.length, corrupt };
    },
    async remove(sha256) {
      await evict(sha256);
      emit("evict", SHA256_HEX.test(sha256) ? sha256 : null, 0, { message: "removed" });
    },
    async clear() {
      await store.clear();
      emit("clear", null, 0);
    },
    locate: (sha256) => store.locate(sha256),
  };
  return cas;
}
