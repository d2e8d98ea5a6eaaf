import { decodeUtf8Strict, fromBase64, toBase64, utf8 } from "../bytes";
import type { Cas } from "../cas";
import { refuse, type Verdict } from "../log";
import { decryptObject, encryptObject, signBytes, type VaultKeys, verifyBytes, type WriteKeys } from "./crypto";
import { judgeBase, judgeHead } from "./head";
import { MANIFEST_FORMAT, ManifestBody, type ManifestEntry, SignedManifest, type VaultHead } from "./schema";

/**
 * Vault storage, encrypted at rest in the content-addressed cache: each object is an AES-GCM
 * ciphertext stored under its own sha256; a manifest lists the objects' paths and ciphertext
 * hashes and is signed with the vault's ECDSA key; the vault's head (which manifest is
 * current) is a `vault:<id>/manifest` entry in the cache's URL index. The cache is not
 * trusted: every read re-hashes (the CAS does), verifies the signature and authenticates
 * every ciphertext, and any failure is `vault-tampered`. A validly signed but older manifest
 * (a rollback) is refused against `known`, the head the KMS remembers (see ./head).
 */

export interface VaultObject {
  path: string;
  bytes: Uint8Array;
}

export interface VaultSnapshot {
  vaultId: string;
  /** 0 for a vault nothing was pushed to yet. */
  generation: number;
  /** sha256 of the signed manifest in the cache; null for an empty vault. */
  manifest: string | null;
  objects: VaultObject[];
}

export type VaultResult<T> = ({ ok: true } & T) | { ok: false; verdict: Verdict };

export interface WriteOptions {
  /** The head the new tree was made from: it must be the vault's current head. */
  base: VaultHead;
  /** The newest head the KMS remembers for this vault (null: none yet). */
  known: VaultHead | null;
}

export interface VaultStorage {
  /**
   * Verifies and decrypts the vault's current objects; refuses a head older than `known`
   * (the newest head the KMS remembers for this vault; null when it remembers none).
   */
  read(vaultId: string, keys: VaultKeys, known: VaultHead | null): Promise<VaultResult<{ snapshot: VaultSnapshot }>>;
  /**
   * Replaces the vault's objects (a whole tree) with a new signed manifest, one generation
   * after the current head, if that head is not a rollback and is the push's base.
   */
  write(
    vaultId: string,
    objects: readonly VaultObject[],
    keys: WriteKeys,
    options: WriteOptions,
  ): Promise<VaultResult<{ manifest: string; generation: number }>>;
  /** The sha256 of the vault's current manifest, unverified (null when nothing was pushed). */
  head(vaultId: string): Promise<string | null>;
}

/** The cache URL-index name of a vault's head. */
export const vaultHeadUri = (vaultId: string): string => `vault:${vaultId}/manifest`;

const tampered = (vaultId: string, why: string): { ok: false; verdict: Verdict } => ({
  ok: false,
  verdict: refuse("vault-tampered", `vault ${vaultId}: ${why}; nothing was served`, "kms"),
});

export function createVaultStorage(options: { cas: Cas }): VaultStorage {
  const { cas } = options;

  /** The verified current manifest, refused when it is older than `known` (a rollback). */
  async function readManifest(
    vaultId: string,
    verify: CryptoKey,
    known: VaultHead | null,
  ): Promise<VaultResult<{ sha256: string | null; body: ManifestBody | null }>> {
    const head = await cas.lookupUrl(vaultHeadUri(vaultId));
    if (!head) {
      const rollback = judgeHead(vaultId, { generation: 0, manifest: null }, known);
      return rollback ? { ok: false, verdict: rollback } : { ok: true, sha256: null, body: null };
    }
    const blob = await cas.get(head.sha256);
    if (blob.status === "miss") return tampered(vaultId, `its manifest ${head.sha256} is missing from the cache`);
    if (blob.status === "corrupt") return tampered(vaultId, `its manifest's bytes no longer hash to ${head.sha256}`);
    const text = decodeUtf8Strict(blob.bytes);
    let envelope: SignedManifest;
    try {
      envelope = SignedManifest.parse(JSON.parse(text ?? ""));
    } catch {
      return tampered(vaultId, "its manifest is not a signed manifest");
    }
    if (!(await verifyBytes(verify, fromBase64(envelope.signature), utf8(envelope.manifest))))
      return tampered(vaultId, "its manifest's signature does not verify with the vault's key");
    let body: ManifestBody;
    try {
      body = ManifestBody.parse(JSON.parse(envelope.manifest));
    } catch {
      return tampered(vaultId, "its signed manifest does not parse");
    }
    if (body.vault_id !== vaultId) return tampered(vaultId, `its manifest is signed for vault ${body.vault_id}`);
    const rollback = judgeHead(vaultId, { generation: body.generation, manifest: head.sha256 }, known);
    if (rollback) return { ok: false, verdict: rollback };
    return { ok: true, sha256: head.sha256, body };
  }

  return {
    async read(vaultId, keys, known) {
      const manifest = await readManifest(vaultId, keys.verify, known);
      if (!manifest.ok) return manifest;
      if (!manifest.body) return { ok: true, snapshot: { vaultId, generation: 0, manifest: null, objects: [] } };
      const objects: VaultObject[] = [];
      for (const entry of manifest.body.objects) {
        const blob = await cas.get(entry.sha256);
        if (blob.status !== "hit")
          return tampered(
            vaultId,
            `object ${entry.path} (${entry.sha256}) is ${blob.status === "miss" ? "missing" : "corrupt"} in the cache`,
          );
        const plain = await decryptObject(keys.content, vaultId, entry.path, blob.bytes);
        if (!plain || plain.length !== entry.size)
          return tampered(vaultId, `object ${entry.path} does not authenticate under the vault's key`);
        objects.push({ path: entry.path, bytes: plain });
      }
      return { ok: true, snapshot: { vaultId, generation: manifest.body.generation, manifest: manifest.sha256, objects } };
    },

    async write(vaultId, objects, keys, { base, known }) {
      // The previous manifest must verify and not be a rollback: pushing over a tampered
      // vault would bless it. And it must be the push's base: nobody's push is lost silently.
      const previous = await readManifest(vaultId, keys.verify, known);
      if (!previous.ok) return previous;
      const current: VaultHead = previous.body
        ? { generation: previous.body.generation, manifest: previous.sha256 }
        : { generation: 0, manifest: null };
      const stale = judgeBase(vaultId, base, current);
      if (stale) return { ok: false, verdict: stale };
      const entries: ManifestEntry[] = [];
      for (const object of [...objects].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
        const sealed = await encryptObject(keys.content, vaultId, object.path, object.bytes);
        entries.push({ path: object.path, sha256: await cas.put(sealed), size: object.bytes.length });
      }
      const generation = current.generation + 1;
      const body: ManifestBody = { format: MANIFEST_FORMAT, vault_id: vaultId, generation, objects: entries };
      const text = JSON.stringify(body);
      const signature = toBase64(await signBytes(keys.sign, utf8(text)));
      const manifest = await cas.put(utf8(JSON.stringify({ manifest: text, signature } satisfies SignedManifest)));
      await cas.rememberUrl(vaultHeadUri(vaultId), manifest);
      return { ok: true, manifest, generation };
    },

    async head(vaultId) {
      return (await cas.lookupUrl(vaultHeadUri(vaultId)))?.sha256 ?? null;
    },
  };
}
