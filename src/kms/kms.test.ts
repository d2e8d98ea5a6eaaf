import { describe, expect, it } from "vitest";
import type { VaultOp } from "./index";
import { policyWith, vaultFixture } from "./testing/fixtures";

// Row 8 of the verdict table: a push under a grant that asked op=read cannot be signed,
// because the KMS gave out only the read key.

const policy = policyWith("notes", "other");

describe("grants are issued only for vault ids on the policy (the vault-id allowlist)", () => {
  it("issues a grant for an allowed vault, with an expiry, and logs it without the token", async () => {
    const f = vaultFixture({ grantTtlMs: 60_000 });
    const { verdict, grant } = await f.kms.grant({ vaultId: "notes", op: "read", command: "sgit pull notes" }, policy);
    expect(verdict).toMatchObject({ allowed: true, by: "kms" });
    expect(grant).toMatchObject({ vaultId: "notes", op: "read", command: "sgit pull notes", expiresAt: 1_000_000 + 60_000 });
    expect(grant?.id).toMatch(/^g-[0-9a-f]{32}$/);
    const events = f.kmsEvents();
    expect(events.map((e) => [e.op, e.allowed])).toEqual([
      ["create", true],
      ["grant", true],
    ]);
    expect(events[1]).toMatchObject({ access: "read", command: "sgit pull notes", expiresAt: 1_060_000 });
    expect(JSON.stringify(f.log.events())).not.toContain(grant?.id);
  });

  it.each<[string, string, VaultOp]>([
    ["a read grant for a vault not on the policy", "secrets", "read"],
    ["a write grant for a vault not on the policy", "secrets", "write"],
  ])("refuses %s (vault-not-allowed, by kms) and logs the refusal", async (_name, vaultId, op) => {
    const f = vaultFixture();
    const { verdict, grant } = await f.kms.grant({ vaultId, op, command: "sgit" }, policy);
    expect(grant).toBeUndefined();
    expect(verdict).toMatchObject({ allowed: false, code: "vault-not-allowed", by: "kms" });
    expect(f.kmsEvents()).toMatchObject([{ op: "grant", vaultId, allowed: false, code: "vault-not-allowed", by: "kms" }]);
    expect(await f.kms.hasVault(vaultId)).toBe(false);
  });

  it("creates a vault's keys once, even when two grants for a new vault race", async () => {
    const f = vaultFixture();
    await Promise.all([
      f.kms.grant({ vaultId: "notes", op: "read", command: "a" }, policy),
      f.kms.grant({ vaultId: "notes", op: "write", command: "b" }, policy),
    ]);
    expect(f.kmsEvents().filter((e) => e.op === "create")).toHaveLength(1);
  });

  it("generates keys that cannot be exported (never to the guest, not even to page code)", async () => {
    const f = vaultFixture();
    await f.kms.grant({ vaultId: "notes", op: "write", command: "x" }, policy);
    const record = (await f.keys.get("notes")) as { keys: { content: CryptoKey; sign: CryptoKey } };
    expect(record.keys.content.extractable).toBe(false);
    expect(record.keys.sign.extractable).toBe(false);
    await expect(crypto.subtle.exportKey("raw", record.keys.content)).rejects.toThrow();
    await expect(crypto.subtle.exportKey("pkcs8", record.keys.sign)).rejects.toThrow();
  });
});

describe("a grant unlocks only its vault and its op, until it expires", () => {
  type Case = {
    granted: { vaultId: string; op: VaultOp } | null;
    token?: string;
    use: { vaultId: string; op: VaultOp };
    after?: number;
    policyNow?: string[];
    code: string;
    allowed: boolean;
    sign?: boolean;
  };
  it.each<[string, Case]>([
    [
      "a read grant unlocks a pull (content key, no signing key)",
      { granted: { vaultId: "notes", op: "read" }, use: { vaultId: "notes", op: "read" }, code: "served", allowed: true, sign: false },
    ],
    [
      "a write grant unlocks a push, with the signing key",
      { granted: { vaultId: "notes", op: "write" }, use: { vaultId: "notes", op: "write" }, code: "served", allowed: true, sign: true },
    ],
    [
      "a write grant used to pull gets the read keys only",
      { granted: { vaultId: "notes", op: "write" }, use: { vaultId: "notes", op: "read" }, code: "served", allowed: true, sign: false },
    ],
    [
      "a read grant used to push: only the read key, the push cannot be signed",
      { granted: { vaultId: "notes", op: "read" }, use: { vaultId: "notes", op: "write" }, code: "vault-op-not-granted", allowed: false },
    ],
    [
      "a grant for one vault used on another",
      { granted: { vaultId: "notes", op: "write" }, use: { vaultId: "other", op: "read" }, code: "vault-op-not-granted", allowed: false },
    ],
    ["no grant token at all", { granted: null, use: { vaultId: "notes", op: "read" }, code: "vault-op-not-granted", allowed: false }],
    [
      "a token the KMS never issued",
      {
        granted: null,
        token: "g-00000000000000000000000000000000",
        use: { vaultId: "notes", op: "read" },
        code: "vault-op-not-granted",
        allowed: false,
      },
    ],
    [
      "a grant used after it expired",
      {
        granted: { vaultId: "notes", op: "write" },
        use: { vaultId: "notes", op: "write" },
        after: 60_000,
        code: "grant-expired",
        allowed: false,
      },
    ],
    [
      "a grant used just before it expires",
      {
        granted: { vaultId: "notes", op: "read" },
        use: { vaultId: "notes", op: "read" },
        after: 59_999,
        code: "served",
        allowed: true,
        sign: false,
      },
    ],
    [
      "a grant whose vault was taken off the policy since",
      {
        granted: { vaultId: "notes", op: "write" },
        use: { vaultId: "notes", op: "write" },
        policyNow: ["other"],
        code: "vault-not-allowed",
        allowed: false,
      },
    ],
  ])("%s", async (_name, c) => {
    const f = vaultFixture({ grantTtlMs: 60_000 });
    const issued = c.granted ? await f.kms.grant({ ...c.granted, command: "test" }, policy) : null;
    if (c.after) f.advance(c.after);
    const token = c.token ?? issued?.grant?.id ?? null;
    const outcome = await f.kms.keysFor(token, c.use.vaultId, c.use.op, c.policyNow ? policyWith(...c.policyNow) : policy);
    expect(outcome.verdict).toMatchObject({ allowed: c.allowed, code: c.code, by: "kms" });
    expect(outcome.keys !== undefined).toBe(c.allowed);
    if (c.sign !== undefined) expect(outcome.keys !== undefined && "sign" in outcome.keys).toBe(c.sign);
  });

  it("says why a read-granted push is refused in the words of the verdict table", async () => {
    const f = vaultFixture();
    const { grant } = await f.kms.grant({ vaultId: "notes", op: "read", command: "sgit" }, policy);
    const outcome = await f.kms.keysFor(grant?.id ?? null, "notes", "write", policy);
    expect(outcome.verdict.reason).toContain("the KMS returned only the read key; the push cannot be signed");
  });

  it("refuses a vault whose key record in the store is unreadable, rather than making new keys over its data", async () => {
    const f = vaultFixture();
    await f.kms.grant({ vaultId: "notes", op: "write", command: "x" }, policy);
    const record = (await f.keys.get("notes")) as object;
    await f.keys.put("notes", { ...record, keys: { content: "not a key" } } as never);
    const { verdict } = await f.kms.grant({ vaultId: "notes", op: "read", command: "y" }, policy);
    expect(verdict).toMatchObject({ allowed: false, code: "vault-tampered", by: "kms" });
  });
});
