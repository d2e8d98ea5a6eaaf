import { describe, expect, it } from "vitest";
import type { LogEvent } from "./event";
import { readLogText, type TranslatedLine } from "./read";

/** A translator for a made-up foreign format: `{"who":…}` lines become this log's events. */
function translate(value: unknown, line: number): TranslatedLine {
  if (typeof value !== "object" || value === null || !("who" in value)) return null;
  const event: LogEvent =
    (value as { who: unknown }).who === "proxy"
      ? {
          kind: "proxy.decision",
          seq: line,
          time: 0,
          id: `foreign-${line}`,
          mode: "connect",
          method: "CONNECT",
          target: "example.com:443",
          status: 200,
          bytes: 0,
          durationMs: 0,
          allowed: true,
          code: "served",
          reason: "foreign: allowed",
          by: "proxy",
        }
      : { kind: "scenario", seq: line, time: 0, act: "scenario", id: "s1", phase: "start", message: "foreign" };
  return { event };
}

describe("reading another writer's lines through a translator", () => {
  it("keeps a translated event of a needed kind as the translator built it, and counts one of a kind not needed as skipped", () => {
    const text = ['{"who":"proxy"}', '{"who":"scenario"}', '{"who":"proxy"}'].join("\n");
    const read = readLogText(text, { needs: ["proxy.decision"], translate });
    expect(read.errors).toEqual([]);
    expect(read.lines.map((l) => [l.line, l.event.kind, (l.event as { id?: string }).id])).toEqual([
      [1, "proxy.decision", "foreign-1"],
      [3, "proxy.decision", "foreign-3"],
    ]);
    expect(read.skipped.lines).toBe(1);
    expect([...read.skipped.byKind]).toEqual([["scenario", 1]]);
    expect(read.skipped.unknownKinds).toEqual([]);
  });
});
