import type { ConsoleTurns, WatchedGuest } from "../../console";
import type { EventLog } from "../../log";
import type { GuestChecks } from "../../machine";
import type { PolicyHolder } from "../../policy";
import type { ConsentGate } from "../../trust";
import type { ScenarioBar } from "../chrome/scenario-bar";
import type { GuestTerminal } from "../chrome/terminal";
import type { PageNetwork } from "../emulator/network";
import type { PageLink } from "../link";
import type { PagePanels, PanelId } from "../panels";
import type { PageServices } from "../services/types";
import type { ExposedFeatures } from "./exposed";

/**
 * What a page feature (resolver, skills, vault, runner, share…) gets to plug itself in: the
 * page's parts and a few verbs, never the page's layout. A feature builds its own elements and
 * hands them to the page (a panel, a panel's header, a place, a dialog); it does not reach into
 * elements it did not build. Each feature is one folder under ./features whose `mount.ts`
 * exports `mount(ctx)`; the playground loads them with `import()` once the first screen is up
 * (./index.ts). A feature that needs no services takes this context alone. What features share
 * is in `services`, never in each other's exposed objects.
 */
export interface PageContext {
  log: EventLog;
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
  /** The panels by typed id; what a feature asks of a panel not yet added waits for it. */
  panels: FeaturePanels;
  /** Runs a verdict-table scenario by id (types its commands into the guest). */
  scenarios: ScenarioBar;
  /** Typing into the guest console: one conversation at a time (scenarios, runs, tours). */
  turns: ConsoleTurns;
  /** The terminal on the guest's console (what a feature writes there is never sent to the guest); `focus()` focuses it. */
  terminal: GuestTerminal;
  /** The top bar's harness field. */
  harness: HarnessField;
  /** Sets how the page is laid out: a lesson's focus (the player beside the terminal), or an embed showing one panel. */
  setMode(mode: PageMode): void;
  /** Puts a feature's own element in one of the page's places. */
  place(where: PagePlace, element: HTMLElement): void;
  /** Shows a feature's own modal dialog over the page; it is removed when it closes. */
  showDialog(dialog: HTMLDialogElement): void;
  /** Exposes something on `window.__tab.features[name]` (for e2e tests and curious users), typed by ./exposed.ts; features never read it. */
  expose<K extends keyof ExposedFeatures>(name: K, value: ExposedFeatures[K]): void;
}

/** A feature's view of the panels: add its own, give one a header, show one. */
export type FeaturePanels = Omit<PagePanels, "element">;

/** The top bar's "Harness" field: what it holds, and its submission (Enter or Resolve). */
export interface HarnessField {
  /** The field's text, trimmed ("" when empty). */
  value(): string;
  set(value: string): void;
  onSubmit(listener: (value: string) => void): void;
}

export type PageMode =
  /** A lesson is open: the page quiets what a learner does not need (lessons.css). */
  | { kind: "lesson-focus"; on: boolean }
  /** Embed mode (`?embed=…`): only the terminal and this panel (embed.css). */
  | { kind: "embed"; panel: PanelId };

/**
 * Where a feature's element may go: beside the Share button in the top bar, above the panels
 * (the timeline), or at the top of the page (the embed's bar).
 */
export type PagePlace = "share" | "above-panels" | "page-top";

/** What a feature that uses the page's services gets: the page's context and the services, loaded. */
export interface FeatureContext extends PageContext {
  /** The page's services, built once (src/page/services/index.ts): cache, skills, vault, model endpoint, resolver, runner. */
  services: PageServices;
}
