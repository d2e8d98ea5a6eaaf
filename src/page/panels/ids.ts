/**
 * Every panel the page may show, in tab order: the six built-in ones (./index.ts, `PANELS`),
 * then the ones features add. A panel's tab takes its place in this order whatever order the
 * features mount in, and a feature names a panel by one of these ids, checked by the compiler.
 */
export const PANEL_ORDER = ["wire", "proxy", "resolver", "cache", "policy", "kernel", "skills", "runner", "replay", "lessons"] as const;

export type PanelId = (typeof PANEL_ORDER)[number];

/** The panels the page builds itself, before any feature mounts. */
export type BuiltInPanelId = "wire" | "proxy" | "resolver" | "cache" | "policy" | "kernel";

/** Where a panel's tab goes among the others: its index in PANEL_ORDER. */
export const panelRank = (id: PanelId): number => PANEL_ORDER.indexOf(id);
