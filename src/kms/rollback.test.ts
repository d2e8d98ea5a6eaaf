import { describe, expect, it } from "vitest";
import { fromBase64 } from "../bytes";
import { EMPTY_HEAD, type KeyRecord, STALE_BASE_CODE, type VaultHead, vaultHeadUri } from "./index";
import { policyWith, str } from "./testing/fixtures";
import { type ProxiedVault, proxiedVault, pushBody } from "./testing/proxy";

// The KMS signs the vault's manifests. The vault's known debt
// (rollback): whoever can write the cache can put back an older, validly signed manifest. The
// generation in the signed manifest and the KMS's memory of the newest one refuse it.

interface Answer {
  status: number;
  verdict: string | undefined;
  json: { generation?: number; manifest?: string; reason?: string; objects?: { path: string; content_base64: string }[] };
}

async function pushAs(s: ProxiedVault, objects: Record<string, string>, base: VaultHead): Promise<Answer> {
  const answer = await s.call("/v0/vault/push", pushBody("notes", objects, base), await s.grant("notes", "write"));
  return { status: answer.status, verdict: answer.headers["x-verdict"], json: JSON.parse(answer.body) as Answer["json"] };
}

async function pullAs(s: ProxiedVault): Promise<Answer> {
  const answer = await s.call("/v0/vault/pull", { vault_id: "notes" }, await s.grant("notes", "read"));
  return { status: answer.status, verdict: answer.headers["x-verdict"], json: JSON.parse(answer.body) as Answer["json"] };
}

const headOf = (a: Answer): VaultHead => ({ generation: a.json.generation ?? -1, manifest: a.json.manifest ?? null });

/** Two pushes: yesterday's head (generation 1) and today's (generation 2). */
async function twoGenerations(s: ProxiedVault = proxiedVault()) {
  const yesterday = headOf(await pushAs(s, { "plan.txt": "yesterday's plan" }, EMPTY_HEAD));
  const today = headOf(await pushAs(s, { "plan.txt": "today's plan" }, yesterday));
  return { s, yesterday, today };
}

/** What an attacker with write access to the cache does: points the vault's head elsewhere. */
const putBack = (s: ProxiedVault, manifest: string) => s.cas.rememberUrl(vaultHeadUri("notes"), manifest);

const contents = (a: Answer) => (a.json.objects ?? []).map((o) => [o.path, str(fromBase64(o.content_base64))]);

describe("the version moves forward on every push", () => {
  it("numbers pushes 1, 2, 3 in the signed manifest, and the KMS remembers each", async () => {
    const s = proxiedVault();
    let base: VaultHead = EMPTY_HEAD;
    for (const generation of [1, 2, 3]) {
      const pushed = await pushAs(s, { "n.txt": `push ${generation}` }, base);
      expect(pushed).toMatchObject({ status: 200, json: { generation } });
      base = headOf(pushed);
      expect(await s.kms.knownHead("notes")).toEqual(base);
    }
    expect(await pullAs(s)).toMatchObject({ status: 200, json: { generation: 3 } });
  });

  it("never moves the remembered head backwards", async () => {
    const { s, yesterday, today } = await twoGenerations();
    await s.kms.rememberHead("notes", yesterday as { generation: number; manifest: string });
    expect(await s.kms.knownHead("notes")).toEqual(today);
  });
});

describe("an older manifest put back in the cache is refused on pull (vault-tampered, by kms), and nothing is lost", () => {
  it("refuses yesterday's validly signed manifest, says rollback and names both versions", async () => {
    const { s, yesterday, today } = await twoGenerations();
    await putBack(s, yesterday.manifest ?? "");
    const pulled = await pullAs(s);
    expect(pulled).toMatchObject({ status: 403, verdict: "vault-tampered" });
    expect(pulled.json.reason).toContain("rollback");
    expect(pulled.json.reason).toContain(`generation 1 (manifest ${yesterday.manifest?.slice(0, 12)}…)`);
    expect(pulled.json.reason).toContain(`generation 2 (manifest ${today.manifest?.slice(0, 12)}…)`);
    expect(JSON.stringify(pulled.json)).not.toContain("content_base64");
    expect(s.kmsEvents().at(-1)).toMatchObject({ op: "pull", allowed: false, code: "vault-tampered", by: "kms" });
    // Nothing lost: the KMS still remembers today, and today's manifest is still in the cache.
    expect(await s.kms.knownHead("notes")).toEqual(today);
    await putBack(s, today.manifest ?? "");
    const restored = await pullAs(s);
    expect(restored).toMatchObject({ status: 200, json: { generation: 2 } });
    expect(contents(restored)).toEqual([["plan.txt", "today's plan"]]);
  });

  it("refuses a vault whose head was removed from the cache (it would read as empty)", async () => {
    const { s } = await twoGenerations();
    await s.casStore.deleteRecord("urls", vaultHeadUri("notes"));
    const pulled = await pullAs(s);
    expect(pulled).toMatchObject({ status: 403, verdict: "vault-tampered" });
    expect(pulled.json.reason).toContain("rollback");
  });

  it("refuses another manifest at the remembered generation, signed by the vault's key but not by this KMS's push", async () => {
    const { s, yesterday } = await twoGenerations();
    // The storage layer alone (the key, without the KMS's memory) can sign a second generation 2.
    await putBack(s, yesterday.manifest ?? "");
    const { grant } = await s.kms.grant({ vaultId: "notes", op: "write", command: "fork", requester: "host" }, policyWith("notes"));
    const keys = (await s.kms.keysFor(grant?.id ?? null, "notes", "write", policyWith("notes"))).keys;
    if (!keys) throw new Error("no write keys");
    const fork = await s.storage.write("notes", [], keys, { base: yesterday, known: null });
    expect(fork).toMatchObject({ ok: true, generation: 2 });
    expect(await pullAs(s)).toMatchObject({
      status: 403,
      verdict: "vault-tampered",
      json: { reason: expect.stringContaining("generation 2") },
    });
  });
});

