import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Policy } from "../../policy";
import { describeLineErrors, describeSkipped, type LogLine, POLICY_FORMATS, readLogLines, replayLog } from "../index";
import { decisionLine, jsonLines } from "../testing/decisions";

// gh-aw-firewall's audit.jsonl (both envelopes) and OpenShell's OCSF JSON lines, read as
// decisions a replay re-decides. The samples in testdata/ are written from each project's docs
// and schemas (awf: schemas/audit.schema.json, samples/audit/; OpenShell:
// docs/observability/ocsf-json-export.mdx and the OCSF 1.8 classes it vendors).

const sample = (name: string) => readFileSync(join(import.meta.dirname, "testdata", name), "utf8");

function read(text: string) {
  const result = readLogLines(text);
  if (!result.ok) throw new Error(describeLineErrors(result.errors));
  return result;
}

function importedAs(format: string, file: string, options: { role?: string } = {}): Policy {
  const result = POLICY_FORMATS[format]!.import(sample(file), options);
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return result.value;
}

const summary = (lines: readonly LogLine[]) =>
  lines.map((l) => l.event.kind === "proxy.decision" && `${l.line} ${l.event.method} ${l.event.target} ${l.event.code}`);

describe("a gh-aw-firewall audit.jsonl is read as decisions, in both its envelopes", () => {
  it("the schema'd envelope: CONNECT and plain-http lines, refusals by domain, raw IP and port; NONE lines skipped by name", () => {
    const log = read(sample("awf-audit.jsonl"));
    expect(log.format).toBe("awf");
    expect(summary(log.lines)).toEqual([
      "1 CONNECT github.com:443 served",
      "2 CONNECT raw.githubusercontent.com:443 served",
      "3 CONNECT registry.npmjs.org:443 served",
      "4 GET http://github.com/ served",
      "5 CONNECT gist.github.com:443 host-not-allowed",
      "6 CONNECT pypi.org:443 host-not-allowed",
      "7 CONNECT evil.example.com:443 host-not-allowed",
      "8 CONNECT 140.82.114.22:443 ip-literal",
      "9 CONNECT github.com:22 port-not-allowed",
    ]);
    expect(log.lines[0]?.event.time).toBe(Date.parse("2026-05-25T09:00:00.000Z"));
    expect(describeSkipped(log.skipped, "a replay")).toBe(
      '1 line of 1 kind not needed for a replay (another proxy\'s: "awf audit NONE (no decision: an aborted connection)")',
    );
  });

  it("the older envelope (ts in seconds, with or without _schema) reads the same way", () => {
    const log = read(sample("awf-audit-legacy.jsonl"));
    expect(log.format).toBe("awf");
    expect(summary(log.lines)).toEqual([
      "1 CONNECT github.com:443 served",
      "2 CONNECT objects.githubusercontent.com:443 served",
      "3 CONNECT evil.example.com:443 host-not-allowed",
      "4 CONNECT registry.npmjs.org:443 served",
      "5 CONNECT gist.github.com:443 host-not-allowed",
    ]);
    expect(log.lines[0]?.event.time).toBe(1761074374646);
  });

  it("other awf records and events are skipped and counted by name", () => {
    const log = read(
      [
        '{"_schema":"token-usage/v0.26.0","timestamp":"2026-05-25T09:00:00.000Z","event":"token_usage","model":"m"}',
        '{"_schema":"audit/v0.27.0","timestamp":"2026-05-25T09:00:00.000Z","event":"http_retry","host":"a.com"}',
      ].join("\n"),
    );
    expect(log.lines).toEqual([]);
    expect([...log.skipped.byKind.keys()]).toEqual(["awf token-usage", "awf audit http_retry"]);
  });

  it("an audit line it cannot read refuses the log, named by its line and field", () => {
    const result = readLogLines(
      `${sample("awf-audit.jsonl")}{"_schema":"audit/v0.26.0","timestamp":"x","event":"http_access","method":"CONNECT","decision":"TCP_TUNNEL","url":"a.com:443"}\n`,
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(describeLineErrors(result.errors)).toMatch(/^log: line 11: not a valid gh-aw-firewall audit line: status:/);
  });

  it("where the translated config decides differently from awf, the replay says so line by line", () => {
    // awf's github.com allows every subdomain but the blocked gist.github.com; a policy cannot make that hole, so it fails closed.
    const line =
      '{"_schema":"audit/v0.26.0","timestamp":"2026-05-25T09:00:00.000Z","event":"http_access","client":"172.30.0.20","host":"api.github.com:443","dest":"140.82.116.5:443","method":"CONNECT","status":200,"decision":"TCP_TUNNEL","url":"api.github.com:443"}';
    const replay = replayLog(importedAs("awf", "awf-config.yaml"), read(line).lines);
    expect(replay.rows.map((r) => [r.line, r.target, r.outcome, r.replayed.code])).toEqual([
      [1, "api.github.com:443", "newly-refused", "host-not-allowed"],
    ]);
  });
});

describe("OpenShell's OCSF JSON lines are read as decisions", () => {
  it("network activity is a CONNECT, HTTP activity its request; other classes and non-decisions are skipped by name", () => {
    const log = read(sample("openshell-ocsf.jsonl"));
    expect(log.format).toBe("openshell");
    expect(summary(log.lines)).toEqual([
      "3 CONNECT github.com:443 served",
      "4 GET https://github.com/repos/NVIDIA/OpenShell served",
      "5 GET https://github.com/zen served",
      "6 DELETE https://github.com/repos/NVIDIA/OpenShell endpoint-not-allowed",
      "7 CONNECT api.anthropic.com:443 served",
      "8 CONNECT httpbin.org:443 host-not-allowed",
      "9 CONNECT pypi.org:443 served",
      "10 CONNECT files.pythonhosted.org:8443 served",
      "11 CONNECT files.pythonhosted.org:443 host-not-allowed",
      "12 CONNECT api.anthropic.com:443 private-address",
    ]);
    expect([...log.skipped.byKind.keys()]).toEqual([
      "openshell Application Lifecycle",
      "openshell Network Activity Listen (no decision)",
      "openshell Process Activity",
    ]);
  });

  it("a request let through under enforcement: audit is report mode's would-refuse", () => {
    const line = {
      class_uid: 4002,
      class_name: "HTTP Activity",
      action_id: 1,
      action: "Allowed",
      disposition: "Allowed",
      message: "L7_REQUEST audit POST api.example.com:443/v1/items reason=no matching rule",
      http_request: { http_method: "POST", url: { scheme: "http", hostname: "api.example.com", path: "/v1/items", port: 443 } },
      dst_endpoint: { domain: "api.example.com", port: 443 },
      firewall_rule: { name: "api", type: "l7" },
    };
    const [decision] = read(JSON.stringify(line)).lines;
    expect(decision?.event).toMatchObject({
      method: "POST",
      target: "https://api.example.com/v1/items",
      allowed: true,
      wouldRefuse: "endpoint-not-allowed",
    });
  });

  it("an allowed upgrade (action Other) is served; an HTTP check with no request is skipped by name", () => {
    const upgrade = {
      class_uid: 4002,
      class_name: "HTTP Activity",
      action_id: 99,
      action: "Other",
      message: "L7_REQUEST allow_upgrade GET api.example.com:443/ws reason=",
      http_request: { http_method: "GET", url: { scheme: "http", hostname: "api.example.com", path: "/ws", port: 443 } },
      dst_endpoint: { domain: "api.example.com", port: 443 },
    };
    const credential = {
      class_uid: 4002,
      class_name: "HTTP Activity",
      activity_name: "Fail",
      action_id: 2,
      status_detail: "credential_unavailable",
      dst_endpoint: { domain: "api.example.com", port: 443 },
      firewall_rule: { name: "api", type: "credential-binding" },
    };
    const log = read([upgrade, credential].map((l) => JSON.stringify(l)).join("\n"));
    expect(summary(log.lines)).toEqual(["1 GET https://api.example.com/ws served"]);
    expect([...log.skipped.byKind.keys()]).toEqual(["openshell HTTP Activity Fail without a request (a credential or authority check)"]);
  });

  it("a decision line it cannot read refuses the log, named by its line", () => {
    const result = readLogLines('{"class_uid":4001,"action_id":1,"dst_endpoint":{"domain":"a.com","port":"443"}}');
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(describeLineErrors(result.errors)).toMatch(/^log: line 1: not a valid OpenShell OCSF 4001 line: dst_endpoint.port/);
  });

  it("where the translated policy decides differently from OpenShell, the replay says so line by line", () => {
    // `POST /**/git-upload-pack` is a glob a prefix cannot express: not imported, so refused here (fails closed).
    const line = {
      class_uid: 4002,
      action_id: 1,
      message: "L7_REQUEST allow POST github.com:443/NVIDIA/OpenShell.git/git-upload-pack reason=",
      http_request: {
        http_method: "POST",
        url: { scheme: "http", hostname: "github.com", path: "/NVIDIA/OpenShell.git/git-upload-pack", port: 443 },
      },
      dst_endpoint: { domain: "github.com", port: 443 },
    };
    const replay = replayLog(importedAs("openshell", "openshell-policy.yaml"), read(JSON.stringify(line)).lines);
    expect(replay.rows.map((r) => [r.line, r.outcome, r.replayed.code])).toEqual([[1, "newly-refused", "endpoint-not-allowed"]]);
  });
});

describe("each proxy's sample log replays under its imported policy with zero changed verdicts, and again after export", () => {
  const cases = [
    ["smokescreen", "smokescreen-acl.yaml", "smokescreen-crawler.jsonl", "crawler"],
    ["smokescreen", "smokescreen-acl.yaml", "smokescreen-billing.jsonl", "billing"],
    ["awf", "awf-config.yaml", "awf-audit.jsonl", undefined],
    ["awf", "awf-config.yaml", "awf-audit-legacy.jsonl", undefined],
    ["openshell", "openshell-policy.yaml", "openshell-ocsf.jsonl", undefined],
    ["sandbox-runtime", "srt-settings.json", "srt-session.jsonl", undefined],
  ] as const;
  for (const [format, policyFile, logFile, role] of cases)
    it(`${format}: ${logFile}`, () => {
      const options = role === undefined ? {} : { role };
      const lines = read(sample(logFile)).lines;
      const first = importedAs(format, policyFile, options);
      const replay = replayLog(first, lines);
      expect(replay.summary.requests).toBe(lines.length);
      expect(replay.rows.filter((r) => r.outcome === "newly-refused" || r.outcome === "newly-allowed")).toEqual([]);
      const exported = POLICY_FORMATS[format]!.export(first, options);
      const again = POLICY_FORMATS[format]!.import(exported.value, options);
      if (!again.ok) throw new Error(again.errors.join("\n"));
      expect(replayLog(again.value, lines).rows.map((r) => r.replayed)).toEqual(replay.rows.map((r) => r.replayed));
    });

  it("a log mixing this log's lines with awf and OpenShell lines reads as one; its format is the one most decisions came from", () => {
    const text = `${sample("awf-audit-legacy.jsonl")}${jsonLines([decisionLine(99, { target: "https://en.wikipedia.org/wiki/X" })])}`;
    const log = read(text);
    expect(log.lines).toHaveLength(6);
    expect(log.format).toBe("awf");
    expect(read(sample("srt-session.jsonl")).format).toBeNull();
  });
});
