import { describe, expect, it } from "vitest";
import { Policy } from "../policy";
import { applyRuleChanges, diffPolicies, learnPolicy, prefixAtDepth, readLogLines, replayLog } from "./index";
import { decisionLine, jsonLines } from "./testing/decisions";

const read = (events: Parameters<typeof jsonLines>[0]) => {
  const result = readLogLines(jsonLines(events));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.lines;
};

const run = read([
  decisionLine(1, { target: "https://api.github.com/repos/torvalds/linux/issues" }),
  decisionLine(2, { target: "https://api.github.com/repos/torvalds/linux" }),
  decisionLine(3, { target: "https://api.github.com/zen", method: "HEAD" }),
  decisionLine(4, { target: "https://api.github.com/repos/a/b/pulls", method: "POST" }),
  decisionLine(5, { target: "https://pastebin.com/raw/abc", wouldRefuse: "host-not-allowed", wouldRefuseReason: "not on the allowlist" }),
  decisionLine(6, { target: "https://evil.example/", allowed: false, code: "host-not-allowed" }),
  decisionLine(7, { target: "https://ports.example.org:8443/x" }),
  decisionLine(8, { target: "https://intranet/wiki", wouldRefuse: "host-not-allowed" }),
  decisionLine(9, { target: "https://build.corp/x", wouldRefuse: "host-not-allowed" }),
  decisionLine(10, { target: "registry.npmjs.org:443", mode: "connect", method: "CONNECT" }),
  decisionLine(11, { target: "/v0/log", mode: "own" }),
]);

describe("learn: the smallest policy allowing exactly what the log shows served or would-refuse", () => {
  it("learns hosts, methods and path prefixes at depth 2, sorted, and nothing refused", () => {
    const learned = learnPolicy(run, { depth: 2 });
    expect(learned.policy.hosts).toEqual([
      {
        host: "api.github.com",
        endpoints: [
          { methods: ["GET"], paths: ["/repos/torvalds/"] },
          { methods: ["HEAD"], paths: ["/zen"] },
          { methods: ["POST"], paths: ["/repos/a/"] },
        ],
      },
      { host: "pastebin.com", endpoints: [{ methods: ["GET"], paths: ["/raw/abc"] }] },
      { host: "ports.example.org", ports: [8443], endpoints: [{ methods: ["GET"], paths: ["/x"] }] },
      { host: "registry.npmjs.org" },
    ]);
    expect(learned.policy.mode).toBeUndefined();
    expect(learned.notes).toEqual([expect.stringContaining("registry.npmjs.org: only CONNECT")]);
  });

  it("never learns a private name (intranet, .corp)", () => {
    const learned = learnPolicy(run);
    expect(learned.policy.hosts.map((r) => r.host)).not.toContain("intranet");
    expect(learned.skipped.map((s) => [s.line, s.reason])).toEqual([
      [8, expect.stringContaining("intranet is a private-network name")],
      [9, expect.stringContaining(".corp")],
    ]);
  });

  it("never learns an IP, even from a log line that claims one was served", () => {
    const learned = learnPolicy(read([decisionLine(1, { target: "https://93.184.216.34/x" })]));
    expect(learned.policy.hosts).toEqual([]);
    expect(learned.skipped).toHaveLength(1);
  });

  it("methods with the same prefixes share one rule, and a covered prefix is dropped", () => {
    const learned = learnPolicy(
      read([
        decisionLine(1, { target: "https://a.example/repos/x/y" }),
        decisionLine(2, { target: "https://a.example/repos/x/y", method: "HEAD" }),
        decisionLine(3, { target: "https://a.example/repos/x" }),
        decisionLine(4, { target: "https://a.example/repos/x", method: "HEAD" }),
      ]),
      { depth: 2 },
    );
    expect(learned.policy.hosts).toEqual([{ host: "a.example", endpoints: [{ methods: ["GET", "HEAD"], paths: ["/repos/x"] }] }]);
  });

  it.each([
    [0, "/repos/a/b", "/"],
    [1, "/repos/a/b", "/repos/"],
    [2, "/repos/a/b", "/repos/a/"],
    [3, "/repos/a/b", "/repos/a/b"],
    [5, "/repos/a/b", "/repos/a/b"],
    [1, "/", "/"],
  ])("depth %i cuts %s to %s", (depth, path, prefix) => {
    expect(prefixAtDepth(path, depth)).toBe(prefix);
  });

  it("the drafted policy, replayed over the log it came from, allows everything it learned", () => {
    const learned = learnPolicy(run, { depth: 1 });
    const replay = replayLog(learned.policy, run);
    const learnedLines = new Set([1, 2, 3, 4, 5, 7, 10]);
    for (const row of replay.rows)
      if (learnedLines.has(row.line)) expect(row.replayed, `line ${row.line}`).toMatchObject({ allowed: true, code: "served" });
    expect(replay.rows.find((r) => r.line === 6)?.replayed.allowed).toBe(false);
    expect(replay.rows.find((r) => r.line === 8)?.replayed.allowed).toBe(false);
  });

  it("keeps the base's ports, http handling and vaults", () => {
    const base = Policy.parse({ version: 1, hosts: [], ports: [443, 8443], http: "refuse", vaults: ["v1"] });
    const learned = learnPolicy(run, { base });
    expect(learned.policy).toMatchObject({ ports: [443, 8443], http: "refuse", vaults: ["v1"] });
    expect(learned.policy.hosts.find((r) => r.host === "ports.example.org")?.ports).toBeUndefined();
  });
});

describe("learn: the diff against a base policy, rule by rule", () => {
  const base = Policy.parse({
    version: 1,
    mode: "report",
    hosts: [
      { host: "api.github.com", endpoints: [{ methods: ["GET"], paths: ["/zen"] }] },
      { host: "pastebin.com", endpoints: [{ methods: ["GET"], paths: ["/raw/abc"] }] },
      { host: "old.example.com" },
    ],
  });
  const draft = learnPolicy(run, { base }).policy;
  const changes = diffPolicies(base, draft);

  it("says what each host's rule becomes: change, same, remove, add", () => {
    expect(changes.map((c) => [c.kind, c.host])).toEqual([
      ["change", "api.github.com"],
      ["same", "pastebin.com"],
      ["remove", "old.example.com"],
      ["add", "ports.example.org"],
      ["add", "registry.npmjs.org"],
    ]);
  });

  it("applies only the accepted changes and keeps the rest of the base (its mode)", () => {
    const applied = applyRuleChanges(base, changes, (c) => c.host === "ports.example.org" || c.host === "api.github.com");
    expect(applied.mode).toBe("report");
    expect(applied.hosts.map((r) => r.host)).toEqual(["api.github.com", "pastebin.com", "old.example.com", "ports.example.org"]);
    expect(applied.hosts[0]?.endpoints).toHaveLength(3);
  });

  it("rejecting every change gives back the base", () => {
    expect(applyRuleChanges(base, changes, () => false)).toEqual(base);
  });
});
