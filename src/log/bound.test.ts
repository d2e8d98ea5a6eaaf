import { describe, expect, it } from "vitest";
import { boundEvent, createEventLog, DEFAULT_LOG_LIMITS, logJsonLinesStream, type NewEvent, parseJsonLines, toJsonLine } from "./index";

// A flood of requests with 15 KiB heads must not grow the log without
// bound. Each event is cut to a size, and the ring holds at most so many bytes of them.

const KIB = 1024;

const heads = new Map<number, { headers: Record<string, string>; path: string }>();

/** A proxy decision for a request whose head is about `headBytes` long, as a flood sends it. */
function bigDecision(i: number, headBytes: number): NewEvent {
  let head = heads.get(headBytes);
  if (!head) {
    const headers: Record<string, string> = {};
    for (let h = 0; h * 512 < headBytes; h++) headers[`x-filler-${h}`] = "v".repeat(500);
    head = { headers, path: "p".repeat(headBytes) };
    heads.set(headBytes, head);
  }
  const { headers, path } = head;
  return {
    kind: "proxy.decision",
    id: `r${i}`,
    mode: "absolute",
    method: "GET",
    target: `https://pastebin.com/${path}`,
    status: 403,
    bytes: 0,
    durationMs: 1,
    headers,
    allowed: false,
    code: "host-not-allowed",
    reason: "pastebin.com is not on the allowlist",
    by: "proxy",
  };
}

const note = (message: string): NewEvent => ({ kind: "note", level: "info", source: "test", message });

describe("each event is cut to the log's bounds on the way in", () => {
  it("an event within the bounds is stored as it came, not flagged", () => {
    const log = createEventLog({ clock: () => 1 });
    const event = log.append(note("short"));
    expect(event).toEqual({ kind: "note", level: "info", source: "test", message: "short", seq: 0, time: 1 });
  });

  it("a string longer than maxStringLength is cut and ends with a marker saying how much was cut", () => {
    const log = createEventLog({ maxStringLength: 100 });
    const event = log.append(note("x".repeat(1000)));
    expect(event.kind === "note" && event.message).toBe(`${"x".repeat(100)}…[900 more characters]`);
    expect(event.truncated).toBe(true);
  });

  it("a cut never splits a surrogate pair", () => {
    const log = createEventLog({ maxStringLength: 100 });
    const event = log.append(note(`${"x".repeat(99)}${"🙂".repeat(50)}`));
    const message = event.kind === "note" ? event.message : "";
    expect(message.startsWith(`${"x".repeat(99)}…[100 more characters]`)).toBe(true);
  });

  it("an event with many headers is cut to about maxEventBytes, the dropped headers counted in one entry", () => {
    const manyHeaders = { ...bigDecision(0, 0), headers: Object.fromEntries(Array.from({ length: 5000 }, (_, h) => [`x-h${h}`, "v"])) };
    const bounded = boundEvent(manyHeaders, { maxEventBytes: 16 * KIB, maxStringLength: 2048 });
    expect(bounded.truncated).toBe(true);
    expect(toJsonLine({ ...bounded.value, seq: 0, time: 0 } as never).length).toBeLessThan(17 * KIB);
    const value = bounded.value as Extract<NewEvent, { kind: "proxy.decision" }>;
    expect(value.headers?.["…"]).toMatch(/^…\[\d+ more entries\]$/);
    expect(value.code).toBe("host-not-allowed"); // short fields always survive
    expect(value.reason).toBe("pastebin.com is not on the allowlist");
  });

  it("a truncated event is still a valid event: it survives the JSON lines round trip", () => {
    const log = createEventLog({ clock: () => 1 });
    const event = log.append(bigDecision(0, 15 * KIB));
    expect(event.truncated).toBe(true);
    expect(parseJsonLines(toJsonLine(event))).toEqual({ events: [event], errors: [] });
  });

  it("cutting an event measures each string once per pass: the work does not grow with the strings' lengths", () => {
    // A 1 MiB string costs what a 3 KiB one does: only the kept prefix is copied.
    const small = boundEvent(note("y".repeat(3 * KIB)), DEFAULT_LOG_LIMITS);
    const large = boundEvent(note("y".repeat(1024 * KIB)), DEFAULT_LOG_LIMITS);
    expect(large.size).toBe(small.size + 3); // the marker's count has 3 more digits; nothing else differs
  });
});

describe("the ring bounds the bytes it holds as well as the events: the oldest go first, and are counted", () => {
  it("20,000 requests with 15 KiB heads leave the log within maxBytes, with every drop counted, and it still exports", async () => {
    const log = createEventLog();
    for (let i = 0; i < 20_000; i++) log.append(bigDecision(i, 15 * KIB));
    expect(log.bytes).toBeLessThanOrEqual(DEFAULT_LOG_LIMITS.maxBytes);
    const held = log.events();
    expect(held.length + log.dropped).toBe(20_000);
    expect(held.at(-1)?.seq).toBe(19_999);
    expect(held[0]?.seq).toBe(log.dropped); // oldest first, none lost from the middle
    let exported = 0;
    const reader = logJsonLinesStream(log).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) exported += r.value.length;
    expect(exported).toBeGreaterThan(0);
    expect(exported).toBeLessThanOrEqual(DEFAULT_LOG_LIMITS.maxBytes * 1.1); // the size counted is close to the JSON's
  });

  it("a byte bound drops as many old events as a large new one needs, and no more", () => {
    const log = createEventLog({ maxBytes: 4000, maxEventBytes: 4000, maxStringLength: 4000 });
    for (let i = 0; i < 10; i++) log.append(note(`${i}`.repeat(300)));
    const before = log.dropped;
    log.append(note("z".repeat(3000)));
    expect(log.bytes).toBeLessThanOrEqual(4000);
    expect(log.dropped - before).toBeGreaterThan(1);
    expect(log.events().at(-1)?.kind).toBe("note");
    expect(log.events().length + log.dropped).toBe(11);
  });

  it.each([
    ["maxBytes", { maxBytes: 0 }, /maxBytes must be a positive integer/],
    ["maxEventBytes", { maxEventBytes: 1.5 }, /maxEventBytes must be a positive integer/],
    ["maxEventBytes over maxBytes", { maxBytes: 100, maxEventBytes: 200 }, /must not exceed maxBytes/],
  ])("refuses a nonsensical %s with a clear error", (_name, limits, message) => {
    expect(() => createEventLog(limits)).toThrow(message);
  });
});
