import { compareSequences, type EventLog, type SequenceStep } from "../../../log";
import { h, replaceChildren } from "../../chrome/dom";
import { createEventPanel, type EventPanel } from "../../panels";

/** The Replay panel: the verdict table's rows and agent runs, under the comparison of a replayed link. */
export function createReplayPanel(log: EventLog): { panel: EventPanel; compare: HTMLElement } {
  const compare = h(
    "div",
    { class: "panel-header", attrs: { "data-testid": "replay-compare" } },
    "Open a share link to replay its scenarios here.",
  );
  const panel = createEventPanel(
    {
      id: "replay",
      title: "Replay",
      kinds: ["scenario"],
      columns: ["phase", "scenario", "message"],
      // The verdict table's rows and agent runs: what a link replays (a lesson's commands are the lesson's).
      row: (e) =>
        e.kind === "scenario" && e.act !== "lesson-step"
          ? {
              tone: e.phase === "failed" || e.phase === "interrupted" ? "refused" : e.phase === "cancelled" ? "warn" : "info",
              cells: [e.phase, e.id, e.message],
            }
          : null,
    },
    log,
  );
  panel.addHeader(compare);
  return { panel, compare };
}

/** Shows the sender's verdict sequence beside the replay's, step by step, and whether they are the same. */
export function showComparison(compare: HTMLElement, expected: SequenceStep[], actual: SequenceStep[]): void {
  const rows = compareSequences(expected, actual);
  const same = rows.every((r) => r.same);
  const fmt = (s: SequenceStep | null) => (s ? `${s.code} (by ${s.by})` : "—");
  replaceChildren(
    compare,
    h(
      "p",
      { attrs: { "data-testid": "replay-verdict" } },
      same ? "✓ The replay produced the sender's verdict sequence." : "✗ The replay differs from the sender's sequence.",
    ),
    h(
      "table",
      { class: "events" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "sender"), h("th", {}, "replay"))),
      h(
        "tbody",
        {},
        ...rows.map((r) =>
          h(
            "tr",
            { class: r.same ? "tone-ok" : "tone-refused", attrs: { "data-same": String(r.same) } },
            h("td", {}, String(r.index + 1)),
            h("td", {}, fmt(r.expected)),
            h("td", {}, fmt(r.actual)),
          ),
        ),
      ),
    ),
  );
}
