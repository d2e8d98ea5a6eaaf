import { describe, expect, it } from "vitest";
import { Policy } from "../policy";
import { describeLineErrors, describeSkipped, readLogLineChunks, readLogLines, replayLog } from "./index";
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

describe("replay: a decision line it cannot read refuses the log, named by its line; nothing is re-decided", () => {
  it.each([
    ["a decision line that is not JSON", '{"kind":"proxy.decision","seq":2,', "line 2: not JSON"],
    [
      "a decision line with a bad field",
      JSON.stringify({ ...decisionLine(2, { target: "x" }), status: "ok" }),
      "line 2: not a valid proxy.decision event: status",
    ],
    [
      "a decision line missing its verdict",
      JSON.stringify({ kind: "proxy.decision", seq: 2, time: 2 }),
      "line 2: not a valid proxy.decision event",
    ],
  ])("%s", (_name, bad, message) => {
    const text = `${jsonLines([decisionLine(1, { target: "https://api.github.com/repos/a" })])}${bad}\n`;
    const read = readLogLines(text);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(describeLineErrors(read.errors, "run.jsonl")).toContain(`run.jsonl: ${message}`);
  });
});

describe("replay: lines of kinds it does not need, known or not, are skipped and counted", () => {
  const text = [
    jsonLines([decisionLine(1, { target: "https://api.github.com/repos/a" })]),
    // An llrun ruleset as logs written before `*` had a spelling carry it.
    `${JSON.stringify({ kind: "kernel.ruleset", seq: 2, time: 2, abi: 6, fsRo: ["*"], fsRw: ["*"], connect: [3128], bind: [null], scope: [], dropped: [], line: "llrun: ruleset" })}\n`,
    `${JSON.stringify({ kind: "wire.frame", seq: 3, time: 3, dir: "in", proto: "tcp", summary: "SYN", bytes: 60 })}\n`,
    `${JSON.stringify({ kind: "wire.frame", seq: 4, time: 4, dir: "out", proto: "tcp", summary: "SYN-ACK", bytes: 60 })}\n`,
    `${JSON.stringify({ kind: "proxy.guess", seq: 5, time: 5, what: "a kind a newer version added" })}\n`,
    `${JSON.stringify({ kind: "wire.frame", seq: 6, time: 6, broken: true })}\n`,
    "{not json at all\n",
    jsonLines([decisionLine(8, { target: "https://pastebin.com/x" })]),
  ].join("");

  it("re-decides the decisions and says how many lines of how many kinds it left out", () => {
    const read = readLogLines(text);
    if (!read.ok) throw new Error(describeLineErrors(read.errors));
    expect(read.lines.map((l) => l.line)).toEqual([1, 8]);
    expect(replayLog(policy, read.lines).summary.counts).toMatchObject({ unchanged: 1, "newly-refused": 1 });
    expect(describeSkipped(read.skipped, "a replay")).toBe(
      '5 lines of 3 kinds not needed for a replay (1 kind this version does not know: "proxy.guess"); 1 line that is not an event skipped',
    );
  });

  it("names another proxy's skipped kinds apart from the kinds this version does not know", () => {
    const skipped = {
      lines: 4,
      byKind: new Map([
        ["smokescreen CANONICAL-PROXY-CN-CLOSE", 2],
        ["proxy.guess", 1],
        ["wire.frame", 1],
      ]),
      unknownKinds: ["smokescreen CANONICAL-PROXY-CN-CLOSE", "proxy.guess"],
      notEvents: 0,
    };
    expect(describeSkipped(skipped, "a draft")).toBe(
      '4 lines of 3 kinds not needed for a draft (another proxy\'s: "smokescreen CANONICAL-PROXY-CN-CLOSE") (1 kind this version does not know: "proxy.guess")',
    );
    expect(describeSkipped({ ...skipped, unknownKinds: ["smokescreen CANONICAL-PROXY-CN-CLOSE"] }, "a replay")).toBe(
      '4 lines of 3 kinds not needed for a replay (another proxy\'s: "smokescreen CANONICAL-PROXY-CN-CLOSE")',
    );
  });

  it("reads the same from chunks cut anywhere as from one string", async () => {
    const whole = readLogLines(text);
    for (const size of [1, 7, 64, text.length]) {
      const chunks = (async function* () {
        for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
      })();
      expect(await readLogLineChunks(chunks)).toEqual(whole);
    }
  });

  it("refuses a line longer than the cap, by name, without holding it", async () => {
    const long = `{"kind":"note","message":"${"x".repeat(5000)}"}`;
    const chunks = (async function* () {
      yield jsonLines([decisionLine(1, { target: "https://api.github.com/repos/a" })]);
      for (let at = 0; at < long.length; at += 100) yield long.slice(at, at + 100);
      yield "\n";
    })();
    const read = await readLogLineChunks(chunks, { maxLineChars: 1000 });
    expect(read).toEqual({ ok: false, errors: [{ line: 2, message: expect.stringMatching(/^longer than 1000 characters \(5\d{3}\)/) }] });
  });
});
