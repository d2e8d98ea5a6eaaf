import { z } from "zod";
import { sha256Hex } from "../bytes";

/**
 * Where admitted bytes and handle records live. The page backs these with the CAS (IndexedDB,
 * keyed by sha256, re-hashed on every read); the CLI with a directory (`dir-store.node.ts`);
 * tests with memory. Skills never import the CAS: the host injects it.
 */

/** A content-addressed byte store keyed by lowercase hex sha256. */
export interface SkillBlobStore {
  /** Stores the bytes; resolves to their lowercase hex sha256. */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes whose sha256 is `sha256`, re-hashed on read; null when absent or corrupt. */
  get(sha256: string): Promise<Uint8Array | null>;
}

/** The handle table: which handles exist, and the provenance each carries. */
export interface SkillHandleStore {
  put(record: SkillHandleRecord): Promise<void>;
  get(handle: string): Promise<SkillHandleRecord | null>;
  list(): Promise<SkillHandleRecord[]>;
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A script held host-side: named, hashed and sized, never executed by acquisition. */
export const HeldScript = z.object({
  /** `scripts/<name>`, relative to the skill root. */
  path: z.string(),
  sha256: z.string().regex(SHA256_HEX),
  bytes: z.number().int().nonnegative(),
});
export type HeldScript = z.infer<typeof HeldScript>;

/**
 * What a handle stands for (the pin rides with the handle, not with the text). No
 * field holds skill text or is read out of it: `skillMdSha256` names the text in the store and
 * every other field comes from the host's own request or computation.
 */
export const SkillHandleRecord = z.object({
  handle: z.string(),
  /** The discovery id the operator chose (`owner/repo/slug`, or a well-known address). */
  discoveryId: z.string(),
  method: z.enum(["git-commit-sha", "well-known-digest"]),
  /** The exact pinned address the bytes came from (a tree URL at the SHA, or the SKILL.md URL). */
  sourceUrl: z.string(),
  commitSha: z.string().nullable(),
  /** The `sha256:<hex>` the index entry carried, verified against the bytes (well-known only). */
  indexDigest: z.string().nullable(),
  /** What scripts may be allowed for: the exact pin (see `mayRunScripts`). */
  pin: z.string(),
  /** The host-computed sha256 of SKILL.md: the key of the text in the store. */
  skillMdSha256: z.string().regex(SHA256_HEX),
  skillMdBytes: z.number().int().nonnegative(),
  scripts: z.array(HeldScript),
  resolvedAt: z.string().nullable(),
  receivedAt: z.string(),
});
export type SkillHandleRecord = z.infer<typeof SkillHandleRecord>;

/** A blob store in memory, re-hashing on read like the real ones (for tests and demos). */
export function createMemoryBlobStore(): SkillBlobStore & { readonly blobs: Map<string, Uint8Array> } {
  const blobs = new Map<string, Uint8Array>();
  return {
    blobs,
    async put(bytes) {
      const sha = await sha256Hex(bytes);
      blobs.set(sha, bytes.slice());
      return sha;
    },
    async get(sha) {
      const bytes = blobs.get(sha);
      if (!bytes) return null;
      return (await sha256Hex(bytes)) === sha ? bytes.slice() : null;
    },
  };
}

export function createMemoryHandleStore(): SkillHandleStore {
  const records = new Map<string, SkillHandleRecord>();
  return {
    async put(record) {
      records.set(record.handle, SkillHandleRecord.parse(record));
    },
    async get(handle) {
      return records.get(handle) ?? null;
    },
    async list() {
      return [...records.values()];
    },
  };
}
