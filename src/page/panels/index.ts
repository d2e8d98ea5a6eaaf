import type { EventLog } from "../../log";
import { createEventPanel, type EventPanel, type EventPanelSpec } from "./event-panel";
import type { BuiltInPanelId } from "./ids";
import { cacheRow, kernelRow, policyRow, proxyRow, resolverRow, wireRow } from "./rows";

/** The headers the playground gives some of the built-in panels (the policy editor, the wire counters). */
export type PanelHeaders = Partial<Record<BuiltInPanelId, HTMLElement>>;

/** The six panels, each a view of the one log, in their tab order. */
export const PANELS: readonly (Omit<EventPanelSpec, "header"> & { id: BuiltInPanelId })[] = [
  {
    id: "wire",
    title: "Wire",
    kinds: ["wire.frame", "wire.connection", "wire.dns", "wire.malformed", "wire.verdict"],
    columns: ["dir", "what", "summary", "size"],
    row: wireRow,
  },
  {
    id: "proxy",
    title: "Proxy",
    kinds: ["proxy.decision", "tls.session", "tls.verdict", "kms.event"],
    columns: ["verdict", "request", "by", "status", "size", "time"],
    row: proxyRow,
  },
  {
    id: "resolver",
    title: "Resolver",
    kinds: ["resolver.step", "resolver.run", "resolver.lint", "resolver.allowlist", "skills.step"],
    columns: ["verdict", "field", "ref", "cache", "pin", "size"],
    row: resolverRow,
  },
  {
    id: "cache",
    title: "Cache",
    kinds: ["cache.event"],
    columns: ["op", "sha256", "size", "url"],
    row: cacheRow,
  },
  {
    id: "policy",
    title: "Policy",
    kinds: ["policy.change", "policy.invalid"],
    columns: ["change", "hash", "source"],
    row: policyRow,
  },
  {
    id: "kernel",
    title: "Kernel",
    kinds: ["kernel.decision", "kernel.abi", "kernel.ruleset", "kernel.result", "boot.progress"],
    columns: ["what", "detail", "note"],
    row: kernelRow,
    // The kernel's decisions (and what a demo says the kernel answered), not the boot's or the rulesets' rows.
    counts: (e) => e.kind === "kernel.decision" || e.kind === "kernel.result",
  },
];

/** The six panels, with the headers the playground gives some of them (the policy editor, the wire counters). */
export function createPanels(log: EventLog, headers: PanelHeaders = {}): EventPanel[] {
  return PANELS.map((spec) => {
    const header = headers[spec.id];
    return createEventPanel(header ? { ...spec, header } : spec, log);
  });
}

export { createEventPanel, type EventPanel, type EventPanelSpec, type Row, type Tone } from "./event-panel";
export type { BuiltInPanelId, PanelId } from "./ids";
export { createPagePanels, type PagePanels } from "./registry";
