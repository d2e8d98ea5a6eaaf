import type { EventLog } from "../../log";
import type { PolicyHolder } from "../../policy";
import type { ConsoleTurns } from "../console-turns";
import type { Guest } from "../emulator/boot";
import type { Layout } from "../layout";
import type { PageNetwork } from "../network";
import type { EventPanel } from "../panels";
import type { ScenarioBar } from "../scenario-bar";

/**
 * What a page feature (resolver, skills, vault, runner, share…) gets to plug itself in. Each
 * feature lives in its own file under ./features and exports `mount(ctx)`; the playground
 * calls them all once the shell exists.
 */
export interface FeatureContext {
  log: EventLog;
  layout: Layout;
  policy: PolicyHolder;
  params: URLSearchParams;
  /** The guest once it is ready (boots or restores). */
  guest: Promise<Guest>;
  /** The network once the guest exists (null before). */
  network(): PageNetwork | null;
  /** A built-in panel by id ("wire", "proxy", "resolver", "cache", "policy", "kernel"). */
  panel(id: string): EventPanel;
  /** Adds a new panel with its own tab. */
  addPanel(panel: EventPanel): void;
  selectPanel(id: string): void;
  /** Runs a verdict-table scenario by id (types its commands into the guest). */
  scenarios: ScenarioBar;
  /** Typing into the guest console: one conversation at a time (scenarios, runs, tours). */
  turns: ConsoleTurns;
  /** Exposes something on `window.__tab.features[name]` (for e2e tests and curious users). */
  expose(name: string, value: unknown): void;
  /** What an earlier-mounted feature exposed (unknown: check its shape before use). */
  exposed(name: string): unknown;
}
