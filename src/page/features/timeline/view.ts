import { displayText } from "../../../log";
import { formatTime, h } from "../../chrome/dom";
import { layoutTimeline, type MarkGlyph, TIMELINE_GEOMETRY, type TimelineLayout } from "./layout";
import { countsText, describeMarks, emptyCounts, summaryText, type TimelineCounts, type TimelineMark } from "./model";
import { svg } from "./svg";

/** The chart's drawing area height in px (lanes plus time labels); the head line adds ~18 px. */
export const CHART_HEIGHT = 58;

export interface TimelineState {
  kept(): readonly TimelineMark[];
  readonly notDrawn: number;
  readonly counts: TimelineCounts;
}

export interface TimelineView {
  element: HTMLElement;
  /** Redraws from the state at the element's current width. */
  render(state: TimelineState): void;
}

/**
 * The request timeline's DOM: a head line (title, legend, counts, the hovered mark's
 * details) and an SVG with one lane per deciding component. Allowed marks are green dots,
 * refused marks red crosses: shape and colour both tell the verdict. The marks form one tab
 * stop; arrow keys move between them, Enter or a click selects the mark's panel.
 */
export function createTimelineView(options: { onSelect(mark: TimelineMark): void }): TimelineView {
  const counts = h("span", { class: "timeline-counts", attrs: { "data-testid": "timeline-counts" } });
  const detail = h("span", { class: "timeline-detail" });
  const legend = h(
    "span",
    { class: "timeline-legend", attrs: { "aria-hidden": "true" } },
    legendGlyph(true),
    "allowed",
    legendGlyph(false),
    "refused",
  );
  const chart = svg("svg", { class: "timeline-chart", height: CHART_HEIGHT, role: "group", "aria-label": "Decisions over time" });
  const element = h(
    "section",
    { class: "timeline", attrs: { "aria-label": summaryText(emptyCounts()) } },
    h("div", { class: "timeline-head" }, h("span", { class: "timeline-title" }, "Requests"), legend, counts, detail),
  );
  element.appendChild(chart);

  let glyphEls: SVGGElement[] = [];
  let focusedKey: string | null = null;

  const show = (text: string) => {
    detail.textContent = text;
  };
  const focusAt = (index: number) => {
    const target = glyphEls[Math.max(0, Math.min(glyphEls.length - 1, index))];
    if (!target) return;
    for (const el of glyphEls) el.setAttribute("tabindex", el === target ? "0" : "-1");
    target.focus();
  };
  chart.addEventListener("keydown", (e) => {
    const index = glyphEls.indexOf(document.activeElement as SVGGElement);
    if (index < 0) return;
    const next =
      e.key === "ArrowRight" || e.key === "ArrowDown"
        ? index + 1
        : e.key === "ArrowLeft" || e.key === "ArrowUp"
          ? index - 1
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? glyphEls.length - 1
              : null;
    if (next !== null) {
      e.preventDefault();
      focusAt(next);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      (document.activeElement as SVGGElement).dispatchEvent(new MouseEvent("click", { bubbles: true }));
    }
  });

  const glyphElement = (glyph: MarkGlyph, layout: TimelineLayout): SVGGElement => {
    const text = displayText(describeMarks(glyph.marks, formatTime));
    const newest = glyph.marks[glyph.marks.length - 1]!;
    const band = layout.lanes.find((b) => b.lane === glyph.lane)!;
    const half = TIMELINE_GEOMETRY.bucketPx / 2;
    const shape = glyph.allowed
      ? svg("circle", { cx: glyph.x, cy: glyph.y, r: glyph.radius })
      : svg("path", { d: cross(glyph.x, glyph.y, glyph.radius) });
    const g = svg(
      "g",
      {
        class: `mark ${glyph.wouldRefuse ? "mark-would-refuse" : glyph.allowed ? "mark-allowed" : "mark-refused"}`,
        role: "button",
        tabindex: "-1",
        "aria-label": text,
        "data-lane": glyph.lane,
        "data-allowed": String(glyph.allowed),
        ...(glyph.wouldRefuse ? { "data-would-refuse": newest.wouldRefuse ?? "" } : {}),
        "data-code": newest.code,
        "data-count": String(glyph.marks.length),
      },
      svg("title", {}, text),
      svg("rect", { class: "hit", x: glyph.x - half / 2 - 1, y: band.top, width: half + 2, height: band.height }),
      shape,
    );
    g.addEventListener("click", () => options.onSelect(newest));
    g.addEventListener("mouseenter", () => show(text));
    g.addEventListener("mouseleave", () => show(""));
    g.addEventListener("focus", () => {
      focusedKey = glyph.key;
      for (const el of glyphEls) el.setAttribute("tabindex", el === g ? "0" : "-1");
      show(text);
    });
    g.addEventListener("blur", () => show(""));
    return g;
  };

  const render = (state: TimelineState) => {
    counts.textContent = countsText(state.counts.total) + (state.notDrawn > 0 ? ` (${state.notDrawn} older not drawn)` : "");
    element.setAttribute("aria-label", summaryText(state.counts, state.notDrawn));
    const width = chart.clientWidth;
    if (width === 0) return; // hidden (embed mode): nothing to draw
    const hadFocus = chart.contains(document.activeElement);
    const layout = layoutTimeline(state.kept(), { width, height: CHART_HEIGHT });
    chart.setAttribute("viewBox", `0 0 ${width} ${CHART_HEIGHT}`);

    const lanes = layout.lanes.map((band, i) =>
      svg(
        "g",
        { class: "lane", "data-lane": band.lane },
        svg("rect", { class: i % 2 ? "band odd" : "band", x: 0, y: band.top, width, height: band.height }),
        svg("text", { x: layout.plotLeft - 6, y: band.middle, "text-anchor": "end", "dominant-baseline": "central" }, band.lane),
      ),
    );
    glyphEls = layout.glyphs.map((g) => glyphElement(g, layout));
    const axis = layout.domain
      ? svg(
          "g",
          { class: "axis", "aria-hidden": "true" },
          svg("line", { x1: layout.plotLeft, x2: layout.plotRight, y1: layout.axisY + 0.5, y2: layout.axisY + 0.5 }),
          svg("text", { x: layout.plotLeft, y: CHART_HEIGHT - 2 }, formatTime(layout.domain.from).slice(0, 8)),
          svg("text", { x: layout.plotRight, y: CHART_HEIGHT - 2, "text-anchor": "end" }, formatTime(layout.domain.to).slice(0, 8)),
        )
      : svg(
          "text",
          { class: "empty", x: width / 2, y: CHART_HEIGHT / 2, "text-anchor": "middle", "dominant-baseline": "central" },
          "No decisions yet: run a scenario, or a request in the terminal.",
        );
    chart.replaceChildren(...lanes, axis, ...glyphEls);

    // One tab stop: the mark focused before this redraw if it still exists, else the newest.
    const keep = glyphEls.findIndex((_, i) => layout.glyphs[i]?.key === focusedKey);
    const current = keep >= 0 ? keep : glyphEls.length - 1;
    glyphEls.forEach((el, i) => {
      el.setAttribute("tabindex", i === current ? "0" : "-1");
    });
    if (hadFocus) glyphEls[current]?.focus();
  };

  return { element, render };
}

function cross(x: number, y: number, r: number): string {
  return `M${x - r} ${y - r}L${x + r} ${y + r}M${x - r} ${y + r}L${x + r} ${y - r}`;
}

function legendGlyph(allowed: boolean): SVGSVGElement {
  return svg(
    "svg",
    { class: `legend-glyph ${allowed ? "mark-allowed" : "mark-refused"}`, width: 12, height: 12, viewBox: "0 0 12 12" },
    allowed ? svg("circle", { cx: 6, cy: 6, r: 3.5 }) : svg("path", { d: cross(6, 6, 3.5) }),
  );
}
