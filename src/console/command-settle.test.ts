import { describe, expect, it } from "vitest";
import { createEventLog, type NewEvent } from "../log";
import { fakeTimers } from "../platform/testing/fake-timers";
import { connectionsClosed, connectionsOpenSince, lateReportArrived } from "./command-settle";

const conn = (id: string, phase: "open" | "close" | "reset") =>
  ({ kind: "wire.connection", id, phase, remote: "10.0.2.15:40000", port: 3128, bytesIn: 0, bytesOut: 0 }) as const;

describe("a command's connections", () => {
  it("connections opened since a point and not closed are the ones still open", () => {
    const log = createEventLog();
    log.append(conn("before", "open"));
    const from = log.nextSeq;
    log.append(conn("a", "open"));
    log.append(conn("b", "open"));
    log.append(conn("a", "close"));
    expect([...connectionsOpenSince(log.events(), from)]).toEqual(["b"]);
  });

  it("waiting for them ends when the last one closes or resets", async () => {
    const log = createEventLog();
    const from = log.nextSeq;
    log.append(conn("a", "open"));
    log.append(conn("b", "open"));
    const closed = connectionsClosed(log, from, 60_000);
    log.append(conn("a", "close"));
    log.append(conn("b", "reset"));
    expect(await closed).toBe(true);
  });

  it("with nothing open there is nothing to wait for", async () => {
    const log = createEventLog();
    expect(await connectionsClosed(log, log.nextSeq, 60_000)).toBe(true);
  });

  it("a connection that stays open does not hold the caller past the limit", async () => {
    const log = createEventLog();
    const from = log.nextSeq;
    log.append(conn("kept", "open"));
    const timers = fakeTimers();
    let settled: boolean | null = null;
    void connectionsClosed(log, from, 60_000, timers).then((v) => (settled = v));
    await timers.advance(59_999);
    expect(settled).toBeNull();
    await timers.advance(1);
    expect(settled).toBe(false);
  });
});

describe("a refused command's window and the kernel's late decision", () => {
  const decision: NewEvent = {
    kind: "kernel.decision",
    allowed: false,
    code: "landlock-denied",
    reason: "Landlock domain 1 does not allow fs.make_reg on /root",
    by: "kernel",
    access: ["fs.make_reg"],
    target: "/root",
    program: "sh",
    pid: 42,
    domain: "1",
    record: "",
  };

  // Time is the test's: the tests say what is waited for, not how long it takes.
  it("waits for the kernel's decision that the control line delivers after the end mark", async () => {
    const log = createEventLog();
    const from = log.nextSeq;
    const timers = fakeTimers();
    let settled: boolean | null = null;
    void lateReportArrived(log, from, { kinds: ["kernel.decision"], limitMs: 5_000 }, timers).then((v) => (settled = v));
    await timers.advance(1_000);
    expect(settled).toBeNull();
    log.append(decision);
    await timers.settle();
    expect(settled).toBe(true);
  });

  it("one already on the log needs no wait, and none is given up on at the limit", async () => {
    const log = createEventLog();
    const from = log.nextSeq;
    log.append(decision);
    await expect(lateReportArrived(log, from, { kinds: ["kernel.decision"], limitMs: 5_000 })).resolves.toBe(true);
    const timers = fakeTimers();
    let settled: boolean | null = null;
    void lateReportArrived(log, log.nextSeq, { kinds: ["kernel.decision"], limitMs: 5_000 }, timers).then((v) => (settled = v));
    await timers.advance(4_999);
    expect(settled).toBeNull();
    await timers.advance(1);
    expect(settled).toBe(false);
  });
});
