import type { EventLog } from "../log";
import type { PolicyHolder } from "../policy";
import type { ConsentGate } from "../trust";
import type { ScenarioBar } from "./chrome/scenario-bar";
import type { Guest } from "./emulator/boot";
import type { PageNetwork } from "./emulator/network";
import type { ExposedFeatures } from "./features";
import type { PageRelay } from "./relay";

/** What the page exposes on `window.__tab` for the e2e suite and for curious users. */
export interface PlaygroundHandle {
  log: EventLog;
  guest: Guest | null;
  network: PageNetwork | null;
  policy: PolicyHolder;
  /** The Wisp relay setting (`?relay=` or the Policy panel). */
  relay: PageRelay;
  /** The reader's consent to what the page's link proposes (docs/decisions/0028). */
  consent: ConsentGate;
  scenarios: ScenarioBar;
  /** The terminal's size in character cells. */
  terminalSize(): { cols: number; rows: number };
  /**
   * Where the guest's machine is: not started (an embed not yet seen), running, or paused
   * because nobody sees it (emulator/machine-visibility.ts).
   */
  machine(): Promise<"not started" | "running" | "paused">;
  /** What features exposed (`ctx.expose`), typed by features/exposed.ts: a feature not (yet) mounted is absent. */
  features: Partial<ExposedFeatures>;
  /** Resolves once the guest is ready (or rejects with the boot error). */
  guestReady: Promise<Guest>;
  /**
   * Resolves once v86 runs the guest: its console exists, its first prompt and its network may
   * not yet. What the visitor types goes in from that prompt on.
   */
  guestRunning: Promise<Guest>;
  /**
   * Resolves once every page feature is mounted (or failed to load, which the log says). They
   * load once a restored guest is ready (emulator/features-may-load.ts), so a moment after
   * `guestReady`.
   */
  featuresReady: Promise<void>;
}

declare global {
  interface Window {
    __tab?: PlaygroundHandle;
  }
}
