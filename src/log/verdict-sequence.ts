import { type Decision, decisionsOf } from "./decision";
import type { LogEvent } from "./event";

/** One step of a replayable verdict sequence: the code and the component that decided. */
export interface SequenceStep {
  code: string;
  by: string;
}

/**
 * The verdicts a session produced, in order, without timings: what a share link's receiver
 * must reproduce. Allowed proxy requests count too, so "served" is compared. Which events
 * decide comes from `decisionOf`; a replay leaves out the page's own endpoints and what the
 * wire and the cache decide about frames and cached bytes (not something a run reproduces).
 */
export function verdictSequence(events: readonly LogEvent[]): SequenceStep[] {
  return decisionsOf(events)
    .filter(replayed)
    .map((d) => ({ code: d.code, by: d.by }));
}

/** Whether a decision is part of what a replay compares. */
export const replayed = (d: Decision): boolean => d.about !== "own" && d.kind !== "wire.malformed" && d.kind !== "cache.event";

/** Compact text form for links: `code:by,code:by`. */
export function encodeSequence(steps: readonly SequenceStep[]): string {
  return steps.map((s) => `${s.code}:${s.by}`).join(",");
}

/** Links made before the proxy's decider was named "proxy" call it "net" (the design's `.net`). */
const RENAMED_DECIDERS: Readonly<Record<string, string>> = { net: "proxy" };

export function decodeSequence(text: string): SequenceStep[] {
  return text
    .split(",")
    .filter((p) => /^[a-z0-9-]+:[a-z]+$/.test(p))
    .map((p) => {
      const [code = "", by = ""] = p.split(":");
      return { code, by: RENAMED_DECIDERS[by] ?? by };
    });
}

export interface SequenceDiff {
  index: number;
  expected: SequenceStep | null;
  actual: SequenceStep | null;
  same: boolean;
}

/** Position-by-position comparison of the sender's sequence and the replay's. */
export function compareSequences(expected: readonly SequenceStep[], actual: readonly SequenceStep[]): SequenceDiff[] {
  const n = Math.max(expected.length, actual.length);
  const rows: SequenceDiff[] = [];
  for (let i = 0; i < n; i++) {
    const e = expected[i] ?? null;
    const a = actual[i] ?? null;
    rows.push({ index: i, expected: e, actual: a, same: e !== null && a !== null && e.code === a.code && e.by === a.by });
  }
  return rows;
}
