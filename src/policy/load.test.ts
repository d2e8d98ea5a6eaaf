import { describe, expect, it } from "vitest";
import { sha256Hex, utf8 } from "../bytes";
import { createEventLog } from "../log";
import { canonicalJson, createPolicyHolder, DEFAULT_POLICY, DEFAULT_POLICY_TEXT, parsePolicy, policyHash } from "./index";

// The policy holds the host, endpoint and vault-id allowlists;
// GET /v0/policy serves it with its hash.

describe("loading a policy: YAML or JSON, errors name the line and the field", () => {
  it("normalises host patterns and applies defaults", () => {
    const result = parsePolicy("version: 1\nhosts:\n  - host: API.GitHub.com.\n  - host: '*.Example.com'\n");
    expect(result).toEqual({
      ok: true,
      policy: { version: 1, hosts: [{ host: "api.github.com" }, { host: "*.example.com" }], ports: [443], http: "upgrade", vaults: [] },
    });
  });

  it("reads JSON with the same parser", () => {
    expect(parsePolicy('{"version": 1, "hosts": [{"host": "a.example"}], "http": "refuse"}')).toMatchObject({
      ok: true,
      policy: { http: "refuse" },
    });
  });

  it.each([
    ["an IP address as a host", "version: 1\nhosts:\n  - host: 10.0.0.1\n", "line 3, hosts.0.host", "IP address"],
    ["an IP in another spelling", "version: 1\nhosts:\n  - host: '0x7f.1'\n", "line 3, hosts.0.host", "IP address"],
    ["a wildcard in the middle", "version: 1\nhosts:\n  - host: 'a.*.example.com'\n", "line 3, hosts.0.host", "wildcard"],
    ["a wildcard over a single label", "version: 1\nhosts:\n  - host: '*.com'\n", "line 3, hosts.0.host", "two labels"],
    ["a port out of range", "version: 1\nhosts:\n  - host: a.example\n    ports: [70000]\n", "line 4, hosts.0.ports.0", ""],
    [
      "a path prefix without a slash",
      "version: 1\nhosts:\n  - host: a.example\n    endpoints:\n      - methods: [GET]\n        paths: [repos]\n",
      "line 6, hosts.0.endpoints.0.paths.0",
      "starts with /",
    ],
    ["an unknown field", "version: 1\nhosts: []\nhtttp: refuse\n", "(policy)", "htttp"],
    ["an unknown http handling", "version: 1\nhosts: []\nhttp: maybe\n", "line 3, http", ""],
    ["a missing version", "hosts: []\n", "line 1, version", "expected 1"],
  ])("refuses %s", (_name, text, where, what) => {
    const result = parsePolicy(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.join("\n")).toContain(where);
    expect(result.errors.join("\n")).toContain(what);
  });

  it("reports YAML syntax errors by line", () => {
    const result = parsePolicy("version: 1\nhosts: [\n");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]).toMatch(/^line \d+:/);
  });

  it("refuses duplicate keys instead of letting the last one win", () => {
    expect(parsePolicy('{"version": 1, "hosts": [], "http": "refuse", "http": "allow"}').ok).toBe(false);
  });

  it("the default policy file and its text are the same policy", () => {
    expect(parsePolicy(DEFAULT_POLICY_TEXT)).toEqual({ ok: true, policy: DEFAULT_POLICY });
    expect(DEFAULT_POLICY.hosts.map((h) => h.host)).toEqual(["api.github.com", "raw.githubusercontent.com"]);
  });
});

describe("the policy hash (README: sha256 of the canonical JSON)", () => {
  it("sorts keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: [3, { z: 1, a: 2 }], a: "x", u: undefined })).toBe('{"a":"x","b":[3,{"a":2,"z":1}]}');
  });

  it("is the sha256 of the canonical JSON of the parsed policy", async () => {
    expect(await policyHash(DEFAULT_POLICY)).toBe(await sha256Hex(utf8(canonicalJson(DEFAULT_POLICY))));
  });

  it("does not depend on how the file was written", async () => {
    const a = parsePolicy("version: 1\nhosts:\n  - host: A.example\n");
    const b = parsePolicy('{"hosts":[{"host":"a.example"}],"ports":[443],"http":"upgrade","version":1,"vaults":[]}');
    if (!a.ok || !b.ok) throw new Error("fixtures must parse");
    expect(await policyHash(a.policy)).toBe(await policyHash(b.policy));
  });
});

describe("the live policy holder", () => {
  it("logs policy.change with the old and new hash, and policy.invalid without applying bad text", async () => {
    const log = createEventLog();
    const holder = createPolicyHolder(DEFAULT_POLICY, log);
    const first = await holder.replaceText("version: 1\nhosts: []\n", "panel");
    const bad = await holder.replaceText("version: 2\n", "panel");
    expect(first.ok).toBe(true);
    expect(bad.ok).toBe(false);
    expect(holder.current().hosts).toEqual([]);
    expect(log.events().map((e) => e.kind)).toEqual(["policy.change", "policy.invalid"]);
  });
});
