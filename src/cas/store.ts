import { z } from "zod";

/** The two index tables beside the blobs: per-blob metadata, and URL → sha256. */
export type CasTable = "entries" | "urls";

/**
 * Where the cache keeps its bytes: a dumb keyed store. The cache (cas.ts) owns hashing and
 * verification, so an adapter only moves bytes and JSON-like records; records read back are
 * untrusted (a directory can be edited) and parsed with zod by the cache.
 */
export interface CasStore {
  /** A short name for diagnostics ("memory", "directory /x", "indexeddb db/store"). */
  readonly label: string;
  getBlob(sha256: string): Promise<Uint8Array | null>;
  /** Atomic: until it resolves no part of the blob is readable under the key. */
  putBlob(sha256: string, bytes: Uint8Array): Promise<void>;
  deleteBlob(sha256: string): Promise<void>;
  listBlobs(): Promise<string[]>;
  getRecord(table: CasTable, key: string): Promise<unknown>;
  putRecord(table: CasTable, key: string, value: unknown): Promise<void>;
  deleteRecord(table: CasTable, key: string): Promise<void>;
  listRecords(table: CasTable): Promise<unknown[]>;
  clear(): Promise<void>;
  /** A host path for a blob when there is one (the CLI's directory store); else a `cas:` URI. */
  locate(sha256: string): string;
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Per-blob metadata for the Cache panel. */
export const EntryRecord = z.object({
  sha256: z.string().regex(SHA256_HEX),
  size: z.number().int().nonnegative(),
  storedAt: z.number(),
  lastUsed: z.number(),
});
export type EntryRecord = z.infer<typeof EntryRecord>;

/** The URL index: which bytes a URL served and when (it lets offline mode serve unpinned resources). */
export const UrlRecord = z.object({
  url: z.string(),
  sha256: z.string().regex(SHA256_HEX),
  fetchedAt: z.number(),
});
export type UrlRecord = z.infer<typeof UrlRecord>;

/** Raised by a store when the quota or disk is full; the cache logs it and rethrows. */
export class CasQuotaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CasQuotaError";
  }
}

/** Quota exhaustion in any host's spelling: IndexedDB's DOMException name or a Node errno. */
export function isQuotaError(error: unknown): boolean {
  if (error instanceof CasQuotaError) return true;
  if (typeof error !== "object" || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === "QuotaExceededError" || code === "ENOSPC" || code === "EDQUOT";
}

export const casUri = (sha256: string): string => `cas:sha256:${sha256}`;
