import { DECIDERS, type Decider, decisionOf, type LogEvent, replayed } from "../../../log";

/**
 * The request timeline's model: which log events become marks, and what is kept
 * to draw. No DOM here, so the rules are unit-tested in Node (timeline-model.test.ts).
 */

/** The panel that lists a mark's event: clicking the mark selects it. */
export type TimelinePanel = "proxy" | "wire" | "resolver" | "skills" | "kernel";

/** One decision on the time axis. */
export interface TimelineMark {
  seq: number;
  /** Milliseconds since the epoch: the log's `time` stamp. */
  time: number;
  /** The deciding component (`by`): one row of the chart. */
  lane: Decider;
  allowed: boolean;
  code: string;
  /** What was asked: a request line, a target, a ref. Hostile text: render as text only. */
  label: string;
  reason: string;
  panel: TimelinePanel;
  /** Served under report mode: the code the allowlist would have refused with (its own mark). */
  wouldRefuse?: string;
}

/**
 * The mark for one event, or null. Which events count, their code, decider, verdict and
 * reason come from `decisionOf`, with the selection share links compare (`replayed`), so the
 * picture and a replay never disagree about what a decision is; this adds only the panel.
 */
export function timelineMark(event: LogEvent): TimelineMark | null {
  const d = decisionOf(event);
  const panel = d ? PANELS[d.kind] : undefined;
  if (!d || !panel || !replayed(d)) return null;
  return {
    seq: event.seq,
    time: event.time,
    lane: d.by,
    allowed: d.allowed,
    code: d.code,
    label: d.subject,
    reason: d.wouldRefuseReason ?? d.reason,
    panel,
    ...(d.wouldRefuse === undefined ? {} : { wouldRefuse: d.wouldRefuse }),
  };
}

export function timelineMarks(events: readonly LogEvent[]): TimelineMark[] {
  const marks: TimelineMark[] = [];
  for (const event of events) {
    const mark = timelineMark(event);
    if (mark) marks.push(mark);
  }
  return marks;
}

/** The panel that lists each kind of deciding event. */
const PANELS: Partial<Record<LogEvent["kind"], TimelinePanel>> = {
  "proxy.decision": "proxy",
  "tls.verdict": "proxy",
  "kms.event": "proxy",
  "wire.verdict": "wire",
  "skills.step": "skills",
  "resolver.step": "resolver",
  "kernel.decision": "kernel",
};

export interface Tally {
  allowed: number;
  refused: number;
}

export interface TimelineCounts {
  total: Tally;
  lanes: Record<Decider, Tally>;
}

export function emptyCounts(): TimelineCounts {
  const lanes = {} as Record<Decider, Tally>;
  for (const lane of DECIDERS) lanes[lane] = { allowed: 0, refused: 0 };
  return { total: { allowed: 0, refused: 0 }, lanes };
}

/** Adds one mark to the counts (in place: counts are kept for every mark ever seen). */
export function countMark(counts: TimelineCounts, mark: TimelineMark): void {
  const key = mark.allowed ? "allowed" : "refused";
  counts.total[key]++;
  counts.lanes[mark.lane][key]++;
}

/** The newest `cap` marks (oldest first) and how many older ones are left out. */
export function capNewest(marks: readonly TimelineMark[], cap: number): { kept: readonly TimelineMark[]; notDrawn: number } {
  if (marks.length <= cap) return { kept: marks, notDrawn: 0 };
  return { kept: marks.slice(marks.length - cap), notDrawn: marks.length - cap };
}

/** How many marks are drawn at most: the picture stays cheap with thousands of events. */
export const DEFAULT_MARK_CAP = 600;

/**
 * Marks as they arrive: counts every mark, keeps only the newest `cap` to draw (memory is
 * bounded too: the array is trimmed once it holds twice the cap).
 */
export interface TimelineStore {
  add(mark: TimelineMark): void;
  /** The newest marks, oldest first, at most `cap`. */
  kept(): readonly TimelineMark[];
  /** Marks counted but no longer drawn. */
  readonly notDrawn: number;
  readonly counts: TimelineCounts;
}

export function createTimelineStore(cap = DEFAULT_MARK_CAP): TimelineStore {
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`cap must be a positive integer, got ${cap}`);
  let marks: TimelineMark[] = [];
  let total = 0;
  const counts = emptyCounts();
  return {
    add(mark) {
      marks.push(mark);
      total++;
      countMark(counts, mark);
      if (marks.length >= 2 * cap) marks = marks.slice(marks.length - cap);
    },
    kept: () => capNewest(marks, cap).kept,
    get notDrawn() {
      return total - Math.min(marks.length, cap);
    },
    counts,
  };
}

/** "12 allowed · 5 refused": the counts line, and what e2e compares with the log. */
export function countsText(tally: Tally): string {
  return `${tally.allowed} allowed · ${tally.refused} refused`;
}

/** The chart's accessible summary (its aria-label): totals, then each lane that has marks. */
export function summaryText(counts: TimelineCounts, notDrawn = 0): string {
  const { allowed, refused } = counts.total;
  if (allowed + refused === 0) return "Request timeline: no decisions yet.";
  const lanes = DECIDERS.filter((lane) => counts.lanes[lane].allowed + counts.lanes[lane].refused > 0).map(
    (lane) => `${lane}: ${counts.lanes[lane].allowed} allowed, ${counts.lanes[lane].refused} refused`,
  );
  const older = notDrawn > 0 ? ` ${notDrawn} older not drawn.` : "";
  return `Request timeline: ${countsText(counts.total)}. By component: ${lanes.join("; ")}.${older}`;
}

/**
 * What hovering or focusing a glyph tells: verdict, code, decider, what was asked, why, when.
 * A glyph standing for several marks names each code with its count and shows the newest.
 */
export function describeMarks(marks: readonly TimelineMark[], formatTime: (ms: number) => string): string {
  const newest = marks[marks.length - 1];
  if (!newest) return "";
  const verdict = newest.allowed ? "allowed" : "refused";
  const what = `${newest.label} — ${newest.reason} — ${formatTime(newest.time)}`;
  const head = newest.wouldRefuse ? `would refuse ${newest.wouldRefuse}, served in report mode` : `${verdict} ${newest.code}`;
  if (marks.length === 1) return `${head} (${newest.lane}): ${what}`;
  const codes = new Map<string, number>();
  for (const m of marks) codes.set(m.code, (codes.get(m.code) ?? 0) + 1);
  const list = [...codes].map(([code, n]) => `${code} ×${n}`).join(", ");
  return `${marks.length} ${verdict} (${newest.lane}): ${list}; newest ${newest.code}: ${what}`;
}
