import { DECIDERS, type Decider } from "../../../log";
import type { TimelineMark } from "./model";

/**
 * The timeline's geometry, pure so it is unit-tested: a time scale for x, one
 * band per deciding component for y, and pixel buckets so that however many marks arrive,
 * at most one glyph per lane, verdict and bucket is drawn.
 */

export interface TimelineGeometry {
  /** Room for the lane names on the left. */
  labelWidth: number;
  rightPad: number;
  /** Room for the time labels under the lanes. */
  axisHeight: number;
  maxLaneHeight: number;
  /** The x domain is at least this long, so a first mark does not fill the chart. */
  minSpanMs: number;
  /** Width of one bucket: marks closer than this in one lane share a glyph. */
  bucketPx: number;
}

export const TIMELINE_GEOMETRY: TimelineGeometry = {
  labelWidth: 56,
  rightPad: 10,
  axisHeight: 12,
  maxLaneHeight: 14,
  minSpanMs: 10_000,
  bucketPx: 10,
};

export interface TimeDomain {
  from: number;
  to: number;
}

/** From the oldest mark to the newest, at least `minSpanMs` long, ending at the newest. */
export function timeDomain(marks: readonly TimelineMark[], minSpanMs: number): TimeDomain | null {
  if (marks.length === 0) return null;
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const m of marks) {
    if (m.time < from) from = m.time;
    if (m.time > to) to = m.time;
  }
  return { from: Math.min(from, to - minSpanMs), to };
}

/** A linear map from [from, to] onto [left, right], clamped to the range. */
export function timeScale(domain: TimeDomain, left: number, right: number): (time: number) => number {
  const span = domain.to - domain.from;
  return (time) => {
    if (span <= 0) return right;
    const x = left + ((time - domain.from) / span) * (right - left);
    return Math.min(right, Math.max(left, x));
  };
}

/** The lanes that have marks, in the order of the verdict vocabulary's deciders. */
export function lanesPresent(marks: readonly TimelineMark[]): Decider[] {
  const seen = new Set<Decider>();
  for (const m of marks) seen.add(m.lane);
  return DECIDERS.filter((lane) => seen.has(lane));
}

export interface LaneBand {
  lane: Decider;
  top: number;
  height: number;
  /** Where the lane's glyphs sit. */
  middle: number;
}

/** Equal bands from `top`, each at most `maxHeight`, all within `height`. */
export function laneBands(lanes: readonly Decider[], top: number, height: number, maxHeight: number): LaneBand[] {
  if (lanes.length === 0) return [];
  const band = Math.min(maxHeight, height / lanes.length);
  return lanes.map((lane, i) => ({ lane, top: top + i * band, height: band, middle: top + i * band + band / 2 }));
}

/** One drawn glyph: every kept mark of one lane and verdict that fell in one bucket. */
export interface MarkGlyph {
  key: string;
  lane: Decider;
  allowed: boolean;
  /** Marks served under report mode that the allowlist would refuse: drawn apart, between the two. */
  wouldRefuse: boolean;
  x: number;
  y: number;
  /** Half the glyph's size: grows slowly with the number of marks it stands for. */
  radius: number;
  /** Oldest first; the last is the newest. */
  marks: TimelineMark[];
}

/** Half-size of a glyph for `count` marks: 3 px for one, +1 px per doubling, within the lane. */
export function glyphRadius(count: number, laneHeight: number): number {
  const wanted = 3 + Math.floor(Math.log2(Math.max(1, count)));
  return Math.max(1.5, Math.min(wanted, laneHeight / 2 - 0.5));
}

export interface TimelineLayout {
  domain: TimeDomain | null;
  plotLeft: number;
  plotRight: number;
  /** The y of the time axis line. */
  axisY: number;
  lanes: LaneBand[];
  glyphs: MarkGlyph[];
}

/**
 * Lays out kept marks in a `width` × `height` box. Allowed and refused glyphs of one bucket
 * sit side by side (allowed left, refused right), so neither hides the other.
 */
export function layoutTimeline(
  marks: readonly TimelineMark[],
  size: { width: number; height: number },
  geometry: TimelineGeometry = TIMELINE_GEOMETRY,
): TimelineLayout {
  const plotLeft = geometry.labelWidth;
  const plotRight = Math.max(plotLeft, size.width - geometry.rightPad);
  const axisY = Math.max(0, size.height - geometry.axisHeight);
  const domain = timeDomain(marks, geometry.minSpanMs);
  const lanes = laneBands(lanesPresent(marks), 0, axisY, geometry.maxLaneHeight);
  const layout: TimelineLayout = { domain, plotLeft, plotRight, axisY, lanes, glyphs: [] };
  if (!domain || plotRight - plotLeft < geometry.bucketPx) return layout;

  const x = timeScale(domain, plotLeft, plotRight);
  const bandOf = new Map(lanes.map((b) => [b.lane, b]));
  const lastBucket = Math.max(0, Math.floor((plotRight - plotLeft) / geometry.bucketPx) - 1);
  const byKey = new Map<string, MarkGlyph>();
  const offset = geometry.bucketPx / 4;
  for (const mark of marks) {
    const band = bandOf.get(mark.lane);
    if (!band) continue;
    const bucket = Math.min(lastBucket, Math.floor((x(mark.time) - plotLeft) / geometry.bucketPx));
    const would = mark.wouldRefuse !== undefined;
    const key = `${mark.lane}|${would ? "would-refuse" : mark.allowed ? "allowed" : "refused"}|${bucket}`;
    let glyph = byKey.get(key);
    if (!glyph) {
      const centre = plotLeft + (bucket + 0.5) * geometry.bucketPx;
      glyph = {
        key,
        lane: mark.lane,
        allowed: mark.allowed,
        wouldRefuse: would,
        x: would ? centre : mark.allowed ? centre - offset : centre + offset,
        y: band.middle,
        radius: 0,
        marks: [],
      };
      byKey.set(key, glyph);
    }
    glyph.marks.push(mark);
  }
  for (const glyph of byKey.values()) {
    glyph.radius = glyphRadius(glyph.marks.length, bandOf.get(glyph.lane)?.height ?? geometry.maxLaneHeight);
    layout.glyphs.push(glyph);
  }
  // Keyboard order: left to right, then top to bottom.
  layout.glyphs.sort((a, b) => a.x - b.x || a.y - b.y);
  return layout;
}
