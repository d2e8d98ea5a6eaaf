import { describe, expect, it } from "vitest";
import { evaluate, type Policy, type PolicyInput, Policy as PolicySchema, policyHash } from "./index";

const rules: PolicyInput["hosts"] = [
  { host: "api.github.com", endpoints: [{ methods: ["GET"], paths: ["/repos/"] }] },
  { host: "ports.example.org", ports: [443, 8443] },
];
const enforce: Policy = PolicySchema.parse({ version: 1, hosts: rules });
const report: Policy = PolicySchema.parse({ version: 1, hosts: rules, mode: "report" });

type Row = [name: string, request: { method: string; url: string } | { method: "CONNECT"; authority: string }, enforced: string];
const get = (url: string, method = "GET") => ({ method, url });

// Each refusal of the host and endpoint allowlists: refused under enforce, served and marked under report.
const ALLOWLIST_ROWS: Row[] = [
  ["a host not on the allowlist", get("https://pastebin.com/raw/abc"), "host-not-allowed"],
  ["a CONNECT to a host not on the allowlist", { method: "CONNECT", authority: "pastebin.com:443" }, "host-not-allowed"],
  ["a path outside every prefix", get("https://api.github.com/user/emails"), "endpoint-not-allowed"],
  ["a method not listed for the host", get("https://api.github.com/repos/x", "DELETE"), "endpoint-not-allowed"],
];

// The refusals that are not the allowlist's: the same in every mode.
const GUARANTEE_ROWS: Row[] = [
  ["an IP literal", get("https://93.184.216.34/"), "ip-literal"],
  ["an IP literal in CONNECT", { method: "CONNECT", authority: "127.0.0.1:443" }, "ip-literal"],
  ["a port not allowed for the host", get("https://api.github.com:8443/repos/x"), "port-not-allowed"],
  ["a scheme other than http(s)", get("ftp://pastebin.com/x"), "not-https"],
  ["a URL carrying userinfo", get("https://user@pastebin.com/"), "bad-request"],
  ["a path with an encoded slash", get("https://api.github.com/repos/..%2F..%2Fuser"), "endpoint-not-allowed"],
  ["a method that is not a token", get("https://api.github.com/repos/x", "G T"), "bad-request"],
  ["localhost", get("https://localhost/"), "private-address"],
  ["localhost with a trailing dot, over http", get("http://LOCALHOST./admin"), "private-address"],
  ["a CONNECT to a name under .localhost", { method: "CONNECT", authority: "a.localhost:443" }, "private-address"],
  ["a name that spells a loopback address", get("https://127-0-0-1.nip.io/"), "private-address"],
  ["a single-label name", get("https://intranet/"), "private-address"],
];

describe("report mode: a refusal of the host or endpoint allowlist is served and says what it would have been", () => {
  it.each(ALLOWLIST_ROWS)("%s is refused in enforce mode", (_name, request, code) => {
    expect(evaluate(enforce, request).verdict).toMatchObject({ allowed: false, code });
  });

  it.each(ALLOWLIST_ROWS)("%s is served in report mode, marked wouldRefuse with the enforce reason", (_name, request, code) => {
    const enforced = evaluate(enforce, request).verdict;
    const reported = evaluate(report, request);
    expect(reported.verdict).toMatchObject({ allowed: true, code: "served", wouldRefuse: code, wouldRefuseReason: enforced.reason });
    expect(reported.verdict.reason).toContain("report mode");
    expect(reported.target?.host).toBe(evaluate(enforce, request).target?.host);
  });
});

describe("report mode: the guarantees that are not the policy's are enforced in every mode", () => {
  it.each(GUARANTEE_ROWS)("%s is refused in enforce and in report mode, with the same code", (_name, request, code) => {
    expect(evaluate(enforce, request).verdict).toMatchObject({ allowed: false, code });
    const reported = evaluate(report, request).verdict;
    expect(reported).toMatchObject({ allowed: false, code });
    expect(reported.wouldRefuse).toBeUndefined();
  });
});

