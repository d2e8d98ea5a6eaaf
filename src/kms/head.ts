import { refuse, type Verdict } from "../log";
import type { VaultHead } from "./schema";

/**
 * Judging a vault's head against what the KMS remembers (rollback detection) and against the
 * base a push names (no push over a head it did not start from). Pure: the storage reads the
 * head, the KMS remembers, these decide.
 *
 * The threat: whoever can write the cache (IndexedDB on this origin, or a synced copy) can
 * put back yesterday's manifest. It is validly signed, so the signature alone accepts it; the
 * generation in its signed body and the KMS's memory of the highest generation (kept with the
 * vault's keys, not in the cache) refuse it.
 */

/** How a head is named in a reason: its generation and the start of its manifest's sha256. */
export function describeHead(head: VaultHead): string {
  return head.manifest === null ? "generation 0 (empty)" : `generation ${head.generation} (manifest ${head.manifest.slice(0, 12)}…)`;
}

export const sameHead = (a: VaultHead, b: VaultHead): boolean => a.generation === b.generation && a.manifest === b.manifest;

/**
 * Null when `found` (the verified head in the cache) is the one the KMS remembers or newer;
 * `vault-tampered` when it is older (a rollback) or another manifest at the same generation.
 * A KMS that remembers nothing (null: a vault from before this check) accepts any head once.
 */
export function judgeHead(vaultId: string, found: VaultHead, known: VaultHead | null): Verdict | null {
  if (known === null || known.manifest === null) return null;
  const unchanged = "nothing was served and nothing stored was changed";
  if (found.generation < known.generation) {
    const what =
      found.manifest === null
        ? "the cache has no head for it (it would read as empty, generation 0)"
        : `the cache's head is ${describeHead(found)}`;
    return refuse(
      "vault-tampered",
      `vault ${vaultId}: rollback refused: ${what}, older than ${describeHead(known)}, which the KMS signed or verified; ${unchanged}`,
      "kms",
    );
  }
  if (found.generation === known.generation && found.manifest !== known.manifest)
    return refuse(
      "vault-tampered",
      `vault ${vaultId}: the cache's head is ${describeHead(found)}, but the KMS knows ${describeHead(known)} at that generation; ${unchanged}`,
      "kms",
    );
  return null;
}

/** The code a push on a stale base is refused with. */
export const STALE_BASE_CODE = "vault-stale-base";

/** Null when the push's base is the vault's current head; otherwise the refusal (nothing is written). */
export function judgeBase(vaultId: string, base: VaultHead, head: VaultHead): Verdict | null {
  if (sameHead(base, head)) return null;
  return refuse(
    STALE_BASE_CODE,
    `vault ${vaultId}: stale base: the push is based on ${describeHead(base)} but the vault's head is ${describeHead(head)}; pull, re-apply the change and push again; nothing was written`,
    "kms",
  );
}
