import type { EventLog } from "../../log";
import { createEventPanel, type EventPanel } from "./event-panel";
import { cacheRow, kernelRow, policyRow, proxyRow, resolverRow, wireRow } from "./rows";

export interface PanelHeaders {
  wire?: HTMLElement;
  proxy?: HTMLElement;
  resolver?: HTMLElement;
  cache?: HTMLElement;
  policy?: HTMLElement;
  kernel?: HTMLElement;
}

/** The six panels of the design brief, each a view of the one log. */
export function createPanels(log: EventLog, headers: PanelHeaders = {}): EventPanel[] {
  return [
    createEventPanel(
      {
        id: "wire",
        title: "Wire",
        kinds: ["wire.frame", "wire.connection", "wire.dns", "wire.malformed", "wire.verdict"],
        columns: ["dir", "what", "summary", "size"],
        row: wireRow,
        ...(headers.wire ? { header: headers.wire } : {}),
      },
      log,
    ),
    createEventPanel(
      {
        id: "proxy",
        title: "Proxy",
        kinds: ["proxy.decision", "tls.session", "tls.verdict", "kms.event"],
        columns: ["verdict", "request", "by", "status", "size", "time"],
        row: proxyRow,
        ...(headers.proxy ? { header: headers.proxy } : {}),
      },
      log,
    ),
    createEventPanel(
      {
        id: "resolver",
        title: "Resolver",
        kinds: ["resolver.step", "resolver.run", "resolver.lint", "skills.step"],
        columns: ["verdict", "field", "ref", "cache", "pin", "size"],
        row: resolverRow,
        ...(headers.resolver ? { header: headers.resolver } : {}),
      },
      log,
    ),
    createEventPanel(
      {
        id: "cache",
        title: "Cache",
        kinds: ["cache.event"],
        columns: ["op", "sha256", "size", "url"],
        row: cacheRow,
        ...(headers.cache ? { header: headers.cache } : {}),
      },
      log,
    ),
    createEventPanel(
      {
        id: "policy",
        title: "Policy",
        kinds: ["policy.change", "policy.invalid"],
        columns: ["change", "hash", "source"],
        row: policyRow,
        ...(headers.policy ? { header: headers.policy } : {}),
      },
      log,
    ),
    createEventPanel(
      {
        id: "kernel",
        title: "Kernel",
        kinds: ["kernel.abi", "kernel.ruleset", "kernel.result", "boot.progress"],
        columns: ["what", "detail", "note"],
        row: kernelRow,
        ...(headers.kernel ? { header: headers.kernel } : {}),
      },
      log,
    ),
  ];
}

export { createEventPanel, type EventPanel, type EventPanelSpec, type Row, type Tone } from "./event-panel";
export { createPanelTabs } from "./tabs";
