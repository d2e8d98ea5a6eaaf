import { createConsoleTurns } from "../console";
import { createEventLog } from "../log";
import { deferred, messageOf } from "../platform";
import { createPolicyHolder, DEFAULT_POLICY } from "../policy";
import { createLayout } from "./chrome/layout";
import { createPolicyEditor } from "./chrome/policy-editor";
import { mountScenarioBar } from "./chrome/scenario-bar";
import { SCENARIOS } from "./chrome/scenarios";
import { createTerminal } from "./chrome/terminal";
import { createWireCounters } from "./chrome/wire-counters";
import type { Guest } from "./emulator/boot";
import { featuresMayLoad } from "./emulator/features-may-load";
import type { PageNetwork } from "./emulator/network";
import { mountEmbed, mountFeatures, wantsEmbed } from "./features";
import { bootPageGuest } from "./guest-boot";
import type { PlaygroundHandle } from "./handle";
import { readPageLink } from "./link";
import { askAboutLink } from "./link-answer";
import { createPageContext } from "./page-context";
import { createPagePanels, createPanels } from "./panels";
import { createPageRelay, createRelayField } from "./relay";
import { createPageServices } from "./services/index";
import { announceStorage } from "./storage-notice";
import { PAGE_STORAGE, probeLocalStorage, probeStorage } from "./storage-probe";

export type { PlaygroundHandle } from "./handle";

/**
 * The composition root: the page's link, the one log, the layout, the panels, the terminal,
 * the services, the guest's start and the features, wired together and nothing else.
 */
export async function startPlayground(container: HTMLElement): Promise<PlaygroundHandle> {
  // The page's link, read once: every feature and service gets this, none reads `location`.
  const link = readPageLink(location.href);
  const embedding = wantsEmbed(link);
  const log = createEventLog();
  const layout = createLayout();
  // The emulator (v86, the network, the proxy, TLS) is not part of the first screen's script:
  // index.html preloads it (vite.config.ts), and it is imported before the page's chrome is built.
  // An embed gets here only once the reader first saw it or clicked it (main.ts,
  // embed-placeholder.ts): a docs page of ten demos runs only the ones read.
  const emulator = import("./emulator/start-guest");
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
  const relay = createPageRelay({ linked: link.relay, storage, scope: globalThis });
  policyEditor.element.appendChild(createRelayField(relay).element);
  const consent = askAboutLink(link, log, relay);
  let network: PageNetwork | null = null;
  const wireCounters = createWireCounters(() => network?.peer.counters ?? null);
  const panels = createPagePanels(createPanels(log, { policy: policyEditor.element, wire: wireCounters }));
  layout.panelsBox.appendChild(panels.element);

  const terminal = createTerminal(layout.terminalBox);
  void storageProbe.then((probe) =>
    announceStorage({ probe, log, terminal, link, scope: globalThis as unknown as { parent: unknown; self: unknown } }),
  );
  const ready = deferred<Guest>();
  const guestReady = ready.promise;
  guestReady.catch(() => undefined); // reported on the log and in the boot bar
  const turns = createConsoleTurns();
  const scenarios = mountScenarioBar({
    turns,
    bar: layout.scenarioBar,
    scenarios: SCENARIOS,
    guest: guestReady,
    log,
    selectPanel: panels.select,
  });
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
  const boot = bootPageGuest({
    emulator,
    log,
    policy,
    link,
    layout,
    terminal,
    services,
    relay,
    ready,
    embedding,
    onBooted: (guest, connected) => {
      handle.guest = guest;
      network = connected;
      handle.network = connected;
    },
  });
  const handle: PlaygroundHandle = {
    log,
    guest: null,
    network: null,
    policy,
    relay,
    consent,
    scenarios,
    guestReady,
    guestRunning: boot.running,
    features: {},
    featuresReady: featuresMounted.promise,
    terminalSize: () => ({ cols: terminal.terminal.cols, rows: terminal.terminal.rows }),
    machine: boot.machine,
  };
  window.__tab = handle;
  const page = createPageContext(
    { log, policy, link, consent, guest: guestReady, network: () => network, scenarios, turns, terminal },
    layout,
    panels,
    handle.features,
  );

  if (embedding)
    await mountEmbed(page).finally(() => {
      layout.root.style.visibility = "";
    });
  // Everything else a visitor may never open loads once a restored guest is ready (or a cold
  // boot's files are in), so that the link and the CPU serve the guest first
  // (features-may-load.ts).
  featuresMayLoad(guestReady, boot.coldBoot)
    .then(() => mountFeatures(page, services.load))
    .catch((error: unknown) => {
      log.append({ kind: "note", level: "error", source: "page", message: `a page feature did not load: ${messageOf(error)}` });
    })
    .finally(() => featuresMounted.resolve());
  return handle;
}
