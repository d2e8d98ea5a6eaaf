import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Policy } from "../../policy";
import { describeLineErrors, describeSkipped, exportSmokescreenAcl, importSmokescreenAcl, readLogLines, replayLog } from "../index";
import { decisionLine, jsonLines } from "../testing/decisions";

// stripe/smokescreen's ACL and CANONICAL-PROXY-DECISION lines, in and out. The samples in
// testdata/ are written from smokescreen's README, its acl/v1 test data and its logging doc.

const sample = (name: string) => readFileSync(join(import.meta.dirname, "testdata", name), "utf8");
const ACL = sample("smokescreen-acl.yaml");

function imported(role?: string) {
  const result = importSmokescreenAcl(ACL, role === undefined ? {} : { role });
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return result;
}
function decisions(text: string) {
  const read = readLogLines(text);
  if (!read.ok) throw new Error(describeLineErrors(read.errors));
  return read;
}

describe("a smokescreen ACL imports as one role's policy, naming what it cannot express", () => {
  it("the role's allowed domains, then the global allow list less what the deny list takes back, enforced", () => {
    const { value, notes } = imported("billing");
    expect(value.mode).toBeUndefined();
    expect(value.hosts.map((r) => r.host)).toEqual(["api.stripe.com", "hooks.example.com", "badexample1.com", "goodexample1.com"]);
    expect(notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^service billing: mitm_domains not imported: MITM/),
        expect.stringMatching(/^service billing: project payments/),
        "global_allow_list conflictingexample.com not imported: global_deny_list conflictingexample.com takes it back",
        expect.stringMatching(
          /^global_allow_list \*\.githubusercontent\.com not imported: global_deny_list evil\.githubusercontent\.com would be a hole/,
        ),
        expect.stringContaining("does not restrict ports"),
      ]),
    );
  });

  it("a report service is report mode, and says the deny list is refused even in report mode there", () => {
    const { value, notes } = imported("crawler");
    expect(value.mode).toBe("report");
    expect(value.hosts.map((r) => r.host)).toEqual(["*.wikipedia.org", "goodexample1.com"]);
    expect(notes).toEqual(expect.arrayContaining([expect.stringMatching(/^global_deny_list .*even in report mode/)]));
  });

  it("an open service has no equal and is imported as report mode, by name", () => {
    const { value, notes } = imported("ops");
    expect(value.mode).toBe("report");
    expect(notes).toEqual(expect.arrayContaining([expect.stringContaining("action open (allow everything) has no equal")]));
  });

  it("a role with no service gets the default rule, as smokescreen does; no role means the default rule", () => {
    expect(imported("nobody").value.hosts.map((r) => r.host)).toEqual(["default.example.com", "goodexample1.com"]);
    expect(imported().value.hosts.map((r) => r.host)).toEqual(["default.example.com", "goodexample1.com"]);
  });

  it.each([
    ["not v1", "version: v2\ndefault:\n  action: enforce\n", "version"],
    ["an unknown action", "version: v1\ndefault:\n  action: allow-all\n", "default.action"],
    [
      "several services and no default, with no role named",
      "version: v1\nservices:\n  - {name: a, action: open}\n  - {name: b, action: open}\n",
      "--role",
    ],
    [
      "an alias bomb",
      `version: v1\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ndefault: {action: open}\n`,
      "alias",
    ],
  ])("refuses %s with a named reason", (_name, text, reason) => {
    const result = importSmokescreenAcl(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.join("\n")).toContain(reason);
  });

  it("a glob smokescreen refuses is not imported, by name", () => {
    const result = importSmokescreenAcl(
      "version: v1\ndefault:\n  action: enforce\n  allowed_domains: ['a*b.example.com', '127.0.0.1', ok.example.com]\n",
    );
    expect(result.ok && result.value.hosts.map((r) => r.host)).toEqual(["ok.example.com"]);
    expect(result.ok && result.notes.filter((n) => n.includes("not imported"))).toHaveLength(2);
  });
});

