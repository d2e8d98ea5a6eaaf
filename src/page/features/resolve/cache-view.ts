import type { CacheEntry, Cas } from "../../../cas";
import { displayText, type EventLog } from "../../../log";
import { messageOf } from "../../../platform";
import { formatBytes, formatTime, h, replaceChildren } from "../../chrome/dom";

/**
 * The Cache panel's header: what the CAS holds now (sha256, size, URLs, last use) from
 * `cas.list()`, refreshed whenever a `cache.event` lands, with "Verify all" (re-hash every
 * blob, evicting the corrupt ones) and "Clear". The event table below stays the log's view.
 */
export function createCacheView(cas: Cas, log: EventLog): HTMLElement {
  const status = h("span", { class: "counters", attrs: { "aria-live": "polite", "data-testid": "cache-status" } }, "reading the cache…");
  const rows = h("tbody", { attrs: { "data-testid": "cache-entries" } });
  const note = h("span", { class: "counters", attrs: { "aria-live": "polite", "data-testid": "cache-note" } });
  const verify = h("button", { class: "small", attrs: { type: "button" } }, "Verify all");
  const clear = h(
    "button",
    { class: "small", title: "Delete every cached blob and the URL index", attrs: { type: "button", "data-testid": "cache-clear" } },
    "Clear cache",
  );
  const table = h(
    "table",
    { class: "events", attrs: { "aria-label": "Cache entries" } },
    h("thead", {}, h("tr", {}, ...["sha256", "size", "URLs", "last use"].map((c) => h("th", { attrs: { scope: "col" } }, c)))),
    rows,
  );
  const element = h(
    "div",
    { class: "panel-header" },
    h("div", { attrs: { style: "display: flex; gap: 8px; align-items: center" } }, verify, clear, status, note),
    h("div", { attrs: { style: "max-height: 30vh; overflow: auto" } }, table),
  );

  const row = (e: CacheEntry) =>
    h(
      "tr",
      { attrs: { "data-sha256": e.sha256 } },
      h("td", { class: "hash", title: e.sha256 }, `${e.sha256.slice(0, 16)}…`),
      h("td", {}, formatBytes(e.size)),
      h("td", { class: "hash" }, e.urls.length > 0 ? e.urls.map(displayText).join("\n") : "(no URL)"),
      h("td", { class: "time" }, e.lastUsed === null ? "" : formatTime(e.lastUsed)),
    );

  let running = false;
  let again = false;
  async function refresh(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const entries = await cas.list();
        replaceChildren(rows, ...entries.map(row));
        const total = entries.reduce((sum, e) => sum + e.size, 0);
        status.textContent = `${entries.length} entries · ${formatBytes(total)} · ${cas.store.label}`;
      } while (again);
    } catch (error) {
      status.textContent = `the cache could not be listed: ${messageOf(error)}`;
    } finally {
      running = false;
    }
  }

  const busy = async (button: HTMLButtonElement, work: () => Promise<string>) => {
    button.disabled = true;
    try {
      note.textContent = await work();
    } catch (error) {
      note.textContent = `${button.textContent} failed: ${messageOf(error)}`;
    } finally {
      button.disabled = false;
    }
  };
  verify.addEventListener("click", () => {
    void busy(verify, async () => {
      const report = await cas.verifyAll();
      return `verified ${report.checked}: ${report.corrupt.length} corrupt${report.corrupt.length ? " (evicted)" : ""}`;
    });
  });
  clear.addEventListener("click", () => {
    void busy(clear, async () => {
      await cas.clear();
      return "cleared";
    });
  });

  // A resolve emits a burst of cache events, and listing reads the whole store: list only
  // while the panel is on screen, once per burst; a hidden panel catches up when shown.
  let stale = true;
  let visible = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const schedule = () => {
    if (!visible || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      stale = false;
      void refresh();
    }, 150);
  };
  new IntersectionObserver((seen) => {
    visible = seen.some((entry) => entry.isIntersecting);
    if (stale) schedule();
  }).observe(element);
  log.subscribe((e) => {
    if (e.kind !== "cache.event") return;
    stale = true;
    schedule();
  });
  return element;
}
