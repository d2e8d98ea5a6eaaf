import { describe, expect, it } from "vitest";
import { createEventLog, type LogEvent, type NewEvent, verdictSequence } from "../../../log";
import {
  capNewest,
  createTimelineStore,
  describeMarks,
  emptyCounts,
  summaryText,
  type TimelineMark,
  timelineMark,
  timelineMarks,
} from "./model";

// The request timeline plots every decision of the verdict vocabulary (the codes
// of src/log/verdict.ts and the verdict table of docs/decisions/0005-the-page-is-the-only-network-client.md) on one lane per `by`.

const stamp = (event: NewEvent, time = 1_000): LogEvent => createEventLog({ clock: () => time }).append(event);

const decision = (mode: "connect" | "tunnel" | "own", allowed: boolean, code: "served" | "host-not-allowed" | "ip-literal"): NewEvent => ({
  kind: "proxy.decision",
  id: "r1",
  mode,
  method: "CONNECT",
  target: "pastebin.com:443",
  status: allowed ? 200 : 403,
  bytes: 0,
  durationMs: 1,
  allowed,
  code,
  reason: "pastebin.com is not on the allowlist",
  by: "proxy",
});

const resolverStep = (by: "resolver" | "cas", allowed: boolean, code: "served" | "hash-mismatch" | "cache-corrupt"): NewEvent => ({
  kind: "resolver.step",
  run: "run1",
  field: "harness",
  ref: "https://example.org/h.yaml",
  refKind: "url",
  pin: null,
  cache: "miss",
  allowed,
  code,
  reason: "why",
  by,
  bytes: 0,
  durationMs: 0,
});

const kernel = (result: string): NewEvent => ({
  kind: "kernel.result",
  program: "tcpconnect",
  target: "93.184.216.34:443",
  result,
  errno: result === "EACCES" ? 13 : null,
  line: "",
});

const kernelDecision: NewEvent = {
  kind: "kernel.decision",
  allowed: false,
  code: "landlock-denied",
  by: "kernel",
  reason: "Landlock domain 77 does not allow net.connect_tcp on 93.184.216.34:443",
  access: ["net.connect_tcp"],
  target: "93.184.216.34:443",
  port: 443,
  program: "/usr/bin/tab-tools",
  pid: 90,
  domain: "77",
  record: "",
};

