import type { ConsoleTurns, WatchedGuest } from "../../console";
import type { EventLog } from "../../log";
import type { GuestChecks } from "../../machine";
import type { PolicyHolder } from "../../policy";
import type { ConsentGate } from "../../trust";
import type { Layout } from "../chrome/layout";
import type { ScenarioBar } from "../chrome/scenario-bar";
import type { GuestTerminal } from "../chrome/terminal";
import type { PageNetwork } from "../emulator/network";
import type { PageLink } from "../link";
import type { EventPanel } from "../panels";
import type { PageServices } from "../services/types";

/**
 * What a page feature (resolver, skills, vault, runner, share…) gets to plug itself in. Each
 * feature is one folder under ./features whose `mount.ts` exports `mount(ctx)`; the playground
 * loads them with `import()` once the first screen is up and mounts them in order (./index.ts).
 * A feature that needs no services takes this context alone. What features share is in `services`, never in each
 * other's exposed objects.
 */
export interface PageContext {
  log: EventLog;
  layout: Layout;
  policy: PolicyHolder;
  /** The page's link, read once (src/page/link.ts): features never read `location` for parameters. */
  link: PageLink;
  /**
   * The reader's one answer to what the link proposes (docs/decisions/0028): a feature that reads
   * a part of the link offers it here (or withdraws it) and does nothing with it until granted.
   */
  consent: ConsentGate;
  /** The guest once it is ready (boots or restores); it runs a lesson's checks out of band on its control line. */
  guest: Promise<WatchedGuest & GuestChecks>;
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
  /** The terminal on the guest's console (what a feature writes there is never sent to the guest). */
  terminal: GuestTerminal;
  /** Exposes something on `window.__tab.features[name]` (for e2e tests and curious users); features never read it. */
  expose(name: string, value: unknown): void;
}

/** What a feature that uses the page's services gets: the page's context and the services, loaded. */
export interface FeatureContext extends PageContext {
  /** The page's services, built once (src/page/services/index.ts): cache, skills, vault, model endpoint, resolver, runner. */
  services: PageServices;
}
