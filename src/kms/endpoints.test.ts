import { describe, expect, it } from "vitest";
import { fromBase64, toBase64 } from "../bytes";
import type { Policy } from "../policy";
import { EMPTY_HEAD } from "./index";
import { policyWith, str, text } from "./testing/fixtures";
import { exchange } from "./testing/http";
import { proxiedVault } from "./testing/proxy";

// POST /v0/vault/pull answers the objects, decrypted, never a key; and row 8 of the verdict
// table: a push under a read grant is refused by .kms.

function setup(policy: Policy = policyWith("notes")) {
  return proxiedVault({ policy });
}

const push = (vaultId: string, objects: Record<string, string>, base: { generation: number; manifest: string | null } = EMPTY_HEAD) => ({
  vault_id: vaultId,
  base,
  objects: Object.entries(objects).map(([path, content]) => ({ path, content_base64: toBase64(text(content)) })),
});

describe("the vault endpoints through the proxy", () => {
  it("grants, pushes with a write grant, and pulls the objects back decrypted, never a key", async () => {
    const s = setup();
    const write = await s.grant("notes", "write");
    const pushed = await s.call("/v0/vault/push", push("notes", { "a.txt": "alpha\n", "dir/b.txt": "beta\n" }), write);
    expect(pushed.status).toBe(200);
    expect(JSON.parse(pushed.body)).toMatchObject({ vault_id: "notes", generation: 1, objects: 2 });

    const read = await s.grant("notes", "read");
    const pulled = await s.call("/v0/vault/pull", { vault_id: "notes", op: "read" }, read);
    expect(pulled.status).toBe(200);
    const body = JSON.parse(pulled.body) as { generation: number; objects: { path: string; content_base64: string }[] };
    expect(body.generation).toBe(1);
    expect(body.objects.map((o) => [o.path, str(fromBase64(o.content_base64))])).toEqual([
      ["a.txt", "alpha\n"],
      ["dir/b.txt", "beta\n"],
    ]);
    expect(Object.keys(JSON.parse(pulled.body) as object).sort()).toEqual(["generation", "manifest", "objects", "vault_id"]);
    // One object per line, so the shell client can read it with sed.
    expect(pulled.body.split("\n").filter((l) => l.startsWith('{"path":'))).toHaveLength(2);
  });

  it("refuses a push under a read grant: 403, X-Verdict vault-op-not-granted, by kms, and nothing lands", async () => {
    const s = setup();
    await s.call("/v0/vault/push", push("notes", { "a.txt": "original" }), await s.grant("notes", "write"));
    const read = await s.grant("notes", "read");
    const refused = await s.call("/v0/vault/push", push("notes", { "a.txt": "overwritten" }), read);
    expect(refused.status).toBe(403);
    expect(refused.headers["x-verdict"]).toBe("vault-op-not-granted");
    expect(JSON.parse(refused.body)).toMatchObject({ verdict: "refused", code: "vault-op-not-granted" });
    expect(s.log.ofKind("proxy.decision").at(-1)).toMatchObject({
      target: "vault:notes/push",
      code: "vault-op-not-granted",
      by: "kms",
      status: 403,
    });
    expect(s.kmsEvents().at(-1)).toMatchObject({
      op: "push",
      vaultId: "notes",
      access: "read",
      command: "test read",
      allowed: false,
      code: "vault-op-not-granted",
      by: "kms",
    });
    const pulled = await s.call("/v0/vault/pull", { vault_id: "notes" }, read);
    expect(pulled.body).toContain(toBase64(text("original")));
  });

  it.each<[string, { path: string; body: unknown; token: "read" | "write" | "none" | "expired" }, number, string]>([
    [
      "a grant for a vault not on the policy",
      { path: "/v0/vault/grant", body: { vault_id: "secrets", op: "read" }, token: "none" },
      403,
      "vault-not-allowed",
    ],
    [
      "a pull of a vault not on the policy",
      { path: "/v0/vault/pull", body: { vault_id: "secrets" }, token: "read" },
      403,
      "vault-not-allowed",
    ],
    [
      "a push to a vault not on the policy",
      { path: "/v0/vault/push", body: push("secrets", {}), token: "write" },
      403,
      "vault-not-allowed",
    ],
    ["a pull without a grant token", { path: "/v0/vault/pull", body: { vault_id: "notes" }, token: "none" }, 403, "vault-op-not-granted"],
    ["a pull with an expired grant", { path: "/v0/vault/pull", body: { vault_id: "notes" }, token: "expired" }, 403, "grant-expired"],
    ["a pull asking op=write", { path: "/v0/vault/pull", body: { vault_id: "notes", op: "write" }, token: "write" }, 400, "bad-request"],
    [
      "a push with a path that climbs out (..)",
      { path: "/v0/vault/push", body: push("notes", { "../etc/passwd": "x" }), token: "write" },
      400,
      "bad-request",
    ],
    [
      "a push with an absolute path",
      { path: "/v0/vault/push", body: push("notes", { "/etc/passwd": "x" }), token: "write" },
      400,
      "bad-request",
    ],
    [
      "a push with the same path twice",
      {
        path: "/v0/vault/push",
        body: {
          vault_id: "notes",
          base: EMPTY_HEAD,
          objects: [
            { path: "a", content_base64: "" },
            { path: "a", content_base64: "" },
          ],
        },
        token: "write",
      },
      400,
      "bad-request",
    ],
    ["a grant body that is not JSON", { path: "/v0/vault/grant", body: "{nope", token: "none" }, 400, "bad-request"],
  ])("refuses %s", async (_name, request, status, code) => {
    const s = setup();
    let token: string | undefined;
    if (request.token === "read" || request.token === "write") token = await s.grant("notes", request.token);
    if (request.token === "expired") {
      token = await s.grant("notes", "read");
      s.advance(60_000);
    }
    const answer = await s.call(request.path, request.body, token);
    expect(answer.status).toBe(status);
    expect(answer.headers["x-verdict"]).toBe(code);
    expect(s.kmsEvents().at(-1)).toMatchObject({ allowed: false, code, by: "kms" });
  });

  it("refuses a pull of a tampered vault (vault-tampered) and serves none of it", async () => {
    const s = setup();
    await s.call("/v0/vault/push", push("notes", { "a.txt": "secret plans" }), await s.grant("notes", "write"));
    for (const sha of await s.casStore.listBlobs()) {
      const blob = (await s.casStore.getBlob(sha)) ?? new Uint8Array();
      blob[blob.length - 1] = (blob[blob.length - 1] ?? 0) ^ 0xff;
      await s.casStore.putBlob(sha, blob);
    }
    const answer = await s.call("/v0/vault/pull", { vault_id: "notes" }, await s.grant("notes", "read"));
    expect(answer.status).toBe(403);
    expect(answer.headers["x-verdict"]).toBe("vault-tampered");
    expect(answer.body).not.toContain(toBase64(text("secret plans")));
  });

  it("never lets the grant token reach the log the guest can read (GET /v0/log)", async () => {
    const s = setup();
    const token = await s.grant("notes", "read");
    await s.call("/v0/vault/pull", { vault_id: "notes" }, token);
    const log = await exchange(s.proxy, "GET /v0/log HTTP/1.1\r\nHost: 10.0.2.2:3128\r\nConnection: close\r\n\r\n");
    expect(log.body).toContain('"kind":"kms.event"');
    expect(log.body).not.toContain(token);
  });

  it("seeds a vault as the host through the same grant and push (pushAsHost)", async () => {
    const s = setup();
    const verdict = await s.pushAsHost("notes", [{ path: "hello.txt", bytes: text("hi") }], policyWith("notes"), "page: demo vault");
    expect(verdict).toMatchObject({ allowed: true, by: "kms" });
    expect(s.kmsEvents().map((e) => [e.op, e.command])).toEqual([
      ["create", "page: demo vault"],
      ["grant", "page: demo vault"],
      ["push", "page: demo vault"],
    ]);
    expect(await s.pushAsHost("nope", [], policyWith("notes"), "page")).toMatchObject({ allowed: false, code: "vault-not-allowed" });
  });
});