describe("each event kind maps to its lane, verdict and panel", () => {
  it.each<[string, NewEvent, Pick<TimelineMark, "lane" | "allowed" | "code" | "panel" | "label">]>([
    [
      "a served proxy request is an allowed mark in the net lane, on the Proxy panel",
      decision("tunnel", true, "served"),
      { lane: "proxy", allowed: true, code: "served", panel: "proxy", label: "CONNECT pastebin.com:443" },
    ],
    [
      "a refused CONNECT is a refused mark in the net lane",
      decision("connect", false, "host-not-allowed"),
      { lane: "proxy", allowed: false, code: "host-not-allowed", panel: "proxy", label: "CONNECT pastebin.com:443" },
    ],
    [
      "a TLS SNI mismatch is refused by design, on the Proxy panel",
      {
        kind: "tls.verdict",
        session: "s1",
        target: "evil.example",
        alert: "unrecognized_name",
        allowed: false,
        code: "sni-mismatch",
        reason: "SNI",
        by: "design",
      },
      { lane: "design", allowed: false, code: "sni-mismatch", panel: "proxy", label: "TLS for evil.example" },
    ],
    [
      "a wire no-route is refused in the wire lane, on the Wire panel",
      { kind: "wire.verdict", target: "1.1.1.1:80", allowed: false, code: "no-route", reason: "only the proxy", by: "wire" },
      { lane: "wire", allowed: false, code: "no-route", panel: "wire", label: "a packet to 1.1.1.1:80" },
    ],
    [
      "a vault push refused is a kms mark on the Proxy panel",
      {
        kind: "kms.event",
        op: "push",
        vaultId: "demo-notes",
        command: "sgit push demo-notes",
        allowed: false,
        code: "vault-op-not-granted",
        reason: "read only",
        by: "kms",
      },
      { lane: "kms", allowed: false, code: "vault-op-not-granted", panel: "proxy", label: "vault push of demo-notes" },
    ],
    [
      "a skills step is a skills mark on the Skills panel",
      {
        kind: "skills.step",
        step: "admit",
        id: "sk1",
        detail: "",
        allowed: false,
        code: "payload-path-refused",
        reason: "..",
        by: "skills",
      },
      { lane: "skills", allowed: false, code: "payload-path-refused", panel: "skills", label: "skills admit of sk1" },
    ],
    [
      "a resolver step is a resolver mark on the Resolver panel",
      resolverStep("resolver", false, "hash-mismatch"),
      { lane: "resolver", allowed: false, code: "hash-mismatch", panel: "resolver", label: "harness https://example.org/h.yaml" },
    ],
    [
      "a cache refusal (by cas) is a cas mark on the Resolver panel",
      resolverStep("cas", false, "cache-corrupt"),
      { lane: "cas", allowed: false, code: "cache-corrupt", panel: "resolver", label: "harness https://example.org/h.yaml" },
    ],
    [
      "the kernel's audit record of a refusal is landlock-denied, refused in the kernel lane, on the Kernel panel",
      kernelDecision,
      { lane: "kernel", allowed: false, code: "landlock-denied", panel: "kernel", label: "net.connect_tcp on 93.184.216.34:443" },
    ],
  ])("%s", (_name, event, expected) => {
    expect(timelineMark(stamp(event, 42))).toMatchObject({ ...expected, time: 42 });
  });
});

describe("events that are not decisions make no mark", () => {
  it.each<[string, NewEvent]>([
    ["the page's own endpoints (mode own: /v0/log, /v0/policy) are excluded", decision("own", true, "served")],
    ["a kernel result other than EACCES is not a refusal", kernel("connected")],
    ["a demo's EACCES is the guest's view of the kernel's decision, not a second one", kernel("EACCES")],
    ["a wire frame is traffic, not a decision", { kind: "wire.frame", dir: "in", proto: "arp", summary: "who-has", bytes: 42 }],
    ["a policy change is not a request", { kind: "policy.change", oldHash: null, newHash: "abc", source: "default policy" }],
  ])("%s", (_name, event) => {
    expect(timelineMark(stamp(event))).toBeNull();
  });
});

describe("the timeline selects exactly what a share link's verdict sequence selects", () => {
  it("marks carry the same codes and deciders, in the same order, as verdictSequence", () => {
    const log = createEventLog();
    for (const e of [
      decision("tunnel", true, "served"),
      decision("own", true, "served"),
      kernelDecision,
      kernel("EACCES"),
      kernel("connected"),
      resolverStep("cas", false, "cache-corrupt"),
      decision("connect", false, "ip-literal"),
    ])
      log.append(e);
    const marks = timelineMarks(log.events());
    expect(marks.map((m) => ({ code: m.code, by: m.lane }))).toEqual(verdictSequence(log.events()));
    expect(marks.map((m) => m.allowed)).toEqual([true, false, false, false]);
  });
});

const mark = (seq: number, allowed = true, lane: TimelineMark["lane"] = "proxy"): TimelineMark => ({
  seq,
  time: 1_000 + seq,
  lane,
  allowed,
  code: allowed ? "served" : "host-not-allowed",
  label: `GET /${seq}`,
  reason: "r",
  panel: "proxy",
});

