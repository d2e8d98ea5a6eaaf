import { createConsoleTurns } from "../console";
import { createEventLog, type EventLog } from "../log";
import { deferred, messageOf } from "../platform";
import { createPolicyHolder, DEFAULT_POLICY, type PolicyHolder } from "../policy";
import { type ConsentGate, createConsentGate, withoutToken } from "../trust";
import { offerFreshBoot, showBootProgress } from "./chrome/boot-status";
import { mountConsentCard } from "./chrome/consent-card";
import { createLayout, type Layout } from "./chrome/layout";
import { createPolicyEditor } from "./chrome/policy-editor";
import { mountScenarioBar, type ScenarioBar } from "./chrome/scenario-bar";
import { SCENARIOS } from "./chrome/scenarios";
import { createTerminal } from "./chrome/terminal";
import { createWireCounters } from "./chrome/wire-counters";
import type { Guest } from "./emulator/boot";
import { featuresMayLoad } from "./emulator/features-may-load";
import type { PageNetwork } from "./emulator/network";
import { mountEmbed, mountFeatures, type PageContext, wantsEmbed } from "./features";
import { readPageLink } from "./link";
import { linkConsentParts } from "./link-consent";
import { createPanels, createPanelTabs } from "./panels";
import { createPageRelay, createRelayField, type PageRelay } from "./relay";
import { createPageServices } from "./services/index";
import { announceStorage } from "./storage-notice";
import { PAGE_STORAGE, probeLocalStorage, probeStorage } from "./storage-probe";

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
  layout: Layout;
  scenarios: ScenarioBar;
  /** The terminal's size in character cells. */
  terminalSize(): { cols: number; rows: number };
  /**
   * Where the guest's machine is: not started (an embed not yet seen), running, or paused
   * because nobody sees it (emulator/machine-visibility.ts).
   */
  machine(): Promise<"not started" | "running" | "paused">;
  /** What features exposed for tests (`ctx.expose`). */
  features: Record<string, unknown>;
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

