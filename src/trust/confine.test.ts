import { describe, expect, it } from "vitest";
import { DEMO_VAULT_ID } from "../kms";
import { Policy } from "../policy";
import { confineLinkPolicy } from "./confine";

describe("a link's policy is confined, whatever it says", () => {
  it("names no vault but the demo vault, and no host private by convention", () => {
    const proposed = Policy.parse({
      version: 1,
      mode: "report",
      vaults: [DEMO_VAULT_ID, "team-secrets"],
      hosts: [{ host: "api.github.com" }, { host: "localhost" }, { host: "*.svc.localhost" }, { host: "printer.local" }, { host: "nas" }],
    });
    const { policy, refused } = confineLinkPolicy(proposed);
    expect(policy.vaults).toEqual([DEMO_VAULT_ID]);
    expect(policy.hosts.map((h) => h.host)).toEqual(["api.github.com"]);
    expect(policy.mode).toBe("report");
    expect(refused.map((r) => r.rule)).toEqual([
      "vault team-secrets",
      "host localhost",
      "host *.svc.localhost",
      "host printer.local",
      "host nas",
    ]);
  });
});
