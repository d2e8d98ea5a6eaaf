import { describe, expect, it } from "vitest";
import { EMPTY_HEAD, judgeBase, judgeHead, STALE_BASE_CODE, type VaultHead } from "./index";

// The KMS signs the vault's manifests and the vault's known debt:
// a validly signed but older manifest put back in the cache must not be accepted.

const m = (c: string) => c.repeat(64);
const head = (generation: number, c: string): VaultHead => ({ generation, manifest: m(c) });

describe("a head older than the one the KMS remembers is a rollback (vault-tampered, by kms)", () => {
  it.each<[string, VaultHead, VaultHead | null, string | null]>([
    ["the remembered head itself is accepted", head(2, "b"), head(2, "b"), null],
    ["a newer head (the KMS's memory lagged) is accepted", head(3, "c"), head(2, "b"), null],
    ["any head is accepted once when the KMS remembers none (a vault from before the check)", head(1, "a"), null, null],
    ["an empty vault is accepted when the KMS remembers none", EMPTY_HEAD, null, null],
    ["yesterday's manifest put back is refused as a rollback", head(1, "a"), head(2, "b"), "rollback refused"],
    ["a head removed from the cache (reads as empty) is refused as a rollback", EMPTY_HEAD, head(2, "b"), "no head for it"],
    ["another manifest at the remembered generation is refused", head(2, "d"), head(2, "b"), "at that generation"],
  ])("%s", (_name, found, known, why) => {
    const verdict = judgeHead("notes", found, known);
    if (why === null) {
      expect(verdict).toBeNull();
      return;
    }
    expect(verdict).toMatchObject({ allowed: false, code: "vault-tampered", by: "kms" });
    expect(verdict?.reason).toContain(why);
    expect(verdict?.reason).toContain("nothing stored was changed");
  });

  it("names both versions in a rollback's reason", () => {
    const reason = judgeHead("notes", head(1, "a"), head(2, "b"))?.reason ?? "";
    expect(reason).toContain(`generation 1 (manifest ${"a".repeat(12)}…)`);
    expect(reason).toContain(`generation 2 (manifest ${"b".repeat(12)}…)`);
  });
});

describe("a push lands only on the head it was made from", () => {
  it.each<[string, VaultHead, VaultHead, boolean]>([
    ["a base equal to the head", head(2, "b"), head(2, "b"), true],
    ["an empty base on an empty vault", EMPTY_HEAD, EMPTY_HEAD, true],
    ["an older base", head(1, "a"), head(2, "b"), false],
    ["an empty base on a vault that has a head", EMPTY_HEAD, head(1, "a"), false],
    ["a base at the head's generation but another manifest", head(2, "d"), head(2, "b"), false],
    ["a base from the future", head(5, "e"), head(2, "b"), false],
  ])("%s", (_name, base, current, lands) => {
    const verdict = judgeBase("notes", base, current);
    if (lands) {
      expect(verdict).toBeNull();
      return;
    }
    expect(verdict).toMatchObject({ allowed: false, code: STALE_BASE_CODE, by: "kms" });
    expect(verdict?.reason).toContain("stale base");
    expect(verdict?.reason).toContain("nothing was written");
  });
});