describe("capping keeps the newest marks and counts the rest", () => {
  it.each([
    ["under the cap everything is kept", 3, 5, [0, 1, 2], 0],
    ["exactly at the cap everything is kept", 5, 5, [0, 1, 2, 3, 4], 0],
    ["over the cap the newest are kept, oldest first, and the older are counted", 7, 3, [4, 5, 6], 4],
  ])("%s", (_name, n, cap, keptSeqs, notDrawn) => {
    const marks = Array.from({ length: n }, (_, i) => mark(i));
    const capped = capNewest(marks, cap);
    expect(capped.kept.map((m) => m.seq)).toEqual(keptSeqs);
    expect(capped.notDrawn).toBe(notDrawn);
  });

  it("the store counts every mark ever added, keeps the newest cap, and bounds its memory", () => {
    const store = createTimelineStore(10);
    for (let i = 0; i < 5_000; i++) store.add(mark(i, i % 3 !== 0, i % 2 ? "proxy" : "kernel"));
    expect(store.kept().map((m) => m.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 4_990 + i));
    expect(store.notDrawn).toBe(4_990);
    expect(store.counts.total).toEqual({ allowed: 3_333, refused: 1_667 });
    expect(store.counts.lanes.proxy.allowed + store.counts.lanes.proxy.refused).toBe(2_500);
    expect(store.counts.lanes.kernel.allowed + store.counts.lanes.kernel.refused).toBe(2_500);
  });

  it("a cap that is not a positive integer is refused", () => {
    expect(() => createTimelineStore(0)).toThrow(RangeError);
  });
});

describe("counts and the accessible summary", () => {
  it("an empty log has no marks, zero counts, and says so", () => {
    const store = createTimelineStore();
    expect(timelineMarks([])).toEqual([]);
    expect(store.kept()).toEqual([]);
    expect(store.notDrawn).toBe(0);
    expect(store.counts).toEqual(emptyCounts());
    expect(summaryText(store.counts)).toBe("Request timeline: no decisions yet.");
  });

  it("the summary gives the totals, then each lane with marks, in decider order, and what was not drawn", () => {
    const store = createTimelineStore(2);
    for (const m of [mark(1, true), mark(2, false), mark(3, false, "kernel"), mark(4, true)]) store.add(m);
    expect(summaryText(store.counts, store.notDrawn)).toBe(
      "Request timeline: 2 allowed · 2 refused. By component: proxy: 2 allowed, 1 refused; kernel: 0 allowed, 1 refused. 2 older not drawn.",
    );
  });
});

describe("what hovering or focusing a mark tells", () => {
  const clock = (ms: number) => `t${ms}`;
  it("one mark: verdict, code, decider, what was asked, why, when", () => {
    expect(describeMarks([mark(5, false)], clock)).toBe("refused host-not-allowed (proxy): GET /5 — r — t1005");
  });
  it("a bucket of marks names each code with its count and shows the newest", () => {
    const marks = [mark(1, false), { ...mark(2, false), code: "ip-literal" }, mark(3, false)];
    expect(describeMarks(marks, clock)).toBe(
      "3 refused (proxy): host-not-allowed ×2, ip-literal ×1; newest host-not-allowed: GET /3 — r — t1003",
    );
  });
  it("no marks describe nothing", () => {
    expect(describeMarks([], clock)).toBe("");
  });
});

describe("a decision served under report mode is its own mark", () => {
  it("carries wouldRefuse and the reason the allowlist would have given, and says so when hovered", () => {
    const event = stamp({
      ...decision("connect", true, "served"),
      reason: "report mode: served",
      wouldRefuse: "host-not-allowed",
      wouldRefuseReason: "pastebin.com is not on the allowlist",
    } as NewEvent);
    const made = timelineMark(event);
    expect(made).toMatchObject({
      allowed: true,
      code: "served",
      wouldRefuse: "host-not-allowed",
      reason: "pastebin.com is not on the allowlist",
    });
    expect(describeMarks([made!], () => "t")).toMatch(
      /^would refuse host-not-allowed, served in report mode \(proxy\): CONNECT pastebin.com:443/,
    );
  });
});
