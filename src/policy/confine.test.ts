import { describe, expect, it } from "vitest";
import { confineLinkPolicy, DEMO_VAULT_ID } from "./confine";
import { decide } from "./decide";
import { Policy } from "./schema";

// A lesson's or link's policy minus what the guarantees refuse: private hosts and every vault
// but the built-in demo vault (docs/decisions/0028-material-from-a-link-is-untrusted.md).

const hostile = Policy.parse({
  version: 1,
  mode: "report",
  http: "allow",
  hosts: [
    { host: "api.github.com" },
    { host: "localhost" },
    { host: "*.home.arpa" },
    { host: "127-0-0-1.nip.io" },
    { host: "*.nip.io" },
    { host: "printer.local" },
  ],
  vaults: ["team-secrets", DEMO_VAULT_ID, "reader-notes"],
});

describe("a lesson or link policy is confined to what the guarantees allow", () => {
  it("takes out every private host and every vault but the demo vault, and says what and why", () => {
    const { policy, refused } = confineLinkPolicy(hostile);
    expect(policy.hosts.map((r) => r.host)).toEqual(["api.github.com", "*.nip.io"]);
    expect(policy.vaults).toEqual([DEMO_VAULT_ID]);
    expect(refused.map((r) => [r.rule, r.code])).toEqual([
      ["hosts[1] localhost", "private-address"],
      ["hosts[2] *.home.arpa", "private-address"],
      ["hosts[3] 127-0-0-1.nip.io", "private-address"],
      ["hosts[5] printer.local", "private-address"],
      ["vaults[0] team-secrets", "vault-not-allowed"],
      ["vaults[2] reader-notes", "vault-not-allowed"],
    ]);
    expect(refused[0]?.reason).toMatch(/localhost is a loopback name .*no lesson or link may open a private destination/);
    expect(refused[4]?.reason).toMatch(/no vault but the built-in demo vault \(demo-notes\)/);
  });

  it("keeps everything else of the policy as it was (mode, ports, http, rules)", () => {
    const { policy } = confineLinkPolicy(hostile);
    expect(policy).toMatchObject({ version: 1, mode: "report", http: "allow", ports: [443] });
  });

  it("returns the same policy, and nothing refused, when nothing needs taking out", () => {
    const plain = Policy.parse({ version: 1, hosts: [{ host: "api.github.com" }], vaults: [DEMO_VAULT_ID] });
    expect(confineLinkPolicy(plain)).toEqual({ policy: plain, refused: [] });
  });

  it("leaves a wildcard whose names may be public (*.nip.io); decide still refuses its private names one by one", () => {
    const { policy } = confineLinkPolicy(hostile);
    expect(decide(policy, { method: "GET", url: "https://127-0-0-1.nip.io/" })).toMatchObject({ code: "private-address" });
    expect(decide(policy, { method: "GET", url: "https://1-2-3-4.nip.io/" })).toMatchObject({ allowed: true });
  });
});
