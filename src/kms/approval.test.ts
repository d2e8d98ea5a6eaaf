import { describe, expect, it } from "vitest";
import { createEventLog } from "../log";
import { fakeTimers } from "../platform/testing/fake-timers";
import { createKms, createMemoryKeyStore, type WriteApprovalRequest, type WriteApprover } from "./index";
import { policyWith, vaultFixture } from "./testing/fixtures";
import { proxiedVault } from "./testing/proxy";

// The KMS gives keys for one command only (docs/decisions/0006-vault-keys-stay-with-the-kms.md). The vault's known debt:
// any guest process that reaches the proxy port (an agent under llrun included) could ask for
// a write grant. A write grant now waits for the operator; a read grant (row 8) does not.

const policy = policyWith("notes");

/** An operator the test answers for; `asked` resolves with the request once the KMS asks. */
function operator() {
  let answer: (approved: boolean) => void = () => undefined;
  let seen: (request: WriteApprovalRequest) => void = () => undefined;
  const asked = new Promise<WriteApprovalRequest>((resolve) => {
    seen = resolve;
  });
  const calls: WriteApprovalRequest[] = [];
  const approver: WriteApprover = (request) => {
    calls.push(request);
    seen(request);
    return new Promise<boolean>((resolve) => {
      answer = resolve;
    });
  };
  return { approver, asked, calls, answer: (approved: boolean) => answer(approved) };
}

