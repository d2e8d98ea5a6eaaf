import { describe, expect, it } from "vitest";
import { glyphRadius, laneBands, lanesPresent, layoutTimeline, TIMELINE_GEOMETRY, timeDomain, timeScale } from "./layout";
import type { TimelineMark } from "./model";

// The request timeline's layout maths. x is time, y is the deciding component,
// and marks are bucketed per lane, verdict and pixel column so the drawing stays cheap.

const mark = (time: number, lane: TimelineMark["lane"] = "proxy", allowed = true): TimelineMark => ({
  seq: time,
  time,
  lane,
  allowed,
  code: allowed ? "served" : "ip-literal",
  label: "x",
  reason: "r",
  panel: "proxy",
});

describe("the time scale maps the domain onto the plot", () => {
  const x = timeScale({ from: 1_000, to: 2_000 }, 50, 250);
  it.each([
    ["the oldest time is at the left edge", 1_000, 50],
    ["the newest time is at the right edge", 2_000, 250],
    ["the middle of the domain is the middle of the plot", 1_500, 150],
    ["a time before the domain is clamped to the left edge", 0, 50],
    ["a time after the domain is clamped to the right edge", 9_000, 250],
  ])("%s", (_name, time, expected) => {
    expect(x(time)).toBe(expected);
  });

  it("an empty domain puts everything at the right edge", () => {
    expect(timeScale({ from: 5, to: 5 }, 0, 100)(5)).toBe(100);
  });
});

describe("the time domain ends at the newest mark", () => {
  it.each([
    ["no marks: no domain", [], null],
    ["one mark: the minimum span, ending at it", [mark(50_000)], { from: 40_000, to: 50_000 }],
    ["marks closer than the minimum span: the minimum span", [mark(45_000), mark(50_000)], { from: 40_000, to: 50_000 }],
    ["marks farther apart: from the oldest to the newest", [mark(50_000), mark(10_000), mark(30_000)], { from: 10_000, to: 50_000 }],
  ])("%s", (_name, marks, expected) => {
    expect(timeDomain(marks, 10_000)).toEqual(expected);
  });
});

describe("lanes: one per deciding component that has marks", () => {
  it("lanes follow the deciders' order, not arrival order", () => {
    expect(lanesPresent([mark(1, "kernel"), mark(2, "proxy"), mark(3, "kernel"), mark(4, "wire")])).toEqual(["proxy", "kernel", "wire"]);
  });

  it.each([
    ["few lanes get the maximum height", 2, 14, [7, 21]],
    ["many lanes share the height equally and stay within it", 8, 46 / 8, [46 / 16, 46 / 16 + 7 * (46 / 8)]],
  ])("%s", (_name, n, height, [firstMiddle, lastMiddle]) => {
    const lanes = (["proxy", "kernel", "resolver", "cas", "skills", "kms", "design", "wire"] as const).slice(0, n);
    const bands = laneBands(lanes, 0, 46, 14);
    expect(bands.map((b) => b.height)).toEqual(Array(n).fill(height));
    expect(bands[0]?.middle).toBeCloseTo(firstMiddle!);
    expect(bands[n - 1]?.middle).toBeCloseTo(lastMiddle!);
    expect(bands[n - 1]!.top + bands[n - 1]!.height).toBeLessThanOrEqual(46);
  });

  it("no lanes, no bands", () => {
    expect(laneBands([], 0, 46, 14)).toEqual([]);
  });
});

