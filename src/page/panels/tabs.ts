import { h } from "../chrome/dom";
import type { EventPanel } from "./event-panel";
import { type PanelId, panelRank } from "./ids";

/**
 * The panels as an ARIA tab list: ←/→/Home/End move between tabs, Enter/Space or focus
 * selects, Alt+1…9 jumps to a panel from anywhere. A badge counts events not yet seen.
 */
export interface PanelTabs {
  element: HTMLElement;
  select(id: PanelId): void;
  /** Adds a panel (and its tab) in its place of PANEL_ORDER (./ids.ts), whenever it is added. */
  add(panel: EventPanel): void;
}

export function createPanelTabs(panels: EventPanel[]): PanelTabs {
  const makeTab = (panel: EventPanel) => {
    const badge = h("span", { class: "badge", attrs: { "aria-label": "new events" } });
    const tab = h(
      "button",
      {
        class: "tab",
        role: "tab",
        id: `tab-${panel.id}`,
        attrs: { type: "button", "aria-controls": `panel-${panel.id}`, "aria-selected": "false", tabindex: "-1", "data-tab": panel.id },
      },
      panel.title,
      badge,
    );
    panel.element.setAttribute("aria-labelledby", tab.id);
    panel.onUnseenChange = () => {
      badge.textContent = panel.unseen > 0 && tab.getAttribute("aria-selected") !== "true" ? String(Math.min(panel.unseen, 999)) : "";
    };
    return { panel, tab, badge };
  };
  const tabs = panels.map(makeTab);

  const select = (id: PanelId, focus = false) => {
    for (const t of tabs) {
      const on = t.panel.id === id;
      t.tab.setAttribute("aria-selected", String(on));
      t.tab.tabIndex = on ? 0 : -1;
      t.panel.element.hidden = !on;
      if (on) {
        t.panel.unseen = 0;
        t.badge.textContent = "";
        if (focus) t.tab.focus();
      }
    }
  };

  const list = h("div", { class: "tabs", role: "tablist", attrs: { "aria-label": "Panels" } }, ...tabs.map((t) => t.tab));
  list.addEventListener("keydown", (e) => {
    const index = tabs.findIndex((t) => t.tab === document.activeElement);
    if (index < 0) return;
    const next =
      e.key === "ArrowRight"
        ? (index + 1) % tabs.length
        : e.key === "ArrowLeft"
          ? (index - 1 + tabs.length) % tabs.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? tabs.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    select(tabs[next]!.panel.id, true);
  });
  for (const t of tabs) t.tab.addEventListener("click", () => select(t.panel.id, true));
  const add = (panel: EventPanel) => {
    const t = makeTab(panel);
    const at = tabs.findIndex((other) => panelRank(other.panel.id) > panelRank(panel.id));
    const before = at < 0 ? undefined : tabs[at];
    if (before) {
      tabs.splice(at, 0, t);
      list.insertBefore(t.tab, before.tab);
      element.insertBefore(panel.element, before.panel.element);
    } else {
      tabs.push(t);
      list.appendChild(t.tab);
      element.appendChild(panel.element);
    }
    panel.element.hidden = true;
    t.tab.addEventListener("click", () => select(panel.id, true));
  };
  document.addEventListener("keydown", (e) => {
    if (!e.altKey || e.ctrlKey || e.metaKey) return;
    const n = Number.parseInt(e.key, 10);
    if (n >= 1 && n <= tabs.length) {
      e.preventDefault();
      select(tabs[n - 1]!.panel.id, true);
    }
  });

  const element = h("div", { class: "panels" }, list, ...tabs.map((t) => t.panel.element));
  if (tabs[0]) select(tabs[0].panel.id);
  return { element, select: (id) => select(id), add };
}
