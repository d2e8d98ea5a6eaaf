import { messageOf } from "../../../platform";
import type { PolicyHolder } from "../../../policy";
import {
  type DecisionRead,
  describeLineErrors,
  describeReplaySummary,
  describeSkipped,
  LOG_FORMATS,
  type ReplayRow,
  readLogLineChunks,
  readLogLines,
  replayLog,
} from "../../../policy-tools";
import { h, replaceChildren } from "../../chrome/dom";
import { createReplayDraft } from "./replay-draft";

/**
 * The Replay panel's log replay: a `GET /v0/log` stream (Download log, `npx tab proxy`, any
 * `.net` speaking the same lines) or another proxy's decision log (smokescreen, gh-aw-firewall's
 * audit.jsonl, OpenShell's OCSF lines), dropped or pasted, re-decided against the current
 * policy; then drafted into a policy in the format it came in (replay-draft.ts).
 * Only the decisions are read: other lines are counted in the summary; a decision line that
 * cannot be read is named and nothing is re-decided. A file is read from its stream, line by
 * line, never held as one string.
 */
export function createLogReplayView(policy: PolicyHolder): HTMLElement {
  const text = h("textarea", {
    class: "log-replay-input",
    attrs: {
      placeholder: "Drop a log here (this page's, smokescreen's, gh-aw-firewall's audit.jsonl, OpenShell's OCSF log), or paste its lines",
      "aria-label": "A log to replay (JSON lines: GET /v0/log, smokescreen, gh-aw-firewall audit.jsonl, OpenShell OCSF)",
      spellcheck: "false",
      "data-testid": "log-replay-input",
    },
  });
  const file = h("input", {
    attrs: {
      type: "file",
      accept: ".jsonl,.json,.log,.txt,application/x-ndjson",
      "aria-label": "Open a log file",
      "data-testid": "log-replay-file",
    },
  });
  const run = h(
    "button",
    { class: "small", attrs: { type: "button", "data-testid": "log-replay-run" } },
    "Replay against the current policy",
  );
  const summary = h("div", { class: "log-replay-summary", attrs: { "aria-live": "polite", "data-testid": "log-replay-summary" } });
  const rows = h("tbody");
  const table = h(
    "table",
    { class: "events log-replay-rows", attrs: { "data-testid": "log-replay-rows", hidden: "" } },
    h("thead", {}, h("tr", {}, ...["line", "request", "logged", "now", "outcome"].map((c) => h("th", { attrs: { scope: "col" } }, c)))),
    rows,
  );

  const draft = createReplayDraft();

  const show = (read: DecisionRead, source: string) => {
    replaceChildren(rows);
    table.hidden = true;
    draft.clear();
    if (!read.ok) {
      summary.className = "log-replay-summary invalid";
      summary.textContent = `not replayed: ${describeLineErrors(read.errors, source)}`;
      return;
    }
    const result = replayLog(policy.current(), read.lines);
    summary.className = `log-replay-summary ${result.summary.changed ? "changed" : "unchanged"}`;
    const format = read.format ? LOG_FORMATS[read.format]?.label : undefined;
    summary.textContent = [
      format ? `read as ${format}` : "",
      describeReplaySummary(result.summary),
      describeSkipped(read.skipped, "a replay"),
    ]
      .filter((t) => t !== "")
      .join("; ");
    summary.dataset.format = read.format ?? "tab";
    draft.offer(read.lines, read.format);
    table.hidden = result.rows.length === 0;
    const shown = rowsToShow(result.rows);
    for (const row of shown) {
      const was = row.logged.wouldRefuse ? `would refuse ${row.logged.wouldRefuse}` : row.logged.code;
      const now = row.replayed.wouldRefuse ? `would refuse ${row.replayed.wouldRefuse}` : row.replayed.code;
      rows.append(
        h(
          "tr",
          { class: `replay-${row.outcome}`, attrs: { "data-outcome": row.outcome, "data-line": String(row.line), title: row.note } },
          h("td", {}, String(row.line)),
          h("td", {}, `${row.method} ${row.target}`),
          h("td", {}, was),
          h("td", {}, now),
          h("td", {}, row.outcome),
        ),
      );
    }
    if (shown.length < result.rows.length)
      rows.append(
        h(
          "tr",
          { class: "log-replay-more", attrs: { "data-testid": "log-replay-more" } },
          h(
            "td",
            { attrs: { colspan: "5" } },
            `${result.rows.length - shown.length} more unchanged rows not shown (the summary counts every row; npx tab policy replay prints them all)`,
          ),
        ),
      );
  };
  const replay = () => show(readLogLines(text.value), "log");
  const load = async (chosen: File) => {
    text.value = "";
    summary.className = "log-replay-summary";
    summary.textContent = `reading ${chosen.name}…`;
    try {
      show(await readLogLineChunks(textChunks(chosen.stream().pipeThrough(new TextDecoderStream()))), chosen.name);
    } catch (error) {
      summary.className = "log-replay-summary invalid";
      summary.textContent = `not replayed: ${chosen.name} cannot be read (${messageOf(error)})`;
    }
  };
  run.addEventListener("click", replay);
  file.addEventListener("change", () => {
    const chosen = file.files?.[0];
    if (chosen) void load(chosen);
  });
  text.addEventListener("dragover", (e) => e.preventDefault());
  text.addEventListener("drop", (e) => {
    const dropped = e.dataTransfer?.files[0];
    if (!dropped) return;
    e.preventDefault();
    void load(dropped);
  });

  return h(
    "div",
    { class: "panel-header log-replay", attrs: { "data-testid": "log-replay" } },
    h("div", { class: "log-replay-title" }, "Replay a log under the current policy"),
    text,
    h("div", { class: "log-replay-bar" }, run, file),
    summary,
    table,
    draft.element,
  );
}

/**
 * The rows the table shows: every row whose verdict changed or cannot be re-decided, then
 * unchanged ones, up to MAX_SHOWN_ROWS, in line order. A 100,000-line log as a table of 100,000
 * rows would take the page seconds to lay out, for rows that say "unchanged".
 */
const MAX_SHOWN_ROWS = 1000;

function rowsToShow(all: readonly ReplayRow[]): ReplayRow[] {
  if (all.length <= MAX_SHOWN_ROWS) return [...all];
  const notable = all.filter((r) => r.outcome !== "unchanged").slice(0, MAX_SHOWN_ROWS);
  const room = MAX_SHOWN_ROWS - notable.length;
  const unchanged: ReplayRow[] = [];
  for (const row of all) {
    if (unchanged.length >= room) break;
    if (row.outcome === "unchanged") unchanged.push(row);
  }
  return [...notable, ...unchanged].sort((a, b) => a.line - b.line);
}

/** A stream's chunks as an async iterable (not every browser iterates a ReadableStream itself). */
async function* textChunks(stream: ReadableStream<string>): AsyncGenerator<string> {
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
  } finally {
    reader.releaseLock();
  }
}
