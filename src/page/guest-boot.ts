import type { EventLog } from "../log";
import { type Deferred, deferred } from "../platform";
import type { PolicyHolder } from "../policy";
import { offerFreshBoot, showBootProgress } from "./chrome/boot-status";
import type { Layout } from "./chrome/layout";
import type { GuestTerminal } from "./chrome/terminal";
import type { Guest } from "./emulator/boot";
import type { PageNetwork } from "./emulator/network";
import type { PageLink } from "./link";
import type { PageRelay } from "./relay";
import type { LazyPageServices } from "./services/types";

export interface PageBootOptions {
  /** The emulator's page side, imported once the machine may start. */
  emulator: Promise<typeof import("./emulator/start-guest")>;
  log: EventLog;
  policy: PolicyHolder;
  link: PageLink;
  layout: Layout;
  terminal: GuestTerminal;
  services: LazyPageServices;
  relay: PageRelay;
  /** Resolved with the guest once it is ready, rejected with the boot error. */
  ready: Deferred<Guest>;
  /** Whether the page is an embed (its machine pauses while scrolled away, not only while the tab is hidden). */
  embedding: boolean;
  /** The guest and its network, once booted (the test handle names them). */
  onBooted(guest: Guest, network: PageNetwork): void;
}

export interface PageBoot {
  /** The guest once v86 runs it (its console exists; its prompt and network may not yet). */
  running: Promise<Guest>;
  /** Resolves if the guest boots cold (no saved state), at its start. */
  coldBoot: Promise<void>;
  /** Where the machine is: not started, running, or paused while nobody sees it. */
  machine(): Promise<"not started" | "running" | "paused">;
}

/** Starts the guest (restored, or booted cold), shows its progress, and offers "Boot fresh" once it runs. */
export function bootPageGuest(options: PageBootOptions): PageBoot {
  const { log, link, layout, terminal, ready } = options;
  showBootProgress(log, layout);
  const coldBoot = deferred();
  const running = deferred<Guest>();
  /** The guest once its machine runs (onMachine). */
  let machineGuest: Guest | null = null;
  const started = options.emulator.then(({ startGuest }) =>
    startGuest({
      log,
      policy: options.policy,
      link,
      terminal,
      proxyHandlers: options.services.proxyHandlers,
      relay: options.relay,
      onStart: (how) => {
        if (how === "boot") coldBoot.resolve();
      },
      onMachine: (guest) => {
        machineGuest = guest;
        running.resolve(guest);
        // Keys typed from now on wait for the first prompt, then go in (console-link.ts).
        // Embedded in someone's docs, the page must not take the reader's focus (or scroll to it).
        if (link.embed !== "1") terminal.focus();
      },
      onBooted: options.onBooted,
    }),
  );
  started.then(
    ({ guest, snapshotKey }) => {
      // Without a saved state the page would restore the shipped one: `?boot=fresh` boots cold.
      offerFreshBoot(
        layout,
        () =>
          void import("./emulator/snapshots")
            .then((s) => s.dropSnapshot(snapshotKey))
            .then(() => location.assign(link.with({ boot: "fresh" }))),
      );
      ready.resolve(guest);
      // A machine nobody sees (a hidden tab, an embed scrolled away) is paused until seen.
      void import("./emulator/machine-visibility").then((v) =>
        v.pauseWhileUnseen({ guest, log, view: options.embedding ? layout.root : null }),
      );
    },
    async (error: unknown) => {
      const { bootErrorMessage } = await options.emulator.catch(() => ({ bootErrorMessage: (e: unknown) => String(e) }));
      log.append({ kind: "boot.progress", phase: "error", message: bootErrorMessage(error) });
      ready.reject(error);
    },
  );
  return {
    running: running.promise,
    coldBoot: coldBoot.promise,
    machine: async () => {
      const guest = machineGuest;
      if (!guest) return "not started";
      return (await guest.paused()) ? "paused" : "running";
    },
  };
}
