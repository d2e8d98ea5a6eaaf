import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decide, Policy } from "../../policy";
import { exportAwfConfig, importAwfConfig } from "../index";

// github/gh-aw-firewall's config (`network.allowDomains`, `network.blockDomains`), in and out.
// The sample is written from its docs/awf-config-spec.md.

const CONFIG = readFileSync(join(import.meta.dirname, "testdata", "awf-config.yaml"), "utf8");

function imported(text = CONFIG) {
  const result = importAwfConfig(text);
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return result;
}

describe("an awf config imports as a policy, naming what it cannot express", () => {
  it("a domain allows itself and its subdomains; a blocked domain takes back or, inside a wildcard, drops it", () => {
    const { value, notes } = imported();
    expect(value.hosts.map((r) => r.host)).toEqual(["github.com", "*.githubusercontent.com", "registry.npmjs.org", "*.registry.npmjs.org"]);
    expect(notes).toEqual(
      expect.arrayContaining([
        "security not imported: it configures awf's containers, not which hosts are reached",
        "network.dnsServers not imported: the page is the only network client",
        expect.stringMatching(
          /^network\.allowDomains github\.com: \*\.github\.com not imported: blockDomains gist\.github\.com would be a hole/,
        ),
        "network.allowDomains pypi.org: pypi.org not imported: blockDomains pypi.org takes it back",
        expect.stringMatching(/^network\.allowDomains localhost not imported: localhost is a loopback name/),
      ]),
    );
  });

  it("refuses a config without a network section, or one that does not parse, by name", () => {
    expect(importAwfConfig("security: {}\n")).toEqual({ ok: false, errors: ["no network section with allowDomains"] });
    expect(importAwfConfig("network: {allowDomains: 3}\n").ok).toBe(false);
  });
});

describe("a policy exports as an awf config, naming what it widens or loses", () => {
  it("an exact host is written with its subdomains blocked, so the config allows what the policy allows", () => {
    const policy = Policy.parse({ version: 1, hosts: [{ host: "api.github.com" }, { host: "example.com" }, { host: "*.example.com" }] });
    const exported = exportAwfConfig(policy);
    expect(exported.notes).toEqual([]);
    const again = imported(exported.value).value;
    for (const target of ["api.github.com:443", "x.api.github.com:443", "example.com:443", "a.example.com:443", "github.com:443"])
      expect(decide(again, { method: "CONNECT", authority: target }), target).toEqual(
        decide(policy, { method: "CONNECT", authority: target }),
      );
  });

  it("import then export then import decides the sample's hosts the same way", () => {
    const first = imported().value;
    const again = imported(exportAwfConfig(first).value).value;
    for (const target of [
      "github.com:443",
      "gist.github.com:443",
      "raw.githubusercontent.com:443",
      "registry.npmjs.org:443",
      "pypi.org:443",
    ])
      expect(decide(again, { method: "CONNECT", authority: target }), target).toEqual(
        decide(first, { method: "CONNECT", authority: target }),
      );
  });

  it("endpoints, ports, report mode and vaults are named", () => {
    const policy = Policy.parse({
      version: 1,
      mode: "report",
      ports: [443, 8443],
      vaults: ["v"],
      hosts: [{ host: "a.example.com", endpoints: [{ methods: ["GET"], paths: ["/x"] }] }, { host: "example.com" }],
    });
    expect(exportAwfConfig(policy).notes).toEqual([
      "a.example.com: endpoints (methods and paths) cannot be expressed; awf allows every request to the host",
      "example.com: awf's entry also allows every subdomain of example.com (wider than the policy)",
      "ports 443,8443 cannot be expressed; awf decides by domain",
      "report mode cannot be expressed: awf enforces its lists",
      "vaults v cannot be expressed: awf has no vault",
    ]);
  });
});
