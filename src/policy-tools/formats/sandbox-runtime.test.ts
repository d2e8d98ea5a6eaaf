import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decide, Policy } from "../../policy";
import { exportSandboxRuntimeSettings, importSandboxRuntimeSettings } from "../index";

// anthropics/sandbox-runtime (srt) and Claude Code settings' network lists, in and out. The
// sample is written from srt's README and its domain-pattern rules (src/sandbox/domain-pattern.ts).

const SETTINGS = readFileSync(join(import.meta.dirname, "testdata", "srt-settings.json"), "utf8");

function imported(text = SETTINGS) {
  const result = importSandboxRuntimeSettings(text);
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return result;
}

describe("srt settings import as an enforced policy, naming what they cannot express", () => {
  it("exact and *. entries, a :port restricts the entry, denied entries win", () => {
    const { value, notes } = imported();
    expect(value.mode).toBeUndefined();
    expect(value.hosts).toEqual([
      { host: "api.github.com" },
      { host: "registry.npmjs.org", ports: [443] },
      { host: "*.pythonhosted.org" },
      { host: "pypi.org", ports: [443, 8443] },
    ]);
    expect(notes).toEqual(
      expect.arrayContaining([
        "network.allowUnixSockets not imported: the policy has no equal (the page is the only network client)",
        "api.github.com: every port in the settings; the policy allows 443 (add ports to allow more)",
        expect.stringMatching(/^network\.allowedDomains \*\.example\.com not imported: deniedDomains secret\.example\.com would be a hole/),
        expect.stringMatching(/^network\.allowedDomains localhost not imported: /),
        expect.stringMatching(/^network\.allowedDomains \[::1\]:8080 not imported: /),
        "network.allowedDomains old.example.org not imported: deniedDomains old.example.org takes it back",
      ]),
    );
  });

  it("reads Claude Code's settings, where the lists sit under sandbox.network", () => {
    const { value } = imported(JSON.stringify({ sandbox: { network: { allowedDomains: ["api.anthropic.com"] } } }));
    expect(value.hosts).toEqual([{ host: "api.anthropic.com" }]);
  });

  it.each([
    ["not JSON", "{network:", "not JSON"],
    ["no network section", "{}", "no network section"],
    ["a list that is not strings", '{"network":{"allowedDomains":[1]}}', "network.allowedDomains.0"],
  ])("refuses %s with a named reason", (_name, text, reason) => {
    const result = importSandboxRuntimeSettings(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.join("\n")).toContain(reason);
  });
});

describe("a policy exports as srt settings, naming what they widen or lose", () => {
  it("each host on each port it allows, so no entry allows more ports than the policy", () => {
    const policy = Policy.parse({
      version: 1,
      mode: "report",
      vaults: ["notes"],
      hosts: [
        { host: "api.github.com", endpoints: [{ methods: ["GET"], paths: ["/repos/"] }] },
        { host: "*.example.com", ports: [443, 8443] },
      ],
    });
    const { value, notes } = exportSandboxRuntimeSettings(policy);
    expect(JSON.parse(value)).toEqual({
      network: { allowedDomains: ["api.github.com:443", "*.example.com:443", "*.example.com:8443"], deniedDomains: [] },
    });
    expect(notes).toEqual([
      "api.github.com: endpoints (methods and paths) cannot be expressed; the settings allow every request to the host",
      "report mode cannot be expressed: srt enforces its lists (what the policy would only mark is refused)",
      "vaults notes cannot be expressed: srt has no vault",
    ]);
  });

  it("import then export then import decides every host and port the same way", () => {
    const first = imported().value;
    const again = imported(exportSandboxRuntimeSettings(first).value).value;
    for (const target of [
      "api.github.com:443",
      "registry.npmjs.org:443",
      "a.pythonhosted.org:443",
      "pypi.org:8443",
      "pypi.org:9443",
      "x.example.com:443",
      "gist.github.com:443",
      "api.github.com:8443",
    ])
      expect(decide(again, { method: "CONNECT", authority: target }), target).toEqual(
        decide(first, { method: "CONNECT", authority: target }),
      );
  });
});
