import { z } from "zod";

/**
 * The vault's wire and storage formats (docs/decisions/0006-vault-keys-stay-with-the-kms.md; the proxy's `/v0/vault/*` endpoints).
 * Everything here is parsed from untrusted bytes: the guest's request bodies and the cache's
 * blobs (the cache is IndexedDB, which anything on this origin can write).
 */

/** A vault id: lowercase, short, safe to print in a shell command and a log line. */
export const VaultId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "a vault id is 1-64 of a-z 0-9 . _ - (starting with a letter or digit)");
export type VaultId = z.infer<typeof VaultId>;

export const VaultOp = z.enum(["read", "write"]);
export type VaultOp = z.infer<typeof VaultOp>;

/**
 * An object path inside a vault: relative, `/`-separated, no `.` or `..` segment and a
 * conservative alphabet, because the guest client writes files under these names.
 */
export const ObjectPath = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/, "an object path is relative, /-separated, of A-Z a-z 0-9 . _ -")
  .refine((path) => !path.split("/").some((segment) => segment.includes("..")), "an object path has no '..'");

export const MAX_OBJECTS = 256;

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "content_base64 is standard base64");

/** `POST /v0/vault/grant`: a command asks for access to one vault. */
export const GrantRequest = z.strictObject({
  vault_id: VaultId,
  op: VaultOp,
  /** What the command is, as the guest names it (logged; not trusted for anything). */
  command: z
    .string()
    .max(200)
    .regex(/^[\x20-\x7e]*$/, "command is printable ASCII")
    .default(""),
});
export type GrantRequest = z.infer<typeof GrantRequest>;

/** `POST /v0/vault/pull`: read the vault with the grant named in `X-Vault-Grant`. */
export const PullRequest = z.strictObject({
  vault_id: VaultId,
  op: z.literal("read").default("read"),
});
export type PullRequest = z.infer<typeof PullRequest>;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "a lowercase hex sha256");

/**
 * A vault's head: which signed manifest is current, and its generation (the monotonic version
 * every manifest carries in its signed body). An empty vault is generation 0, manifest null.
 */
export const VaultHead = z
  .strictObject({ generation: z.number().int().nonnegative(), manifest: Sha256.nullable() })
  .refine((head) => (head.generation === 0) === (head.manifest === null), "generation 0 has no manifest, and only generation 0");
export type VaultHead = z.infer<typeof VaultHead>;

/** The head of a vault nothing was pushed to. */
export const EMPTY_HEAD: VaultHead = { generation: 0, manifest: null };

/** `POST /v0/vault/push`: replace the vault's objects with these (a whole tree, like a commit). */
export const PushRequest = z.strictObject({
  vault_id: VaultId,
  /** The head the client's tree was pulled from; a push lands only on the vault's current head. */
  base: VaultHead,
  objects: z
    .array(z.strictObject({ path: ObjectPath, content_base64: Base64 }))
    .max(MAX_OBJECTS)
    .refine((objects) => new Set(objects.map((o) => o.path)).size === objects.length, "two objects have the same path"),
});
export type PushRequest = z.infer<typeof PushRequest>;

/** One object as the manifest lists it: the sha256 is of the stored ciphertext (the CAS key). */
export const ManifestEntry = z.strictObject({
  path: ObjectPath,
  sha256: Sha256,
  /** Plaintext size in bytes. */
  size: z.number().int().nonnegative(),
});
export type ManifestEntry = z.infer<typeof ManifestEntry>;

export const MANIFEST_FORMAT = "tab-vault-manifest/1";

/** The signed part of a manifest. */
export const ManifestBody = z.strictObject({
  format: z.literal(MANIFEST_FORMAT),
  vault_id: VaultId,
  /**
   * 1 for the first push, +1 for each push after it: the vault's monotonic version. It is
   * signed, and the KMS remembers the highest it signed or verified, so an older manifest put
   * back in the cache is refused as a rollback.
   */
  generation: z.number().int().positive(),
  objects: z.array(ManifestEntry).max(MAX_OBJECTS),
});
export type ManifestBody = z.infer<typeof ManifestBody>;

/**
 * The manifest blob in the cache: the body's exact text and an ECDSA P-256/SHA-256 signature
 * over its UTF-8 bytes. Signing the text itself (not a re-serialisation) leaves nothing to
 * canonicalise.
 */
export const SignedManifest = z.strictObject({
  manifest: z.string(),
  signature: Base64,
});
export type SignedManifest = z.infer<typeof SignedManifest>;
