import type { PageContext } from "../context";
import { createTimelineStore, type TimelineMark, timelineMark } from "./model";
import { createTimelineView } from "./view";
import "./timeline.css";

/**
 * The request timeline: requests and verdicts over time, above the panels,
 * because people read a picture faster than a log. One mark per decision (the events
 * `verdictSequence` selects), one lane per deciding component; it follows the log live and
 * draws at most the newest few hundred marks, bucketed per pixel column.
 */
export function mount(ctx: PageContext): void {
  const store = createTimelineStore();
  for (const event of ctx.log.events()) {
    const mark = timelineMark(event);
    if (mark) store.add(mark);
  }

  // The Resolver panel lists skills steps too, for a page without the Skills panel.
  const panelFor = (mark: TimelineMark) => (mark.panel === "skills" && !ctx.panels.has("skills") ? "resolver" : mark.panel);
  const view = createTimelineView({ onSelect: (mark) => ctx.panels.select(panelFor(mark)) });
  ctx.place("above-panels", view.element);

  // Redraw at most once a frame however fast events arrive.
  let pending = false;
  const schedule = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      view.render(store);
    });
  };
  ctx.log.subscribe((event) => {
    const mark = timelineMark(event);
    if (!mark) return;
    store.add(mark);
    schedule();
  });
  new ResizeObserver(schedule).observe(view.element);
  schedule();

  ctx.expose("timeline", {
    counts: () => store.counts,
    marks: () => store.kept(),
    notDrawn: () => store.notDrawn,
  });
}