describe("glyphs: bucketed per lane, verdict and pixel column", () => {
  const size = { width: 56 + 200 + 10, height: 58 }; // 200 px of plot: 20 buckets of 10 px

  it("an empty log lays out no lanes and no glyphs", () => {
    const layout = layoutTimeline([], size);
    expect(layout).toMatchObject({ domain: null, lanes: [], glyphs: [] });
  });

  it("marks of one lane and verdict in one bucket share a glyph that counts them", () => {
    const layout = layoutTimeline([mark(50_000), mark(50_001), mark(50_002)], size);
    expect(layout.glyphs).toHaveLength(1);
    expect(layout.glyphs[0]?.marks.map((m) => m.time)).toEqual([50_000, 50_001, 50_002]);
  });

  it("allowed and refused marks of one bucket are two glyphs, the allowed one left of the refused one", () => {
    const layout = layoutTimeline([mark(50_000, "proxy", true), mark(50_000, "proxy", false)], size);
    const [left, right] = layout.glyphs;
    expect([left?.allowed, right?.allowed]).toEqual([true, false]);
    expect(left!.x).toBeLessThan(right!.x);
    expect(left!.y).toBe(right!.y);
  });

  it("the newest mark is drawn in the rightmost bucket, within the plot", () => {
    const layout = layoutTimeline([mark(0), mark(100_000, "kernel", false)], size);
    const newest = layout.glyphs.find((g) => g.lane === "kernel")!;
    expect(newest.x).toBeGreaterThan(layout.plotRight - TIMELINE_GEOMETRY.bucketPx);
    expect(newest.x).toBeLessThanOrEqual(layout.plotRight);
    const oldest = layout.glyphs.find((g) => g.lane === "proxy")!;
    expect(oldest.x).toBeLessThan(layout.plotLeft + TIMELINE_GEOMETRY.bucketPx);
  });

  it("each glyph sits in the middle of its lane", () => {
    const layout = layoutTimeline([mark(1, "proxy"), mark(2, "kernel", false)], size);
    for (const glyph of layout.glyphs) expect(glyph.y).toBe(layout.lanes.find((b) => b.lane === glyph.lane)?.middle);
  });

  it("thousands of marks draw at most one glyph per lane, verdict and bucket", () => {
    const lanes = ["proxy", "kernel", "wire"] as const;
    const marks = Array.from({ length: 5_000 }, (_, i) => mark(i * 37, lanes[i % 3], i % 2 === 0));
    const layout = layoutTimeline(marks, size);
    expect(layout.glyphs.length).toBeLessThanOrEqual(3 * 2 * 20);
    expect(layout.glyphs.reduce((n, g) => n + g.marks.length, 0)).toBe(5_000);
  });

  it("a plot narrower than one bucket draws no glyphs (the chart is hidden or tiny)", () => {
    expect(layoutTimeline([mark(1)], { width: 0, height: 58 }).glyphs).toEqual([]);
  });

  it("glyphs are ordered left to right for the keyboard", () => {
    const layout = layoutTimeline([mark(50_000), mark(10_000, "kernel"), mark(30_000, "wire")], size);
    const xs = layout.glyphs.map((g) => g.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
  });
});

describe("a glyph grows slowly with the marks it stands for, within its lane", () => {
  it.each([
    ["one mark is 3 px", 1, 14, 3],
    ["four marks are 5 px", 4, 14, 5],
    ["a thousand marks stop at the lane's half height", 1_000, 14, 6.5],
    ["a thin lane still shows a glyph", 1, 2, 1.5],
  ])("%s", (_name, count, laneHeight, expected) => {
    expect(glyphRadius(count, laneHeight)).toBe(expected);
  });
});

describe("would-refuse marks (report mode) are glyphs of their own", () => {
  it("an allowed, a would-refuse and a refused mark of one bucket are three glyphs, the would-refuse one between", () => {
    const size = { width: 56 + 200 + 10, height: 58 };
    const would = { ...mark(50_000, "proxy", true), wouldRefuse: "host-not-allowed" };
    const layout = layoutTimeline([mark(50_000, "proxy", true), would, mark(50_000, "proxy", false)], size);
    expect(layout.glyphs.map((g) => [g.allowed, g.wouldRefuse])).toEqual([
      [true, false],
      [true, true],
      [false, false],
    ]);
  });
});