describe("a private destination is refused whatever the policy names (docs/decisions/0028-material-from-a-link-is-untrusted.md)", () => {
  const naming = (mode: "enforce" | "report") =>
    PolicySchema.parse({
      version: 1,
      mode,
      http: "allow",
      ports: [443, 8080],
      hosts: [{ host: "localhost" }, { host: "*.app.localhost" }],
    });
  it.each(["enforce", "report"] as const)("a %s policy naming localhost and *.app.localhost gets private-address for them", (mode) => {
    for (const request of [
      get("http://localhost:8080/"),
      get("https://a.localhost/"),
      { method: "CONNECT" as const, authority: "localhost:443" },
    ])
      expect(evaluate(naming(mode), request).verdict).toMatchObject({ allowed: false, code: "private-address", by: "proxy" });
  });
});

describe("report mode: a host not on the allowlist still meets the guarantees behind the allowlist", () => {
  it.each([
    ["a port not allowed by the policy", get("https://pastebin.com:8443/"), "port-not-allowed"],
    ["a path with an encoded slash", get("https://pastebin.com/a%2Fb"), "endpoint-not-allowed"],
    ["a path with a dot-segment", get("https://pastebin.com/a/%2e%2e/b"), "endpoint-not-allowed"],
  ])("%s: host-not-allowed in enforce mode, refused for it in report mode", (_name, request, code) => {
    expect(evaluate(enforce, request).verdict).toMatchObject({ allowed: false, code: "host-not-allowed" });
    expect(evaluate(report, request).verdict).toMatchObject({ allowed: false, code });
  });
});

describe("report mode: per host rule", () => {
  it("a host rule in report mode reports its endpoint refusals while the policy enforces", () => {
    const policy = PolicySchema.parse({
      version: 1,
      hosts: [{ host: "api.github.com", mode: "report", endpoints: [{ methods: ["GET"], paths: ["/repos/"] }] }],
    });
    expect(evaluate(policy, get("https://api.github.com/user")).verdict).toMatchObject({
      allowed: true,
      wouldRefuse: "endpoint-not-allowed",
    });
    expect(evaluate(policy, get("https://pastebin.com/")).verdict).toMatchObject({ allowed: false, code: "host-not-allowed" });
  });

  it("a host rule in enforce mode enforces its endpoints while the policy reports", () => {
    const policy = PolicySchema.parse({
      version: 1,
      mode: "report",
      hosts: [{ host: "api.github.com", mode: "enforce", endpoints: [{ methods: ["GET"], paths: ["/repos/"] }] }],
    });
    expect(evaluate(policy, get("https://api.github.com/user")).verdict).toMatchObject({ allowed: false, code: "endpoint-not-allowed" });
    expect(evaluate(policy, get("https://pastebin.com/")).verdict).toMatchObject({ allowed: true, wouldRefuse: "host-not-allowed" });
  });

  it("an allowed request carries no wouldRefuse in report mode", () => {
    expect(evaluate(report, get("https://api.github.com/repos/x")).verdict).toEqual({
      allowed: true,
      code: "served",
      reason: "GET api.github.com/repos/x is allowed",
      by: "proxy",
    });
  });
});

describe("report mode: the field", () => {
  it("a policy that does not set mode keeps its hash (mode stays absent after parsing)", async () => {
    const parsed = PolicySchema.parse({ version: 1, hosts: [{ host: "api.github.com" }] });
    expect(parsed.mode).toBeUndefined();
    expect(parsed.hosts[0]?.mode).toBeUndefined();
    expect(await policyHash(parsed)).toBe(await policyHash(PolicySchema.parse({ version: 1, hosts: [{ host: "api.github.com" }] })));
    expect(await policyHash(PolicySchema.parse({ version: 1, hosts: [{ host: "api.github.com" }], mode: "report" }))).not.toBe(
      await policyHash(parsed),
    );
  });

  it("a mode other than enforce or report does not parse", () => {
    expect(PolicySchema.safeParse({ version: 1, hosts: [], mode: "audit" }).success).toBe(false);
    expect(PolicySchema.safeParse({ version: 1, hosts: [{ host: "a.example", mode: "permissive" }] }).success).toBe(false);
  });
});
