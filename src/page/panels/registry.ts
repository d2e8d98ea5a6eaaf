import type { EventPanel } from "./event-panel";
import type { PanelId } from "./ids";
import { createPanelTabs, type PanelTabs } from "./tabs";

/**
 * The page's panels by typed id (./ids.ts): the built-in six and the ones features add. What a
 * feature asks of a panel that is not there yet (a header, to be shown) waits for it, so no
 * feature depends on another having mounted first: the Replay panel's log replay (policy) and
 * the panel itself (share) may come in either order.
 */
export interface PagePanels extends PanelRegistry<EventPanel> {
  /** The tab list and the panels, for the page's panels box. */
  readonly element: HTMLElement;
}

/** The panels by id (`P`: a panel, or a stand-in in tests). */
export interface PanelRegistry<P> {
  /** Adds a feature's panel; its tab takes its place in PANEL_ORDER. */
  add(panel: P): void;
  /** Adds a feature's own element above a panel's events (once the panel exists). */
  addHeader(id: PanelId, element: HTMLElement): void;
  /** Shows a panel (once it exists, unless another was shown since). */
  select(id: PanelId): void;
  has(id: PanelId): boolean;
}

export function createPagePanels(builtIn: readonly EventPanel[]): PagePanels {
  const tabs = createPanelTabs([...builtIn]);
  return { element: tabs.element, ...panelRegistry(builtIn, tabs) };
}

/** The panels by id over their tabs (no DOM of its own: tested with stand-ins in Node). */
export function panelRegistry<P extends Pick<EventPanel, "id" | "addHeader">>(
  builtIn: readonly P[],
  tabs: Pick<PanelTabs, "select"> & { add(panel: P): void },
): PanelRegistry<P> {
  const panels = new Map<PanelId, P>(builtIn.map((p) => [p.id, p]));
  const headers = new Map<PanelId, HTMLElement[]>();
  /** A panel asked to be shown before it was added. */
  let wanted: PanelId | null = null;
  const select = (id: PanelId) => {
    if (panels.has(id)) {
      wanted = null;
      tabs.select(id);
    } else wanted = id;
  };
  return {
    add(panel) {
      if (panels.has(panel.id)) throw new Error(`the ${panel.id} panel was added twice`);
      panels.set(panel.id, panel);
      tabs.add(panel);
      for (const header of headers.get(panel.id) ?? []) panel.addHeader(header);
      headers.delete(panel.id);
      if (wanted === panel.id) select(panel.id);
    },
    addHeader(id, element) {
      const panel = panels.get(id);
      if (panel) panel.addHeader(element);
      else headers.set(id, [...(headers.get(id) ?? []), element]);
    },
    select,
    has: (id) => panels.has(id),
  };
}
