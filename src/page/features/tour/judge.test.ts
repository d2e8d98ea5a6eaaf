import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../../log";
import { judge } from "./judge";
import { TOUR_STEPS, type TourStep } from "./steps";

// The guided tour; the rows are those of the verdict table
// (docs/decisions/0005-the-page-is-the-only-network-client.md).
const step = (id: string): TourStep => {
  const found = TOUR_STEPS.find((s) => s.id === id);
  if (!found) throw new Error(`no step ${id}`);
  return found;
};

const decision = (
  target: string,
  code: "served" | "host-not-allowed" | "ip-literal",
  reason: string,
  mode: "connect" | "own" = "connect",
): NewEvent => ({
  kind: "proxy.decision",
  id: "r1",
  mode,
  method: mode === "connect" ? "CONNECT" : "GET",
  target,
  status: code === "served" ? 200 : 403,
  bytes: 0,
  durationMs: 1,
  allowed: code === "served",
  code,
  reason,
  by: "proxy",
});
const pastebin = decision("pastebin.com:443", "host-not-allowed", "pastebin.com is not on the allowlist");
const ipLiteral = decision("93.184.216.34:443", "ip-literal", "93.184.216.34 is an IP address (93.184.216.34); only names can be allowed");
const served = decision("api.github.com:443", "served", "api.github.com is allowed");
const ownLog = decision("/v0/log", "served", "the page's own endpoint", "own");
const kernelResult = (result: string, errno: number): NewEvent => ({
  kind: "kernel.result",
  program: "tcpconnect",
  target: "93.184.216.34:443",
  result,
  errno,
  line: `tcpconnect: dst=93.184.216.34:443 result=${result} errno=${errno}`,
});
const eacces = kernelResult("EACCES", 13);
const refusedByPeer = kernelResult("ECONNREFUSED", 111);
const noRoute: NewEvent = {
  kind: "wire.verdict",
  target: "93.184.216.34:443",
  allowed: false,
  code: "no-route",
  reason: "no route out of the tab: 93.184.216.34 is not the page (10.0.2.2)",
  by: "wire",
};
const dnsRefused: NewEvent = { kind: "wire.dns", name: "example.com", type: "A", answer: "REFUSED", rcode: 5 };
const dnsAnswered: NewEvent = { kind: "wire.dns", name: "example.com", type: "A", answer: "NOERROR A 1.2.3.4", rcode: 0 };
const ruleset: NewEvent = {
  kind: "kernel.ruleset",
  abi: 6,
  fsRo: ["/"],
  fsRw: ["/tmp"],
  connect: [3128],
  bind: [],
  scope: [],
  dropped: [],
  line: "llrun: ruleset abi=6 fs_ro=/ fs_rw=/tmp connect=3128 bind= scope= dropped=",
};
const frame: NewEvent = { kind: "wire.frame", dir: "in", proto: "tcp", summary: "SYN 10.0.2.15 → 10.0.2.2:3128", bytes: 74 };
const tourEvent: NewEvent = { kind: "tour.step", step: "pastebin", phase: "start", message: "x" };

describe("the tour recognises each step's outcome from the log", () => {
  it.each([
    ["sending a file to pastebin is refused host-not-allowed by proxy (row 2)", "pastebin", pastebin, /host-not-allowed \(by proxy.*row 2/],
    ["the IP address is refused ip-literal by proxy (row 4)", "ip-literal", ipLiteral, /ip-literal \(by proxy.*row 4/],
    ["a connect() under the agent's policy gets EACCES from the kernel (row 6)", "bypass", eacces, /EACCES \(errno 13\).*kernel.*row 6/],
    [
      "a DNS query is seen on the wire and answered REFUSED (row 7)",
      "dns",
      dnsRefused,
      /example\.com.*REFUSED.*TCP connect and bind only.*row 7/,
    ],
  ])("%s", (_name, id, event, reason) => {
    const verdict = judge(step(id), event);
    expect(verdict.outcome).toBe("passed");
    expect(verdict.reason).toMatch(/^What happened: .*\. Why: /);
    expect(verdict.reason).toMatch(reason);
  });
});

describe("a different outcome on a step is wrong, and says what happened instead", () => {
  it.each([
    [
      "an allowed request on the pastebin step was served, not refused",
      "pastebin",
      served,
      /served \(by proxy.*allowlist, so nothing was refused/,
    ],
    ["the IP literal on the pastebin step is another refusal", "pastebin", ipLiteral, /ip-literal.*Upload the file to pastebin/],
    [
      "pastebin again on the IP step is host-not-allowed, not ip-literal",
      "ip-literal",
      pastebin,
      /host-not-allowed.*IP address 93\.184\.216\.34/,
    ],
    [
      "without llrun the SYN leaves and the wire refuses it (no-route)",
      "bypass",
      noRoute,
      /no-route \(by wire\).*without llrun.*no packet leaves at all/,
    ],
    [
      "without llrun tcpconnect gets ECONNREFUSED, not EACCES",
      "bypass",
      refusedByPeer,
      /ECONNREFUSED \(errno 111\).*did not refuse it.*no-route/,
    ],
    ["a curl on the bypass step went through the proxy", "bypass", pastebin, /went through the proxy/],
    ["a DNS answer other than REFUSED", "dns", dnsAnswered, /NOERROR A 1\.2\.3\.4, not REFUSED/],
    ["EACCES on the DNS step is the previous lesson", "dns", eacces, /EACCES.*Look up a name/],
  ])("%s", (_name, id, event, reason) => {
    const verdict = judge(step(id), event);
    expect(verdict.outcome).toBe("wrong");
    expect(verdict.reason).toMatch(/^What happened instead: /);
    expect(verdict.reason).toMatch(reason);
  });
});

describe("events that are not an outcome of what the trainee ran are ignored", () => {
  it.each([
    ["a frame on the wire", frame],
    ["the Landlock ruleset llrun reports before the probe", ruleset],
    ["a request to the page's own endpoint (/v0/log)", ownLog],
    ["the tour's own events", tourEvent],
  ])("%s", (_name, event) => {
    for (const s of TOUR_STEPS) expect(judge(s, event).outcome).toBe("ignore");
  });
});

describe("the step table follows the verdict table", () => {
  it("has the tour's four steps in order, each citing its row", () => {
    expect(TOUR_STEPS.map((s) => [s.id, s.seedRow])).toEqual([
      ["pastebin", 2],
      ["ip-literal", 4],
      ["bypass", 6],
      ["dns", 7],
    ]);
  });

  it.each(TOUR_STEPS.map((s) => [s.id, s] as const))("step %s passes on no other step's outcome", (_id, s) => {
    const outcomes = [pastebin, ipLiteral, eacces, dnsRefused];
    const passes = outcomes.filter((e) => judge(s, e).outcome === "passed");
    expect(passes).toHaveLength(1);
  });
});
