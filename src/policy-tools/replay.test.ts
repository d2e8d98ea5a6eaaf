import { describe, expect, it } from "vitest";
import { Policy } from "../policy";
import { describeLineErrors, readLogLines, replayLog } from "./index";
import { decisionLine, jsonLines } from "./testing/decisions";

const policy = Policy.parse({
  version: 1,
  hosts: [{ host: "api.github.com", endpoints: [{ methods: ["GET"], paths: ["/repos/"] }] }, { host: "raw.githubusercontent.com" }],
});

function replayOf(events: Parameters<typeof jsonLines>[0], under = policy) {
  const read = readLogLines(jsonLines(events));
  if (!read.ok) throw new Error(describeLineErrors(read.errors));
  return replayLog(under, read.lines);
}

describe("replay: each logged decision re-decided under another policy", () => {
  it.each([
    ["served and still allowed", { target: "https://api.github.com/repos/a" }, "unchanged"],
    ["served and now refused (host)", { target: "https://pastebin.com/x" }, "newly-refused"],
    ["served and now refused (endpoint)", { target: "https://api.github.com/user" }, "newly-refused"],
    [
      "refused by the host allowlist and now allowed",
      { target: "https://raw.githubusercontent.com/x", allowed: false, code: "host-not-allowed" },
      "newly-allowed",
    ],
    [
      "refused by the host allowlist and still refused",
      { target: "https://pastebin.com/x", allowed: false, code: "host-not-allowed" },
      "unchanged",
    ],
    ["an IP literal, refused in every policy", { target: "https://127.0.0.1/", allowed: false, code: "ip-literal" }, "unchanged"],
    [
      "served in report mode and now allowed",
      { target: "https://raw.githubusercontent.com/x", wouldRefuse: "host-not-allowed" },
      "newly-allowed",
    ],
    [
      "served in report mode and now refused (enforce)",
      { target: "https://pastebin.com/x", wouldRefuse: "host-not-allowed" },
      "newly-refused",
    ],
    ["served and now reported as would-refuse", { target: "https://api.github.com/user" }, "newly-refused", "report"],
    [
      "served in report mode and still reported",
      { target: "https://pastebin.com/x", wouldRefuse: "host-not-allowed" },
      "unchanged",
      "report",
    ],
    [
      "refused and now served in report mode",
      { target: "https://pastebin.com/x", allowed: false, code: "host-not-allowed" },
      "newly-allowed",
      "report",
    ],
    [
      "a redirect to another host, still allowed by the policy",
      { target: "https://api.github.com/repos/a", allowed: false, code: "redirect-other-host" },
      "not-redecidable",
    ],
    [
      "a bad certificate, still allowed by the policy",
      { target: "https://api.github.com/repos/a", allowed: false, code: "upstream-cert-invalid" },
      "not-redecidable",
    ],
    [
      "a redirect to another host, now refused by the policy",
      { target: "https://pastebin.com/x", allowed: false, code: "redirect-other-host" },
      "newly-refused",
    ],
    [
      "a Host header mismatch, still allowed by the policy",
      { target: "https://api.github.com/repos/a", allowed: false, code: "host-header-mismatch" },
      "unchanged",
    ],
    ["a CONNECT to an allowed host", { target: "api.github.com:443", mode: "connect", method: "CONNECT" }, "unchanged"],
    ["a CONNECT to a host now refused", { target: "pastebin.com:443", mode: "connect", method: "CONNECT" }, "newly-refused"],
  ] as const)("%s: %s", (_name, fields, outcome, mode?: "report") => {
    const under = mode ? Policy.parse({ ...policy, mode }) : policy;
    const replay = replayOf([decisionLine(7, fields as Parameters<typeof decisionLine>[1])], under);
    expect(replay.rows).toMatchObject([{ line: 1, seq: 7, outcome }]);
  });

  it("keeps the log's order and sums up; any newly refused or allowed verdict is a change", () => {
    const replay = replayOf(
      [
        decisionLine(1, { target: "https://api.github.com/repos/a" }),
        { kind: "guest.boot", seq: 2, time: 2, phase: "ready" } as never,
        decisionLine(3, { target: "/v0/log", mode: "own" }),
        decisionLine(4, { target: "https://pastebin.com/x" }),
        decisionLine(5, { target: "https://api.github.com/repos/a", allowed: false, code: "redirect-other-host" }),
      ].filter((e) => e.kind === "proxy.decision"),
    );
    expect(replay.rows.map((r) => [r.seq, r.outcome])).toEqual([
      [1, "unchanged"],
      [4, "newly-refused"],
      [5, "not-redecidable"],
    ]);
    expect(replay.summary).toEqual({
      requests: 3,
      skipped: 1,
      counts: { unchanged: 1, "newly-refused": 1, "newly-allowed": 0, "not-redecidable": 1 },
      changed: true,
    });
  });

  it("a log with nothing changed says so", () => {
    expect(replayOf([decisionLine(1, { target: "https://api.github.com/repos/a" })]).summary.changed).toBe(false);
  });
});

describe("replay: bad input is an error naming the line, and nothing is re-decided", () => {
  it.each([
    ["a line that is not JSON", "{not json", "line 2: not JSON"],
    ["an unknown kind", JSON.stringify({ kind: "proxy.guess", seq: 1, time: 1 }), 'line 2: unknown kind "proxy.guess"'],
    ["a line without a kind", JSON.stringify({ seq: 1 }), "line 2: not a log event: it has no kind"],
    [
      "a known kind with a bad field",
      JSON.stringify({ ...decisionLine(2, { target: "x" }), status: "ok" }),
      "line 2: not a valid proxy.decision event: status",
    ],
  ])("%s", (_name, bad, message) => {
    const text = `${jsonLines([decisionLine(1, { target: "https://api.github.com/repos/a" })])}${bad}\n`;
    const read = readLogLines(text);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(describeLineErrors(read.errors, "run.jsonl")).toContain(`run.jsonl: ${message}`);
  });
});