export async function startPlayground(container: HTMLElement): Promise<PlaygroundHandle> {
  // The page's link, read once: every feature and service gets this, none reads `location`.
  const link = readPageLink(location.href);
  const embedding = wantsEmbed(link);
  const log = createEventLog();
  const layout = createLayout();
  // An embed starts its machine only once the reader first sees it (scrolls it into view) or
  // clicks it: a docs page of ten demos runs only the ones read (emulator/machine-visibility.ts).
  const mayStart = embedding
    ? import("./emulator/machine-visibility").then((v) => v.firstSeen(layout.root))
    : Promise.resolve("page" as const);
  // The emulator (v86, the network, the proxy, TLS) is not part of the first screen's script:
  // index.html preloads it (vite.config.ts), and it is imported before the page's chrome is built.
  const emulator = mayStart.then(() => import("./emulator/start-guest"));
  // In embed mode the page stays unseen until the embed feature has shaped it (one small import).
  if (embedding) layout.root.style.visibility = "hidden";
  container.appendChild(layout.root);

  // What this browser lets the page keep, probed, never assumed: a storage-blocked embed throws
  // on the very name `localStorage` (storage-probe.ts). Without it the page keeps nothing.
  const storage = probeLocalStorage(PAGE_STORAGE);
  const storageProbe = probeStorage(PAGE_STORAGE);
  const policy = createPolicyHolder(DEFAULT_POLICY, log);
  void policy.replace(DEFAULT_POLICY, "default policy");
  const policyEditor = createPolicyEditor(policy, log);
  const relay = createPageRelay({
    linked: link.relay,
    storage,
    scope: globalThis,
  });
  policyEditor.element.appendChild(createRelayField(relay).element);
  // What the link proposes waits for the reader's one answer on the card (docs/decisions/0028).
  const consent = createConsentGate(linkConsentParts(link));
  mountConsentCard(consent, document.body);
  const logAnswer = consent.subscribe((state) => {
    if (state.phase !== "accepted" && state.phase !== "rejected") return;
    logAnswer();
    const parts = state.parts.map((p) => p.kind).join(", ");
    log.append({
      kind: "note",
      level: state.phase === "accepted" ? "info" : "warning",
      source: "link",
      message:
        state.phase === "accepted"
          ? `you accepted what this page's link proposes (${parts}): it runs as the card showed, minus what the guarantees refuse`
          : `you rejected what this page's link proposes (${parts}): nothing of it was run, applied or contacted`,
    });
  });
  const linkedRelay = relay.proposed();
  if (linkedRelay !== null)
    void consent
      .offer({ kind: "relay", shown: withoutToken(linkedRelay), host: new URL(linkedRelay).host })
      .then((accepted) => (accepted ? relay.acceptProposed() : relay.declineProposed()));
  else consent.withdraw("relay");
  let network: PageNetwork | null = null;
  const wireCounters = createWireCounters(() => network?.peer.counters ?? null);
  const panels = createPanels(log, { policy: policyEditor.element, wire: wireCounters });
  const tabs = createPanelTabs(panels);
  layout.panelsBox.appendChild(tabs.element);

  const term = createTerminal(layout.terminalBox);
  void storageProbe.then((probe) =>
    announceStorage({ probe, log, terminal: term, link, scope: globalThis as unknown as { parent: unknown; self: unknown } }),
  );
  const ready = deferred<Guest>();
  const guestReady = ready.promise;
  const turns = createConsoleTurns();
  const scenarios = mountScenarioBar({
    turns,
    bar: layout.scenarioBar,
    scenarios: SCENARIOS,
    guest: guestReady,
    log,
    selectPanel: (id) => tabs.select(id),
  });
  guestReady.catch(() => undefined); // reported on the log and in the boot bar
  const services = createPageServices({
    log,
    link,
    fetch: (url, init) => globalThis.fetch(url, init),
    guest: guestReady,
    turns,
    storage,
    databases: storageProbe.then((probe) => probe.indexedDB),
    harnessField: () => layout.harnessInput.value.trim(),
  });
  const featuresMounted = deferred();
  /** The guest once its machine runs (onMachine). */
  let machineGuest: Guest | null = null;
  const running = deferred<Guest>();
  const handle: PlaygroundHandle = {
    log,
    guest: null,
    network: null,
    policy,
    relay,
    consent,
    layout,
    scenarios,
    guestReady,
    guestRunning: running.promise,
    features: {},
    featuresReady: featuresMounted.promise,
    terminalSize: () => ({ cols: term.terminal.cols, rows: term.terminal.rows }),
    machine: async () => {
      const guest = machineGuest;
      if (!guest) return "not started";
      return (await guest.paused()) ? "paused" : "running";
    },
  };
  window.__tab = handle;

  const page: PageContext = {
    log,
    layout,
    policy,
    link,
    consent,
    guest: guestReady,
    network: () => network,
    panel: (id) => {
      const found = panels.find((p) => p.id === id);
      if (!found) throw new Error(`no panel ${id}`);
      return found;
    },
    addPanel: (panel) => {
      panels.push(panel);
      tabs.add(panel);
    },
    selectPanel: (id) => tabs.select(id),
    scenarios,
    turns,
    terminal: term,
    expose: (name, value) => {
      handle.features[name] = value;
    },
  };

  showBootProgress(log, layout);
  const coldBoot = deferred();
  const started = emulator.then(({ startGuest }) =>
    startGuest({
      log,
      policy,
      link,
      terminal: term,
      proxyHandlers: services.proxyHandlers,
      relay,
      onStart: (how) => {
        if (how === "boot") coldBoot.resolve();
      },
      onMachine: (guest) => {
        machineGuest = guest;
        running.resolve(guest);
        // Keys typed from now on wait for the first prompt, then go in (console-link.ts).
        // Embedded in someone's docs, the page must not take the reader's focus (or scroll to it).
        if (link.embed !== "1") term.focus();
      },
      onBooted: (guest, connected) => {
        handle.guest = guest;
        network = connected;
        handle.network = connected;
      },
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
      void import("./emulator/machine-visibility").then((v) => v.pauseWhileUnseen({ guest, log, view: embedding ? layout.root : null }));
    },
    async (error: unknown) => {
      const { bootErrorMessage } = await emulator.catch(() => ({ bootErrorMessage: (e: unknown) => String(e) }));
      log.append({ kind: "boot.progress", phase: "error", message: bootErrorMessage(error) });
      ready.reject(error);
    },
  );

  if (embedding)
    await mountEmbed(page).finally(() => {
      layout.root.style.visibility = "";
    });
  // Everything else a visitor may never open loads once a restored guest is ready (or a cold
  // boot's files are in), so that the link and the CPU serve the guest first
  // (features-may-load.ts).
  featuresMayLoad(guestReady, coldBoot.promise)
    .then(() => mountFeatures(page, services.load))
    .catch((error: unknown) => {
      log.append({ kind: "note", level: "error", source: "page", message: `a page feature did not load: ${messageOf(error)}` });
    })
    .finally(() => featuresMounted.resolve());
  return handle;
}
