import { describe, expect, it } from "vitest";
import { DECISION_KINDS, type Decision, decisionOf } from "./decision";
import { type LogEvent, NewEvent } from "./event";
import { readLogText, SEQUENCE_KINDS } from "./read";
import { verdictSequence } from "./verdict-sequence";

const proxy = (mode: "connect" | "tunnel" | "own" | "absolute", extra: Partial<Extract<NewEvent, { kind: "proxy.decision" }>> = {}) =>
  ({
    kind: "proxy.decision",
    id: mode === "connect" ? "c1" : "r2",
    mode,
    method: mode === "connect" ? "CONNECT" : "GET",
    target: mode === "connect" ? "api.github.com:443" : "https://api.github.com/zen",
    status: 200,
    bytes: 0,
    durationMs: 1,
    allowed: true,
    code: "served",
    reason: "on the allowlist",
    by: "proxy",
    ...(mode === "tunnel" ? { tlsSession: "c1" } : {}),
    ...extra,
  }) as NewEvent;

/**
 * One sample of every event kind the log writes, and the decision it carries (null: none).
 * A new event kind fails "covers every kind" until it is added here with its decision.
 */
const TABLE: [string, NewEvent, Partial<Decision> | null][] = [
  ["a served CONNECT opens a tunnel", proxy("connect"), { code: "served", by: "proxy", allowed: true, about: "tunnel", request: "c1" }],
  [
    "a request inside a tunnel names the tunnel it travelled in",
    proxy("tunnel", { allowed: false, code: "upstream-unreadable", status: 502 }),
    { code: "upstream-unreadable", allowed: false, about: "request", tunnel: "c1", subject: "GET https://api.github.com/zen" },
  ],
  ["the page's own endpoints are the guest looking", proxy("own"), { about: "own" }],
  ["a body cut short is carried", proxy("absolute", { bodyCut: true }), { about: "request", bodyCut: true }],
  [
    "a TLS refusal is the request's, in its tunnel",
    {
      kind: "tls.verdict",
      session: "c1",
      target: "api.github.com",
      alert: null,
      allowed: false,
      code: "sni-mismatch",
      reason: "r",
      by: "design",
    },
    { code: "sni-mismatch", by: "design", about: "request", tunnel: "c1" },
  ],
  [
    "a TLS session",
    {
      kind: "tls.session",
      id: "c1",
      phase: "established",
      connectHost: "h",
      sni: "h",
      cipher: null,
      group: null,
      alpn: null,
      certFingerprint: null,
      requests: 0,
    },
    null,
  ],
  [
    "a wire refusal",
    { kind: "wire.verdict", target: "1.2.3.4:80", allowed: false, code: "no-route", reason: "r", by: "wire" },
    { code: "no-route", by: "wire", about: "other", target: "1.2.3.4:80" },
  ],
  [
    "a refused fragment",
    { kind: "wire.malformed", reason: "fragment", bytes: 60, code: "fragment-refused" },
    { code: "fragment-refused", by: "wire", allowed: false },
  ],
  ["a malformed frame without a code decides nothing", { kind: "wire.malformed", reason: "checksum", bytes: 60 }, null],
  ["a frame", { kind: "wire.frame", dir: "in", proto: "tcp", summary: "s", bytes: 60 }, null],
  ["a connection", { kind: "wire.connection", id: "w", phase: "open", remote: "10.0.2.2", port: 3128, bytesIn: 0, bytesOut: 0 }, null],
  ["a DNS answer is not a decision", { kind: "wire.dns", name: "h", type: "A", answer: "REFUSED", rcode: 5 }, null],
  [
    "a vault refusal",
    {
      kind: "kms.event",
      op: "pull",
      vaultId: "demo-notes",
      command: "tab-vault pull",
      allowed: false,
      code: "vault-op-not-granted",
      reason: "r",
      by: "kms",
    },
    { code: "vault-op-not-granted", by: "kms", target: "demo-notes" },
  ],
  [
    "a resolver step",
    {
      kind: "resolver.step",
      run: "r",
      field: "harness",
      ref: "h.yaml",
      refKind: "relative",
      pin: null,
      cache: "none",
      allowed: false,
      code: "hash-mismatch",
      reason: "r",
      by: "cas",
      bytes: 0,
      durationMs: 0,
      url: "https://e.org/h.yaml",
    },
    { code: "hash-mismatch", by: "cas", target: "https://e.org/h.yaml" },
  ],
  ["a resolver run", { kind: "resolver.run", run: "r", phase: "start", harness: "h", done: 0, total: 1 }, null],
  ["a resolver lint", { kind: "resolver.lint", run: "r", field: "f", severity: "info", code: "c", message: "m" }, null],
  ["an allowlist change", { kind: "resolver.allowlist", oldHash: "a", newHash: "b", source: "s", added: [], removed: [] }, null],
  [
    "a skills step",
    { kind: "skills.step", step: "fetch", id: "s1", detail: "d", allowed: true, code: "served", reason: "r", by: "skills" },
    { code: "served", by: "skills", target: "s1" },
  ],
  [
    "a corrupt cache entry",
    { kind: "cache.event", op: "corrupt", sha256: "ab", bytes: 1 },
    { code: "cache-corrupt", by: "cas", allowed: false, target: "ab" },
  ],
  ["a cache hit", { kind: "cache.event", op: "hit", sha256: "ab", bytes: 1 }, null],
  [
    "the kernel's own audit record of a refusal is landlock-denied by the kernel",
    {
      kind: "kernel.decision",
      allowed: false,
      code: "landlock-denied",
      reason: "Landlock domain 1a does not allow net.connect_tcp on 1.2.3.4:443",
      by: "kernel",
      access: ["net.connect_tcp"],
      target: "1.2.3.4:443",
      program: "tcpconnect",
      pid: 7,
      domain: "1a",
      record: "",
    },
    { code: "landlock-denied", by: "kernel", allowed: false, target: "1.2.3.4:443", subject: "net.connect_tcp on 1.2.3.4:443" },
  ],
  [
    "a demo's EACCES is the guest's view of the kernel's decision, not a second one",
    { kind: "kernel.result", program: "tcpconnect", target: "1.2.3.4:443", result: "EACCES", errno: 13, line: "" },
    null,
  ],
  [
    "another kernel result decides nothing",
    { kind: "kernel.result", program: "tcpconnect", target: "1.2.3.4:443", result: "ECONNREFUSED", errno: 111, line: "" },
    null,
  ],
  ["a ruleset", { kind: "kernel.ruleset", abi: 4, fsRo: [], fsRw: [], connect: [], bind: [], scope: [], dropped: [], line: "" }, null],
  ["the ABI", { kind: "kernel.abi", abi: 4 }, null],
  ["boot progress", { kind: "boot.progress", phase: "ready", message: "m" }, null],
  ["a policy change", { kind: "policy.change", oldHash: null, newHash: "h", source: "s" }, null],
  ["an invalid policy", { kind: "policy.invalid", errors: ["e"] }, null],
  ["a scenario", { kind: "scenario", act: "scenario", id: "s", phase: "start", message: "m" }, null],
  ["a note", { kind: "note", level: "info", source: "s", message: "m" }, null],
  ["dropped lines", { kind: "log.dropped", dropped: 1, message: "m" }, null],
  ["a runner step", { kind: "runner.step", run: "r", source: "runner", step: "s", outcome: null, level: "info", message: "m" }, null],
  ["a lesson load", { kind: "lesson.load", pin: "p", title: "t", source: "bundled", steps: 1 }, null],
  [
    "a lesson step (a judgement about decisions, not one)",
    { kind: "lesson.step", pin: "p", step: 1, title: "t", result: "failed", code: "served", by: "proxy", unmet: [], message: "m" },
    null,
  ],
];

