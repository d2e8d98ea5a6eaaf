import { displayText, type EventKind, type EventLog, type LogEvent } from "../../log";
import { formatTime, h, replaceChildren } from "../chrome/dom";
import type { PanelId } from "./ids";

export type Tone = "ok" | "refused" | "info" | "warn";

/** One rendered line of a panel: short cells for the table, optional details on click. */
export interface Row {
  tone: Tone;
  cells: string[];
  details?: [label: string, value: string][];
}

export interface EventPanelSpec {
  id: PanelId;
  title: string;
  kinds: readonly EventKind[];
  columns: readonly string[];
  row(event: LogEvent): Row | null;
  /** Extra content above the list (counters, an editor, buttons). */
  header?: HTMLElement;
  /** Called for each event of the panel's kinds, e.g. to update counters in the header. */
  onEvent?(event: LogEvent): void;
  /** Which of its rows the tab's badge counts (default: all): the Kernel tab counts decisions, not boot rows. */
  counts?(event: LogEvent): boolean;
}

export interface EventPanel {
  readonly id: PanelId;
  readonly title: string;
  readonly element: HTMLElement;
  /** Events shown since the tab was last looked at (for the tab's badge). */
  unseen: number;
  onUnseenChange?: () => void;
  /** Adds content above the panel's event list (a feature's own controls). */
  addHeader(element: HTMLElement): void;
}

const MAX_ROWS = 1500;

/**
 * A run of 24 characters or more with no space (a URL, a hash): the only text a
 * cell may break mid-word (style.css, `td.long-token`); every other word stays whole.
 */
const LONG_TOKEN = /\S{24,}/;

/**
 * A panel renders the events of some kinds from the one log, and nothing else (one
 * log, many views). Rendering is batched per animation frame so a burst of frames on the
 * wire costs one layout, and the DOM holds at most MAX_ROWS rows.
 */
export function createEventPanel(spec: EventPanelSpec, log: EventLog): EventPanel {
  const kinds = new Set<string>(spec.kinds);
  const body = h("tbody");
  const filter = h("input", {
    class: "filter",
    attrs: { type: "search", placeholder: "filter", "aria-label": `Filter ${spec.title} events`, spellcheck: "false" },
  });
  const status = h("span", { class: "panel-status", attrs: { "aria-live": "polite" } });
  const headerSlot = h("div", { class: "panel-extra" });
  const clear = h("button", { class: "small", attrs: { type: "button" } }, "Clear");
  const table = h(
    "table",
    { class: "events" },
    h(
      "thead",
      {},
      h("tr", {}, h("th", { attrs: { scope: "col" } }, "time"), ...spec.columns.map((c) => h("th", { attrs: { scope: "col" } }, c))),
    ),
    body,
  );
  const element = h(
    "section",
    { class: "panel", id: `panel-${spec.id}`, role: "tabpanel", attrs: { "aria-label": spec.title, "data-panel": spec.id } },
    h("div", { class: "panel-toolbar" }, filter, clear, status),
    spec.header ?? null,
    headerSlot,
    h("div", { class: "panel-scroll", attrs: { tabindex: "0", "aria-label": `${spec.title} events` } }, table),
  );

  const panel: EventPanel = { id: spec.id, title: spec.title, element, unseen: 0, addHeader: (el) => headerSlot.appendChild(el) };
  let pending: LogEvent[] = [];
  let scheduled = false;
  let hiddenOlder = 0;
  let shown = 0;

  const matches = (tr: HTMLElement) => {
    const q = filter.value.trim().toLowerCase();
    return q === "" || (tr.textContent ?? "").toLowerCase().includes(q);
  };

  const updateStatus = () => {
    const parts = [`${shown} shown`];
    if (hiddenOlder > 0) parts.push(`${hiddenOlder} older rows removed from view`);
    if (log.dropped > 0) parts.push(`${log.dropped} older events dropped by the log`);
    status.textContent = parts.join(" · ");
  };

  const renderRow = (event: LogEvent, row: Row): HTMLTableRowElement => {
    const tr = h(
      "tr",
      { class: `tone-${row.tone}`, attrs: { tabindex: "0", "data-kind": event.kind, "data-seq": String(event.seq) } },
      h("td", { class: "time" }, formatTime(event.time)),
      ...row.cells.map((c) => {
        const text = displayText(c);
        return h("td", LONG_TOKEN.test(text) ? { class: "long-token" } : {}, text);
      }),
    );
    if (row.details && row.details.length > 0) {
      const details = row.details;
      const toggle = () => {
        const next = tr.nextElementSibling;
        if (next?.classList.contains("details")) {
          next.remove();
          tr.setAttribute("aria-expanded", "false");
          return;
        }
        const dl = h("dl", {}, ...details.flatMap(([k, v]) => [h("dt", {}, displayText(k)), h("dd", {}, displayText(v))]));
        tr.after(h("tr", { class: "details" }, h("td", { attrs: { colspan: String(spec.columns.length + 1) } }, dl)));
        tr.setAttribute("aria-expanded", "true");
      };
      tr.setAttribute("aria-expanded", "false");
      tr.addEventListener("click", toggle);
      tr.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          toggle();
        }
      });
    }
    if (!matches(tr)) tr.hidden = true;
    return tr;
  };

  const flush = () => {
    scheduled = false;
    const batch = pending;
    pending = [];
    const fragment = document.createDocumentFragment();
    let added = 0;
    let counted = 0;
    for (const event of batch) {
      spec.onEvent?.(event);
      const row = spec.row(event);
      if (!row) continue;
      fragment.appendChild(renderRow(event, row));
      added++;
      if (spec.counts?.(event) ?? true) counted++;
    }
    body.appendChild(fragment);
    shown += added;
    while (body.rows.length > MAX_ROWS) {
      body.rows[0]?.remove();
      hiddenOlder++;
      shown--;
    }
    if (counted > 0) {
      panel.unseen += counted;
      panel.onUnseenChange?.();
    }
    updateStatus();
  };

  const accept = (event: LogEvent) => {
    if (!kinds.has(event.kind)) return;
    pending.push(event);
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(flush);
    }
  };

  for (const event of log.events()) accept(event);
  log.subscribe(accept);

  filter.addEventListener("input", () => {
    for (const tr of Array.from(body.rows)) if (!tr.classList.contains("details")) tr.hidden = !matches(tr);
  });
  clear.addEventListener("click", () => {
    replaceChildren(body);
    shown = 0;
    hiddenOlder = 0;
    updateStatus();
  });
  updateStatus();
  return panel;
}

/** Tone for a verdict-carrying event. */
export const toneOf = (allowed: boolean): Tone => (allowed ? "ok" : "refused");
