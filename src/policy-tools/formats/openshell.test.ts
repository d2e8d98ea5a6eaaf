import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decide, Policy } from "../../policy";
import { exportOpenShellPolicy, importOpenShellPolicy } from "../index";

// NVIDIA OpenShell's sandbox policy (network_policies), in and out. The sample is written from
// OpenShell's own sandbox policy test data.

const POLICY = readFileSync(join(import.meta.dirname, "testdata", "openshell-policy.yaml"), "utf8");

function imported(text = POLICY) {
  const result = importOpenShellPolicy(text);
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return result;
}

describe("an OpenShell sandbox policy imports as a policy, naming what it cannot express", () => {
  it("endpoints become host rules with their ports, audit is report mode, rules are method and prefix", () => {
    const { value, notes } = imported();
    expect(value.hosts).toEqual([
      { host: "api.anthropic.com" },
      { host: "github.com", endpoints: [{ methods: ["GET"], paths: ["/repos/", "/zen"] }] },
      { host: "pypi.org", mode: "report" },
      { host: "files.pythonhosted.org", ports: [8443] },
    ]);
    expect(notes).toEqual(
      expect.arrayContaining([
        "filesystem_policy not imported: the guest's own sandbox (llrun, Landlock) is configured apart",
        "network_policies.github_git.binaries not imported: the page cannot tell the guest's programs apart",
        expect.stringMatching(/rule POST \/\*\*\/git-upload-pack not imported: a glob inside a path/),
        expect.stringMatching(/rule GET \/zen imported as the prefix \/zen, which also allows \/zen\/… \(wider\)/),
        expect.stringMatching(/metadata\.internal not imported: .*internal/),
        expect.stringMatching(/api\.example\.com not imported: deny_rules cannot be expressed/),
      ]),
    );
  });

  it("refuses a file without network_policies, by name", () => {
    expect(importOpenShellPolicy("version: 1\n").ok).toBe(false);
  });
});

describe("a policy exports as OpenShell network_policies", () => {
  it("import then export then import decides the same requests the same way", () => {
    const first = imported().value;
    const again = imported(exportOpenShellPolicy(first).value).value;
    const requests = [
      { method: "GET", url: "https://github.com/repos/a/b" },
      { method: "GET", url: "https://github.com/zen" },
      { method: "POST", url: "https://github.com/a/git-upload-pack" },
      { method: "GET", url: "https://pypi.org/simple/" },
      { method: "CONNECT" as const, authority: "files.pythonhosted.org:8443" },
      { method: "CONNECT" as const, authority: "files.pythonhosted.org:443" },
      { method: "GET", url: "https://api.anthropic.com/v1/messages" },
    ];
    for (const request of requests) expect(decide(again, request), JSON.stringify(request)).toEqual(decide(first, request));
  });

  it("names what it cannot carry", () => {
    const policy = Policy.parse({ version: 1, http: "refuse", vaults: ["v"], hosts: [{ host: "a.example.com" }] });
    expect(exportOpenShellPolicy(policy).notes).toEqual([
      "http: refuse cannot be expressed",
      "vaults v cannot be expressed: OpenShell has no vault",
    ]);
  });
});