describe("decisionOf: the decision each event kind carries", () => {
  it.each(TABLE)("%s", (_name, event, want) => {
    const got = decisionOf(event);
    if (want === null) expect(got).toBeNull();
    else expect(got).toMatchObject({ kind: event.kind, ...want });
  });

  it("covers every kind the log writes", () => {
    const kinds = NewEvent.options.map((o) => o.shape.kind.value);
    const covered = new Set(TABLE.map(([, e]) => e.kind));
    expect(kinds.filter((k) => !covered.has(k))).toEqual([]);
  });
});

describe("DECISION_KINDS: the kinds decisionOf reads", () => {
  it("are exactly the kinds of which some sample carries a decision", () => {
    const deciding = new Set(TABLE.filter(([, e]) => decisionOf(e) !== null).map(([, e]) => e.kind));
    expect([...DECISION_KINDS].sort()).toEqual([...deciding].sort());
  });

  it("a share link's replay reads them all: a log read for SEQUENCE_KINDS gives the whole log's verdict sequence", () => {
    expect(SEQUENCE_KINDS).toEqual(expect.arrayContaining([...DECISION_KINDS, "scenario"]));
    const events = TABLE.map(([, e], i) => ({ ...e, seq: i, time: 1_000 + i }) as LogEvent);
    const text = events.map((e) => JSON.stringify(e)).join("\n");
    const read = readLogText(text, { needs: SEQUENCE_KINDS });
    expect(read.errors).toEqual([]);
    const whole = verdictSequence(events);
    expect(whole.length).toBeGreaterThan(0);
    expect(verdictSequence(read.lines.map((l) => l.event))).toEqual(whole);
  });
});