describe("a push lands only on the vault's current head", () => {
  it("refuses a push whose base is a rolled-back head (vault-tampered), and writes nothing", async () => {
    const { s, yesterday, today } = await twoGenerations();
    await putBack(s, yesterday.manifest ?? "");
    const blobs = (await s.casStore.listBlobs()).length;
    const pushed = await pushAs(s, { "plan.txt": "overwrite" }, yesterday);
    expect(pushed).toMatchObject({ status: 403, verdict: "vault-tampered", json: { reason: expect.stringContaining("rollback") } });
    expect((await s.casStore.listBlobs()).length).toBe(blobs);
    expect(await s.storage.head("notes")).toBe(yesterday.manifest);
    expect(await s.kms.knownHead("notes")).toEqual(today);
  });

  it.each<[string, (h: { yesterday: VaultHead; today: VaultHead }) => VaultHead]>([
    ["a push made from yesterday's pull", (h) => h.yesterday],
    ["a push from a tree never pulled (an empty base) over a vault that has a head", () => EMPTY_HEAD],
    ["a push naming a base from the future", (h) => ({ generation: 7, manifest: h.today.manifest })],
  ])("refuses %s as a stale base, and nothing is written", async (_name, baseOf) => {
    const { s, yesterday, today } = await twoGenerations();
    const blobs = (await s.casStore.listBlobs()).length;
    const pushed = await pushAs(s, { "plan.txt": "lost update" }, baseOf({ yesterday, today }));
    expect(pushed).toMatchObject({ verdict: STALE_BASE_CODE, json: { reason: expect.stringContaining("stale base") } });
    expect(pushed.json.reason).toContain("the vault's head is generation 2");
    expect(s.kmsEvents().at(-1)).toMatchObject({ op: "push", allowed: false, code: STALE_BASE_CODE, by: "kms" });
    expect((await s.casStore.listBlobs()).length).toBe(blobs);
    expect(contents(await pullAs(s))).toEqual([["plan.txt", "today's plan"]]);
  });

  it("lets only one of two pushes on the same base land (they run one at a time)", async () => {
    const { s, today } = await twoGenerations();
    const [a, b] = await Promise.all([pushAs(s, { "plan.txt": "A" }, today), pushAs(s, { "plan.txt": "B" }, today)]);
    expect([a.status, b.status].sort()).toEqual([200, 403]);
    expect(await pullAs(s)).toMatchObject({ json: { generation: 3 } });
  });
});

describe("the KMS's memory lives in its key store, beside the keys", () => {
  it("still refuses the rollback after a reload of the service from the same key store and cache", async () => {
    const { s, yesterday, today } = await twoGenerations();
    await putBack(s, yesterday.manifest ?? "");
    const reloaded = proxiedVault({ stores: { keys: s.keys, casStore: s.casStore } });
    expect(await reloaded.kms.knownHead("notes")).toEqual(today);
    expect(await pullAs(reloaded)).toMatchObject({ status: 403, verdict: "vault-tampered" });
  });

  it("reads a vault whose key record predates the check (no remembered head) once, then remembers its head", async () => {
    const { s, yesterday, today } = await twoGenerations();
    const { head: _dropped, ...old } = (await s.keys.get("notes")) as KeyRecord;
    await s.keys.put("notes", old);
    expect(await s.kms.knownHead("notes")).toBeNull();
    expect(await pullAs(s)).toMatchObject({ status: 200, json: { generation: 2 } });
    expect(await s.kms.knownHead("notes")).toEqual(today);
    await putBack(s, yesterday.manifest ?? "");
    expect(await pullAs(s)).toMatchObject({ status: 403, verdict: "vault-tampered" });
  });
});