describe("a write grant for the guest waits for the operator", () => {
  it.each<[string, boolean, boolean, string]>([
    ["the operator approves: the grant is issued, with the signing key", true, true, "the operator approved"],
    ["the operator denies: refused (vault-op-not-granted), nothing unlocked", false, false, "the operator denied it"],
  ])("%s", async (_name, approves, granted, why) => {
    const op = operator();
    const f = vaultFixture({ approveWrite: op.approver });
    const pending = f.kms.grant({ vaultId: "notes", op: "write", command: "sgit push notes (pid 42)" }, policy);
    const request = await op.asked;
    expect(request).toMatchObject({ vaultId: "notes", op: "write", command: "sgit push notes (pid 42)", deadline: 1_000_000 + 60_000 });
    op.answer(approves);
    const { verdict, grant } = await pending;
    expect(grant !== undefined).toBe(granted);
    expect(verdict).toMatchObject({ allowed: granted, code: granted ? "served" : "vault-op-not-granted", by: "kms" });
    expect(verdict.reason).toContain(why);
    const decision = f.kmsEvents().filter((e) => e.op === "grant");
    expect(decision).toMatchObject([
      { vaultId: "notes", access: "write", command: "sgit push notes (pid 42)", allowed: granted, reason: verdict.reason },
    ]);
    if (grant) expect((await f.kms.keysFor(grant.id, "notes", "write", policy)).keys).toHaveProperty("sign");
    // A denied grant for a vault that has no keys yet does not create them.
    expect(await f.kms.hasVault("notes")).toBe(granted);
  });

  it("refuses when the operator does not answer in time, and withdraws the question", async () => {
    const op = operator();
    const clock = fakeTimers();
    const f = vaultFixture({ approveWrite: op.approver, timers: clock, approvalTimeoutMs: 60_000 });
    const pending = f.kms.grant({ vaultId: "notes", op: "write", command: "sgit push notes" }, policy);
    const request = await op.asked;
    expect(clock.armed()).toHaveLength(1);
    expect(request.signal.aborted).toBe(false);
    clock.fireArmed();
    const { verdict, grant } = await pending;
    expect(grant).toBeUndefined();
    expect(verdict).toMatchObject({ allowed: false, code: "vault-op-not-granted", by: "kms" });
    expect(verdict.reason).toContain("the operator did not approve in time");
    expect(request.signal.aborted).toBe(true);
    expect(f.kmsEvents().at(-1)).toMatchObject({ op: "grant", access: "write", allowed: false, code: "vault-op-not-granted" });
    // A late answer changes nothing.
    op.answer(true);
    expect(f.kmsEvents().filter((e) => e.op === "grant")).toHaveLength(1);
  });

  it("stops the timer once the operator has answered", async () => {
    const op = operator();
    const clock = fakeTimers();
    const f = vaultFixture({ approveWrite: op.approver, timers: clock });
    const pending = f.kms.grant({ vaultId: "notes", op: "write", command: "x" }, policy);
    await op.asked;
    op.answer(true);
    expect((await pending).grant).toBeDefined();
    expect(clock.armed()).toEqual([]);
  });

  it.each<[string, WriteApprover, string]>([
    [
      "an approver that throws",
      () => {
        throw new Error("the card could not be shown");
      },
      "asking the operator failed (the card could not be shown)",
    ],
    ["an approver that rejects", () => Promise.reject(new Error("closed")), "asking the operator failed (closed)"],
    ["an approver that answers something other than true", async () => "yes" as unknown as boolean, "the operator denied it"],
  ])("refuses the grant with %s", async (_name, approver, why) => {
    const f = vaultFixture({ approveWrite: approver });
    const { verdict } = await f.kms.grant({ vaultId: "notes", op: "write", command: "x" }, policy);
    expect(verdict).toMatchObject({ allowed: false, code: "vault-op-not-granted" });
    expect(verdict.reason).toContain(why);
  });

  it("refuses every guest write grant when no operator is attached", async () => {
    const kms = createKms({ keys: createMemoryKeyStore(), log: createEventLog() });
    const { verdict } = await kms.grant({ vaultId: "notes", op: "write", command: "x" }, policy);
    expect(verdict).toMatchObject({ allowed: false, code: "vault-op-not-granted" });
    expect(verdict.reason).toContain("no operator is attached");
  });

  it("refuses at once while too many write grants already wait (the guest cannot flood the operator)", async () => {
    const approver: WriteApprover = () => new Promise<boolean>(() => undefined);
    const clock = fakeTimers();
    const f = vaultFixture({ approveWrite: approver, timers: clock });
    const waiting = [1, 2, 3, 4].map((n) => f.kms.grant({ vaultId: "notes", op: "write", command: `w${n}` }, policy));
    const { verdict } = await f.kms.grant({ vaultId: "notes", op: "write", command: "w5" }, policy);
    expect(verdict).toMatchObject({ allowed: false, code: "vault-op-not-granted" });
    expect(verdict.reason).toContain("already waiting for the operator");
    clock.fireArmed();
    expect((await Promise.all(waiting)).every((o) => o.grant === undefined)).toBe(true);
  });

  it.each<[string, "read" | "write", "guest" | "host"]>([
    ["a read grant (row 8 of the verdict table depends on it)", "read", "guest"],
    ["a write grant the page asks for itself (seeding its demo vault)", "write", "host"],
  ])("does not ask the operator for %s", async (_name, access, requester) => {
    const op = operator();
    const f = vaultFixture({ approveWrite: op.approver });
    const { grant } = await f.kms.grant({ vaultId: "notes", op: access, command: "x", requester }, policy);
    expect(grant).toBeDefined();
    expect(op.calls).toHaveLength(0);
  });

  it("does not ask the operator about a vault that is not on the policy", async () => {
    const op = operator();
    const f = vaultFixture({ approveWrite: op.approver });
    const { verdict } = await f.kms.grant({ vaultId: "payroll", op: "write", command: "x" }, policy);
    expect(verdict).toMatchObject({ allowed: false, code: "vault-not-allowed" });
    expect(op.calls).toHaveLength(0);
  });
});

describe("POST /v0/vault/grant for write answers once the operator has decided", () => {
  it("answers 403 vault-op-not-granted to the guest when the operator denies, and the vault is unchanged", async () => {
    const op = operator();
    const s = proxiedVault({ approveWrite: op.approver });
    const answer = s.call("/v0/vault/grant", { vault_id: "notes", op: "write", command: "sgit push notes (pid 7)" });
    expect((await op.asked).command).toBe("sgit push notes (pid 7)");
    op.answer(false);
    const refused = await answer;
    expect(refused.status).toBe(403);
    expect(refused.headers["x-verdict"]).toBe("vault-op-not-granted");
    expect(JSON.parse(refused.body)).toMatchObject({
      code: "vault-op-not-granted",
      reason: expect.stringContaining("the operator denied it"),
    });
    expect(await s.storage.head("notes")).toBeNull();
  });

  it("refuses a guest that claims to be the host (bad-request), without asking the operator", async () => {
    const op = operator();
    const s = proxiedVault({ approveWrite: op.approver });
    const answer = await s.call("/v0/vault/grant", { vault_id: "notes", op: "write", command: "x", requester: "host" });
    expect(answer.status).toBe(400);
    expect(answer.headers["x-verdict"]).toBe("bad-request");
    expect(op.calls).toHaveLength(0);
  });
});