describe("a smokescreen log replays under the imported policy with zero changed verdicts", () => {
  it.each([
    ["billing", "smokescreen-billing.jsonl", 8],
    ["crawler", "smokescreen-crawler.jsonl", 4],
  ])("role %s, %s", (role, log, requests) => {
    const read = decisions(sample(log));
    const replay = replayLog(imported(role).value, read.lines);
    expect(replay.summary.requests).toBe(requests);
    expect(replay.rows.filter((r) => r.outcome === "newly-refused" || r.outcome === "newly-allowed")).toEqual([]);
    expect(replay.summary.changed).toBe(false);
  });

  it("reads CONNECT and HTTP proxy lines as requests, skips other lines by name, and an address refusal is not re-decidable", () => {
    const read = decisions(sample("smokescreen-billing.jsonl"));
    expect(
      read.lines.map((l) => [l.line, l.event.kind === "proxy.decision" && `${l.event.method} ${l.event.target} ${l.event.code}`]),
    ).toEqual([
      [1, "CONNECT api.stripe.com:443 served"],
      [3, "CONNECT badexample1.com:443 served"],
      [4, "CONNECT goodexample1.com:443 served"],
      [5, "CONNECT conflictingexample.com:443 host-not-allowed"],
      [6, "CONNECT badexample2.com:443 host-not-allowed"],
      [7, "CONNECT pastebin.com:443 host-not-allowed"],
      [8, "GET http://hooks.example.com:80/ served"],
      [9, "CONNECT hooks.example.com:443 private-address"],
    ]);
    expect(describeSkipped(read.skipped, "a replay")).toBe(
      '1 line of 1 kind not needed for a replay (another proxy\'s: "smokescreen CANONICAL-PROXY-CN-CLOSE")',
    );
    const replay = replayLog(imported("billing").value, read.lines);
    expect(replay.rows.find((r) => r.line === 9)?.outcome).toBe("not-redecidable");
  });

  it("where the translation differs from smokescreen, the replay says so line by line (a hole in a global allow, a port)", () => {
    const lines = [
      {
        msg: "CANONICAL-PROXY-DECISION",
        allow: true,
        requested_host: "raw.githubusercontent.com:443",
        proxy_type: "connect",
        decision_reason: "host matched rule in global allow list",
      },
      {
        msg: "CANONICAL-PROXY-DECISION",
        allow: true,
        requested_host: "api.stripe.com:8443",
        proxy_type: "connect",
        decision_reason: "host matched allowed domain in rule",
      },
    ];
    const replay = replayLog(imported("billing").value, decisions(lines.map((l) => JSON.stringify(l)).join("\n")).lines);
    expect(replay.rows.map((r) => [r.target, r.outcome, r.replayed.code])).toEqual([
      ["raw.githubusercontent.com:443", "newly-refused", "host-not-allowed"],
      ["api.stripe.com:8443", "newly-refused", "port-not-allowed"],
    ]);
  });

  it("a decision line it cannot read refuses the log, named by its line", () => {
    const read = readLogLines(`${sample("smokescreen-crawler.jsonl")}{"msg":"CANONICAL-PROXY-DECISION","allow":"yes"}\n`);
    expect(read.ok).toBe(false);
    if (!read.ok)
      expect(describeLineErrors(read.errors)).toMatch(
        /^log: line 5: not a valid smokescreen CANONICAL-PROXY-DECISION line: requested_host/,
      );
  });

  it("a smokescreen log and this log's lines read together", () => {
    const text = `${sample("smokescreen-crawler.jsonl")}${jsonLines([decisionLine(99, { target: "https://en.wikipedia.org/wiki/X" })])}`;
    expect(decisions(text).lines).toHaveLength(5);
  });
});

describe("a policy exports as a smokescreen ACL, naming what the ACL widens or loses", () => {
  it("import then export then import gives a policy deciding every line of the log the same way", () => {
    for (const [role, log] of [
      ["billing", "smokescreen-billing.jsonl"],
      ["crawler", "smokescreen-crawler.jsonl"],
    ] as const) {
      const first = imported(role).value;
      const exported = exportSmokescreenAcl(first, { role });
      const again = importSmokescreenAcl(exported.value, { role });
      if (!again.ok) throw new Error(again.errors.join("\n"));
      const lines = decisions(sample(log)).lines;
      const a = replayLog(first, lines).rows.map((r) => r.replayed);
      const b = replayLog(again.value, lines).rows.map((r) => r.replayed);
      expect(b).toEqual(a);
    }
  });

  it("endpoints, per-host ports, vaults and http handling are named where the ACL widens or drops them", () => {
    const policy = Policy.parse({
      version: 1,
      http: "refuse",
      vaults: ["notes"],
      hosts: [
        { host: "api.github.com", ports: [443, 8443], endpoints: [{ methods: ["GET"], paths: ["/repos/"] }] },
        { host: "*.example.com" },
      ],
    });
    const { value, notes } = exportSmokescreenAcl(policy);
    expect(value).toContain("version: v1");
    expect(value).toContain("- api.github.com");
    expect(value).toContain('- "*.example.com"');
    expect(notes).toEqual([
      "api.github.com: endpoints (methods and paths) cannot be expressed; the ACL allows every request to the host",
      "api.github.com: ports 443,8443 cannot be expressed; smokescreen's ACL does not restrict ports",
      "http: refuse cannot be expressed; smokescreen proxies plain http by host",
      "vaults notes cannot be expressed: smokescreen has no vault",
    ]);
  });
});
