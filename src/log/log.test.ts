import { describe, expect, it } from "vitest";
import { createEventLog, type LogEvent, parseJsonLines, toJsonLines } from "./index";

const note = (message: string) => ({ kind: "note", level: "info", source: "test", message }) as const;

describe("the event log (one log, many views)", () => {
  it("stamps each event with an increasing seq and the injected clock's time", () => {
    let now = 1000;
    const log = createEventLog({ clock: () => now++ });
    const a = log.append(note("a"));
    const b = log.append(note("b"));
    expect([a.seq, a.time, b.seq, b.time]).toEqual([0, 1000, 1, 1001]);
  });

  it("tells every subscriber about each append, and stops after unsubscribe", () => {
    const log = createEventLog();
    const seen: string[] = [];
    const off = log.subscribe((e) => seen.push(e.kind === "note" ? e.message : ""));
    log.append(note("one"));
    off();
    log.append(note("two"));
    expect(seen).toEqual(["one"]);
  });

  it("keeps bounded memory: a full ring drops the oldest and counts what it dropped", () => {
    const log = createEventLog({ capacity: 3 });
    for (const m of ["1", "2", "3", "4", "5"]) log.append(note(m));
    expect(log.events().map((e) => (e.kind === "note" ? e.message : ""))).toEqual(["3", "4", "5"]);
    expect(log.dropped).toBe(2);
    expect(log.nextSeq).toBe(5);
  });

  it("isolates a throwing listener: the append and the other listeners still happen", async () => {
    const log = createEventLog();
    const seen: number[] = [];
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on("uncaughtException", onError);
    log.subscribe(() => {
      throw new Error("broken view");
    });
    log.subscribe((e) => seen.push(e.seq));
    log.append(note("x"));
    await new Promise((r) => setTimeout(r, 0));
    process.off("uncaughtException", onError);
    expect(seen).toEqual([0]);
    expect(log.events()).toHaveLength(1);
  });

  it("filters by kind with the right type", () => {
    const log = createEventLog();
    log.append(note("n"));
    log.append({ kind: "wire.dns", name: "example.com", type: "A", answer: "REFUSED" });
    const dns = log.ofKind("wire.dns");
    expect(dns.map((e) => e.name)).toEqual(["example.com"]);
  });

  it("refuses a nonsensical capacity with a clear error", () => {
    expect(() => createEventLog({ capacity: 0 })).toThrow(/capacity must be a positive integer/);
  });
});

describe("JSON lines export (what GET /v0/log serves)", () => {
  it("round-trips every event through JSON lines", () => {
    const log = createEventLog({ clock: () => 5 });
    log.append(note("hello"));
    log.append({
      kind: "proxy.decision",
      id: "r1",
      mode: "absolute",
      method: "GET",
      target: "https://pastebin.com/raw/x",
      status: 403,
      bytes: 0,
      durationMs: 1,
      allowed: false,
      code: "host-not-allowed",
      reason: "pastebin.com is not on the allowlist",
      by: "proxy",
    });
    const text = toJsonLines(log.events());
    expect(text.split("\n")).toHaveLength(3);
    const parsed = parseJsonLines(text);
    expect(parsed.errors).toEqual([]);
    expect(parsed.events).toEqual(log.events() as LogEvent[]);
  });

  it("treats a log from outside as untrusted: bad lines are reported by line, good ones kept", () => {
    const text = [
      '{"seq":0,"time":1,"kind":"note","level":"info","source":"x","message":"ok"}',
      "not json",
      '{"seq":1,"time":2,"kind":"proxy.decision","code":"made-up"}',
      '{"seq":2,"time":3,"kind":"no-such-kind"}',
    ].join("\n");
    const parsed = parseJsonLines(text);
    expect(parsed.events).toHaveLength(1);
    expect(parsed.errors.map((e) => e.line)).toEqual([2, 3, 4]);
    expect(parsed.errors[0]?.message).toMatch(/^not JSON/);
  });
});
