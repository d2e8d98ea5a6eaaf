import { describe, expect, it } from "vitest";
import type { LogEvent, NewEvent } from "../../../log";
import { createTourMachine } from "./machine";
import { TOUR_STEPS } from "./steps";

// "The tour advances on the right outcome and not on a wrong one"; verdict table rows 2, 4, 6, 7.
const refusal = (target: string, code: "host-not-allowed" | "ip-literal"): NewEvent => ({
  kind: "proxy.decision",
  id: "r",
  mode: "connect",
  method: "CONNECT",
  target,
  status: 403,
  bytes: 0,
  durationMs: 1,
  allowed: false,
  code,
  reason: "refused",
  by: "proxy",
});
const pastebin = refusal("pastebin.com:443", "host-not-allowed");
const ipLiteral = refusal("93.184.216.34:443", "ip-literal");
const eacces: NewEvent = {
  kind: "kernel.result",
  program: "tcpconnect",
  target: "93.184.216.34:443",
  result: "EACCES",
  errno: 13,
  line: "x",
};
const dns: NewEvent = { kind: "wire.dns", name: "example.com", type: "A", answer: "REFUSED", rcode: 5 };
const scenario = (phase: "start" | "done"): NewEvent => ({ kind: "scenario", act: "scenario", id: "ip-literal", phase, message: "" });

/** The event as the log holds it (the tour reads the log). */
let seq = 0;
const logged = (event: NewEvent): LogEvent => ({ ...event, seq: ++seq, time: 0 }) as LogEvent;

describe("a trainee's session through the tour", () => {
  it("advances on each right outcome, stays on a wrong one, and finishes after DNS", () => {
    const tour = createTourMachine(TOUR_STEPS);
    expect(tour.announce(false).map((u) => [u.phase, u.step])).toEqual([["start", "pastebin"]]);
    expect(tour.feed(logged(pastebin)).map((u) => [u.phase, u.step])).toEqual([
      ["passed", "pastebin"],
      ["start", "ip-literal"],
    ]);
    expect(tour.feed(logged(pastebin)).map((u) => [u.phase, u.step])).toEqual([["wrong", "ip-literal"]]);
    expect(tour.current?.id).toBe("ip-literal");
    tour.feed(logged(ipLiteral));
    tour.feed(logged(eacces));
    expect(tour.feed(logged(dns)).map((u) => [u.phase, u.step])).toEqual([
      ["passed", "dns"],
      ["finished", "dns"],
    ]);
    expect(tour.current).toBeNull();
    expect(tour.progress).toEqual({ stepIndex: 3, finished: true });
  });

  it("ignores outcomes once finished (nslookup's second query)", () => {
    const tour = createTourMachine(TOUR_STEPS, { stepIndex: 3, finished: true });
    expect(tour.feed(logged(dns))).toEqual([]);
    expect(tour.announce(true).map((u) => u.phase)).toEqual(["finished"]);
  });

  it("resumes where the saved progress says", () => {
    const tour = createTourMachine(TOUR_STEPS, { stepIndex: 2, finished: false });
    const [update] = tour.announce(true);
    expect(update?.step).toBe("bypass");
    expect(update?.message).toMatch(/^Resumed at step 3 of 4/);
  });

  it("restarts at step 1 from anywhere", () => {
    const tour = createTourMachine(TOUR_STEPS, { stepIndex: 3, finished: true });
    expect(tour.restart().map((u) => [u.phase, u.step])).toEqual([
      ["restart", "pastebin"],
      ["start", "pastebin"],
    ]);
    expect(tour.progress).toEqual({ stepIndex: 0, finished: false });
  });

  it("does not count what the scenario bar ran, only what the trainee typed", () => {
    const tour = createTourMachine(TOUR_STEPS, { stepIndex: 1, finished: false });
    expect(tour.feed(logged(scenario("start"))).map((u) => u.phase)).toEqual(["aside"]);
    expect(tour.feed(logged(ipLiteral))).toEqual([]);
    tour.feed(logged(scenario("done")));
    expect(tour.current?.id).toBe("ip-literal");
    expect(tour.feed(logged(ipLiteral)).map((u) => u.phase)).toEqual(["passed", "start"]);
  });
});
